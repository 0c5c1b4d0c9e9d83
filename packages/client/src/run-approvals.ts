import { type AgentToolApproval, foldApprovalStates } from "@agent-tools/core-runs/protocol";

// A run's approvals (`data-agent-approval` chunks of its durable log): the tool calls in its tree that needed
// approval, each in its latest state. Pure functions over a small sorted list.

/** One approval chunk a run's log holds: `sequence` is `null` for a chunk that came without one. */
export type ApprovalEntry = { readonly sequence: number | null; readonly approval: AgentToolApproval };

/** @internal No approvals: shared, so that runs without any compare equal by identity. */
export const NO_APPROVALS: readonly AgentToolApproval[] = Object.freeze([]);

const orderOf = (entry: ApprovalEntry) => entry.sequence ?? Number.POSITIVE_INFINITY;

/**
 * `entries` with `entry` put in sequence order (one without a sequence goes last, in arrival order; the same entries
 * back when such a one repeats a state already held).
 */
export function insertApprovalEntry(entries: readonly ApprovalEntry[], entry: ApprovalEntry): readonly ApprovalEntry[] {
  const { approval } = entry;
  const isRepeat = (held: ApprovalEntry) =>
    held.approval.approvalId === approval.approvalId && held.approval.status === approval.status;
  if (entry.sequence === null && entries.some(isRepeat)) return entries;
  let index = entries.length;
  while (index > 0 && orderOf(entries[index - 1] as ApprovalEntry) > orderOf(entry)) index -= 1;
  return [...entries.slice(0, index), entry, ...entries.slice(index)];
}

/** `entries` without those a step reset voided (sequences `from` up to, not including, `until`). */
export function withoutVoidedApprovals(
  entries: readonly ApprovalEntry[],
  from: number,
  until: number,
): readonly ApprovalEntry[] {
  const kept = entries.filter((entry) => entry.sequence === null || entry.sequence < from || entry.sequence >= until);
  return kept.length === entries.length ? entries : kept;
}

/**
 * The approvals of a run, from its approval entries (in sequence order): one per `approvalId`, in the order they were
 * asked (the first chunk of each), each in its state by the protocol's one rule (`mergeApproval`): an answered
 * approval never goes back to pending, whatever order its chunks came in, and its first answer stands.
 */
export function foldApprovals(entries: readonly ApprovalEntry[]): readonly AgentToolApproval[] {
  if (entries.length === 0) return NO_APPROVALS;
  return foldApprovalStates(entries.map((entry) => entry.approval));
}

const pendingCache = new WeakMap<readonly AgentToolApproval[], readonly AgentToolApproval[]>();

/**
 * The approvals of a run that wait for an answer, in the order they were asked. The same array while the run's
 * approvals do not change, so a selector over it needs no custom equality.
 *
 * @example
 * for (const approval of selectPendingApprovals(run)) showApprovalPanel(run.runId, approval);
 */
export function selectPendingApprovals(run: {
  readonly approvals: readonly AgentToolApproval[];
}): readonly AgentToolApproval[] {
  let pending = pendingCache.get(run.approvals);
  if (!pending) {
    const waiting = run.approvals.filter((approval) => approval.status === "pending");
    pending = waiting.length === 0 ? NO_APPROVALS : waiting;
    pendingCache.set(run.approvals, pending);
  }
  return pending;
}
