import type { UIMessageChunk } from "ai";
import type { JsonValue } from "./json-value.js";
import type { AgentToolTreeNode } from "./tree.js";

/**
 * Where a tool call that needs approval stands: `pending` until someone answers, then `approved` or `denied` (or
 * `expired`, denied because nobody answered within the asking child's `approvalTimeoutMs`).
 */
export type AgentToolApprovalStatus = "pending" | "approved" | "denied" | "expired";

/**
 * A tool call that needs approval (the AI SDK's `needsApproval`), somewhere in a run's tree: which tool, with what
 * input, and which run asks — `path` goes from the run whose log holds this down to the asking run (`[]`: that run
 * asks itself; `[child, grandchild]`: its grandchild does). Each run re-publishes the approvals of the runs below it
 * in its own log, one level deeper, so the root's clients see every approval of the tree on its top-level runs.
 */
export type AgentToolApproval = {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input?: JsonValue;
  path: AgentToolTreeNode[];
  status: AgentToolApprovalStatus;
  /** Why it was answered so (a denial's reason), if given. */
  reason?: string;
  /** When it was asked or answered (server time). */
  at: number;
};

/** An answer to an approval. */
export type AgentToolApprovalAnswer = { approved: boolean; reason?: string };

/** The longest reason an approval's answer may give, in characters (surrounding spaces aside). */
export const MAX_APPROVAL_REASON_LENGTH = 500;

/**
 * The data part an approval travels in, in a run's durable log: its id is the approval's, so the AI SDK's assembly
 * keeps one part per approval (the latest: pending, then answered), and a page on plain `useChat` sees it in the run's
 * message.
 */
export const AGENT_APPROVAL_PART = "data-agent-approval";

/** The chunk that records an approval's state. */
export function approvalChunk(approval: AgentToolApproval): UIMessageChunk {
  return { type: AGENT_APPROVAL_PART, id: approval.approvalId, data: approval } as UIMessageChunk;
}

const STATUSES: readonly string[] = ["pending", "approved", "denied", "expired"];

/** The approval a `data-agent-approval` chunk holds, or `null` for any other chunk (or a malformed one). Never throws. */
export function readApprovalChunk(body: unknown): AgentToolApproval | null {
  if (typeof body !== "object" || body === null || (body as { type?: unknown }).type !== AGENT_APPROVAL_PART)
    return null;
  const data = (body as { data?: unknown }).data;
  if (typeof data !== "object" || data === null) return null;
  const { approvalId, toolCallId, toolName, input, path, status, reason, at } = data as Record<string, unknown>;
  if (typeof approvalId !== "string" || typeof toolCallId !== "string" || typeof toolName !== "string") return null;
  if (typeof status !== "string" || !STATUSES.includes(status) || typeof at !== "number" || !Array.isArray(path)) {
    return null;
  }
  const nodes: AgentToolTreeNode[] = [];
  for (const node of path) {
    const { agentType, runId } = (node ?? {}) as Record<string, unknown>;
    if (typeof agentType !== "string" || typeof runId !== "string") return null;
    nodes.push({ agentType, runId });
  }
  return {
    approvalId,
    toolCallId,
    toolName,
    ...(input !== undefined ? { input: input as JsonValue } : {}),
    path: nodes,
    status: status as AgentToolApprovalStatus,
    ...(typeof reason === "string" ? { reason } : {}),
    at,
  };
}
