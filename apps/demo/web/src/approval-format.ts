import type { AgentToolApproval } from "@agent-tools/react";
import { clip } from "./format.js";

/** How much of a tool's input an approval panel shows (the rest is said in a count). */
const MAX_INPUT_CHARS = 1_200;
const MAX_INPUT_LINES = 24;

/**
 * A tool's input for a person to check before approving it: pretty JSON (a string as itself), cut after
 * `MAX_INPUT_LINES` lines or `MAX_INPUT_CHARS` characters with what was left out counted, so nothing is cut silently.
 */
export function approvalInputText(input: unknown): string {
  if (input === undefined) return "(no input)";
  let text: string;
  try {
    text = typeof input === "string" ? input : (JSON.stringify(input, null, 2) ?? String(input));
  } catch {
    text = String(input);
  }
  const lines = text.split("\n");
  let shown = lines.length > MAX_INPUT_LINES ? lines.slice(0, MAX_INPUT_LINES).join("\n") : text;
  if (shown.length > MAX_INPUT_CHARS) shown = shown.slice(0, MAX_INPUT_CHARS);
  const left = text.length - shown.length;
  return left > 0 ? `${shown}\n… (${left} more characters)` : shown;
}

/** Which run asks: the card's run, then the path down to the asker, as agent types (`Planner › Writer`). */
export function approvalAsker(runName: string, approval: Pick<AgentToolApproval, "path">): string {
  return [runName, ...approval.path.map((node) => node.agentType)].join(" › ");
}

/** How the run that asked ended, when its end closed its approvals: the reason it ended with, and its words for it. */
export type ApprovalClosedBy = { reason: string | null; label: string };

/** Whether the run's own end closed the approval (denied with the run's reason), rather than someone's answer. */
export function isClosedByRun(
  approval: Pick<AgentToolApproval, "status" | "reason">,
  closedBy: ApprovalClosedBy | null | undefined,
): boolean {
  return approval.status === "denied" && closedBy != null && (approval.reason ?? null) === closedBy.reason;
}

/**
 * An answered approval, in a few words. An approval the run's own end closed (a Cancel or a Stop denies it, with the
 * run's reason) was not answered by anyone: `closedBy` says so ("Not answered: cancelled by you").
 */
export function approvalOutcome(
  approval: Pick<AgentToolApproval, "status" | "reason">,
  closedBy?: ApprovalClosedBy | null,
): string {
  if (closedBy && isClosedByRun(approval, closedBy)) return `Not answered: ${closedBy.label}`;
  const reason = approval.reason ? `: ${clip(approval.reason, 200)}` : "";
  switch (approval.status) {
    case "pending":
      return "Waiting for an answer";
    case "approved":
      return `Approved${reason}`;
    case "denied":
      return `Denied${reason}`;
    case "expired":
      return "Expired: nobody answered in time (denied)";
  }
}
