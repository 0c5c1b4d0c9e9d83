import type { Interrupt } from "@ag-ui/core";
import { type AgentToolApproval, MAX_APPROVAL_REASON_LENGTH } from "@agent-tools/core-runs/protocol";

/** The `reason` of the interrupt a tool call that needs approval raises. */
export const TOOL_APPROVAL_REASON = "tool_approval";

const APPROVAL_PREFIX = "approval:";

/**
 * The AG-UI interrupt id of approval `approvalId`, asked in the tree of the parent's top-level run `runId`: what a
 * resume entry answers, and what `POST …/approve/<runId>/<approvalId>` answers too.
 *
 * @experimental New API: it may change without a major version.
 */
export function approvalInterruptId(runId: string, approvalId: string): string {
  return `${APPROVAL_PREFIX}${encodeURIComponent(runId)}:${encodeURIComponent(approvalId)}`;
}

/** The top-level run and approval an interrupt id names, or `null` for any other id. Never throws. */
export function parseApprovalInterruptId(id: string): { runId: string; approvalId: string } | null {
  if (!id.startsWith(APPROVAL_PREFIX)) return null;
  const [runId, approvalId, ...rest] = id.slice(APPROVAL_PREFIX.length).split(":");
  if (runId === undefined || approvalId === undefined || rest.length > 0 || runId === "" || approvalId === "") {
    return null;
  }
  try {
    return { runId: decodeURIComponent(runId), approvalId: decodeURIComponent(approvalId) };
  } catch {
    return null;
  }
}

/** The id of the AG-UI interrupt an `interrupted` sub-agent run raises. */
export function interruptIdOf(runId: string): string {
  return `interrupted:${runId}`;
}

/**
 * The interrupt of an approval, read in the log of the lane whose path (run ids from the top-level run down) is
 * `holder`: the run that asks is `holder` followed by the approval's own path; its id in the stream is that path
 * joined; the tool call is named under it, as the stream names the asker's tool calls.
 */
export function approvalInterrupt(
  holder: readonly string[],
  approval: AgentToolApproval,
): { interrupt: Interrupt; asker: string[]; askerTypes: string[] } {
  const asker = [...holder, ...approval.path.map((node) => node.runId)];
  const subagentRunId = asker.join("/");
  const topRunId = asker[0] ?? subagentRunId;
  return {
    asker,
    askerTypes: approval.path.map((node) => node.agentType),
    interrupt: {
      id: approvalInterruptId(topRunId, approval.approvalId),
      subagentRunId,
      reason: TOOL_APPROVAL_REASON,
      message: `${approval.toolName} needs approval`,
      toolCallId: `${subagentRunId}/${approval.toolCallId}`,
      responseSchema: APPROVAL_RESPONSE_SCHEMA,
      metadata: {
        approvalId: approval.approvalId,
        runId: topRunId,
        toolName: approval.toolName,
        ...(approval.input !== undefined ? { input: approval.input } : {}),
      },
    },
  };
}

/** What a resume entry's `payload` answers an approval with (the approve route's body). */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string", maxLength: MAX_APPROVAL_REASON_LENGTH } },
  required: ["approved"],
  additionalProperties: false,
} as const;
