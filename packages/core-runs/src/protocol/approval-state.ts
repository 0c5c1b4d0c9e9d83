import type { AgentToolApproval } from "./approvals.js";

/** True once an approval has its answer (`approved`, `denied` or `expired`). */
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
 */
export function mergeApproval(known: AgentToolApproval | undefined, next: AgentToolApproval): AgentToolApproval {
  if (known === undefined) return next;
  if (isAnsweredApproval(known)) return known;
  return next;
}

/**
 * The approvals `states` describe (chunks of one log, in sequence order), one per `approvalId` in the order they were
 * asked (the first chunk of each), each in its state by `mergeApproval`.
 */
export function foldApprovalStates(states: Iterable<AgentToolApproval>): AgentToolApproval[] {
  const latest = new Map<string, AgentToolApproval>();
  for (const state of states) latest.set(state.approvalId, mergeApproval(latest.get(state.approvalId), state));
  return [...latest.values()];
}
