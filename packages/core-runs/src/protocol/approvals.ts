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
 * A reason read by `readApprovalReason`: the text to keep (none: absent or blank), or why it is refused.
 *
 * @experimental New API: it may change without a major version.
 */
export type ApprovalReasonReading = { ok: true; reason?: string } | { ok: false; error: string };

// Line breaks and tabs (and the other separators a text may break lines with): each run becomes one space.
const LINE_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
// The other control characters (C0, DEL, C1) and the invisible controls of bidirectional text (marks, embeddings,
// overrides, isolates), which make a text read otherwise than it is stored.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is this pattern's purpose.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The reason an approval's answer gives, as it may be stored and handed to a model: one rule for every place an
 * answer passes (the client before sending, the approve route, the runner that answers). Line breaks and tabs become
 * a space, other control characters (C0, DEL, C1, and bidirectional-text controls) are removed, then the spaces around
 * it are trimmed. What is left is the reason (nothing left: no reason); over `MAX_APPROVAL_REASON_LENGTH` characters
 * it is refused, as is a reason that is not a string. Pure; never throws.
 *
 * @example
 * readApprovalReason(" Not\u0007 that file\n") // { ok: true, reason: "Not that file" }
 *
 * @experimental New API: it may change without a major version.
 */
export function readApprovalReason(reason: unknown): ApprovalReasonReading {
  if (reason === undefined) return { ok: true };
  if (typeof reason !== "string") return { ok: false, error: "the reason must be a string" };
  const text = reason.replace(LINE_BREAKS, " ").replace(CONTROLS, "").trim();
  if (text === "") return { ok: true };
  if (text.length > MAX_APPROVAL_REASON_LENGTH) {
    return {
      ok: false,
      error: `the reason is longer than ${MAX_APPROVAL_REASON_LENGTH} characters (${text.length})`,
    };
  }
  return { ok: true, reason: text };
}

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
