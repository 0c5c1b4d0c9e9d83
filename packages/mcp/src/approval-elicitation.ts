import { type AgentToolApproval, MAX_APPROVAL_REASON_LENGTH } from "@agent-tools/core-runs";
import type { AgentToolApprovalAnswer } from "@agent-tools/core-runs/protocol";
import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** The `_meta` key an approval's elicitation carries the approval itself under (for clients that show more). */
export const APPROVAL_META_KEY = "dev.agent-tools/approval";

/** What the form of an approval asks: approve or not, and a reason the asking agent is told with a denial. */
export const APPROVAL_FORM_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean", title: "Approve", description: "Let the agent run this tool call" },
    reason: {
      type: "string",
      title: "Reason",
      description: "What the agent is told with a denial",
      maxLength: MAX_APPROVAL_REASON_LENGTH,
    },
  },
  required: ["approved"],
} satisfies ElicitRequestFormParams["requestedSchema"];

/** One line saying who asks to run what: a task's `statusMessage` while it waits, and its elicitation's message. */
export function approvalQuestion(approval: AgentToolApproval): string {
  const asker = approval.path.at(-1)?.agentType;
  const input = approval.input === undefined ? "" : ` with ${JSON.stringify(approval.input)}`;
  return `${asker ?? "The agent"} asks to run ${approval.toolName}${input}: approve?`;
}

/** The elicitation (form mode) that asks a client to answer a pending approval. */
export function approvalElicitation(approval: AgentToolApproval): ElicitRequestFormParams {
  return {
    mode: "form",
    message: approvalQuestion(approval),
    requestedSchema: APPROVAL_FORM_SCHEMA,
    _meta: { [APPROVAL_META_KEY]: approval },
  };
}

/**
 * The answer an elicitation's result gives an approval: `accept` answers with the form (`approved`, and a non-empty
 * `reason` cut to `MAX_APPROVAL_REASON_LENGTH`), `decline` denies; `cancel` (the user dismissed it) answers nothing, and
 * the approval stays pending for another client or the HTTP route.
 */
export function approvalAnswerOf(result: ElicitResult): AgentToolApprovalAnswer | null {
  if (result.action === "cancel") return null;
  if (result.action === "decline") return { approved: false };
  const approved = result.content?.["approved"] === true;
  const reason = result.content?.["reason"];
  const trimmed = typeof reason === "string" ? reason.trim().slice(0, MAX_APPROVAL_REASON_LENGTH) : "";
  return trimmed === "" || approved ? { approved } : { approved, reason: trimmed };
}
