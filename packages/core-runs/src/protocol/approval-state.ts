import { type AgentToolApproval, approvalChunk, readApprovalChunk } from "./approvals.js";
import type { AgentToolLogEntry } from "./run-types.js";
import { isVoidedByReset, readStepResetChunk } from "./step-reset.js";

/**
 * True once an approval has its answer (`approved`, `denied` or `expired`).
 *
 * @experimental New API: it may change without a major version.
 */
export function isAnsweredApproval(approval: Pick<AgentToolApproval, "status">): boolean {
  return approval.status !== "pending";
}

/**
 * The one rule for an approval's state, wherever its chunks are read (a client's timeline, the agent tool's
 * preliminary results, the run that asked, a replay): `known` is what was held, `next` a chunk of the same approval
 * read after it (in sequence order, or as it arrived). An approval is answered once and never goes back to pending:
 * - nothing held: `next`;
 * - held answered: the held answer stands (the first answer is the one the asking run acted on; a pending copy that
 *   comes later — a replay, a re-publish — changes nothing);
 * - held pending: `next` (its answer, or the same request again).
 *
 * @experimental New API: it may change without a major version.
 */
export function mergeApproval(known: AgentToolApproval | undefined, next: AgentToolApproval): AgentToolApproval {
  if (known === undefined) return next;
  if (isAnsweredApproval(known)) return known;
  return next;
}

/**
 * The approvals `states` describe (chunks of one log, in sequence order), one per `approvalId` in the order they were
 * asked (the first chunk of each), each in its state by `mergeApproval`.
 *
 * @experimental New API: it may change without a major version.
 */
export function foldApprovalStates(states: Iterable<AgentToolApproval>): AgentToolApproval[] {
  const latest = new Map<string, AgentToolApproval>();
  for (const state of states) latest.set(state.approvalId, mergeApproval(latest.get(state.approvalId), state));
  return [...latest.values()];
}

/**
 * Entries to replay, each approval chunk among them carrying its approval's state as of the last of them: a replay
 * sends an approval in its latest state from its first chunk on, so a reader that draws each frame as it comes never
 * shows an answered approval as pending. A chunk that a step reset among `entries` voids (`isVoidedByReset`) is
 * read by no one — the reader drops it at the reset — so it gives no state and is sent as it is: the state comes
 * from the chunks that stay, as a reader folds them (a page after a cursor may hold a cut step's answer and the reset
 * voiding it; the step run again may have answered otherwise). Sequences stay; only the approval chunks' bodies
 * change (the same array when none does).
 *
 * @experimental New API: it may change without a major version.
 */
export function withLatestApprovals<TEntry extends Pick<AgentToolLogEntry, "body" | "sequence">>(
  entries: readonly TEntry[],
): readonly TEntry[] {
  const voided = voidedApprovalEntries(entries);
  const latest = new Map<string, AgentToolApproval>();
  for (const entry of entries) {
    const approval = voided.has(entry) ? null : readApprovalChunk(entry.body);
    if (approval) latest.set(approval.approvalId, mergeApproval(latest.get(approval.approvalId), approval));
  }
  if (![...latest.values()].some(isAnsweredApproval)) return entries;
  return entries.map((entry) => {
    const approval = voided.has(entry) ? null : readApprovalChunk(entry.body);
    const state = approval ? latest.get(approval.approvalId) : undefined;
    return approval && state && state.status !== approval.status ? { ...entry, body: approvalChunk(state) } : entry;
  });
}

/** The approval chunks of `entries` that a step reset among them voids. */
function voidedApprovalEntries<TEntry extends Pick<AgentToolLogEntry, "body" | "sequence">>(
  entries: readonly TEntry[],
): ReadonlySet<TEntry> {
  const resets = entries.flatMap((entry) => {
    const reset = readStepResetChunk(entry.body);
    return reset ? [{ reset, sequence: entry.sequence }] : [];
  });
  if (resets.length === 0) return new Set();
  return new Set(
    entries.filter(
      (entry) =>
        readApprovalChunk(entry.body) !== null &&
        resets.some(({ reset, sequence }) => isVoidedByReset(entry, reset, sequence)),
    ),
  );
}
