import type { UIMessageChunk } from "ai";

/**
 * The data part a turn's journal records when a tool call's execution starts:
 * `{ type: "data-agent-tool-started", data: { toolCallId }, transient: true }`, written (durably) after the call was
 * decided and before its tool runs. A call whose execution started and has no result when a turn is cut runs again
 * with its own `toolCallId` (see the journal's rules in the spec). It is `transient`, so the AI SDK's own assembly
 * (`readUIMessageStream`) makes no part of it, and a client shows nothing of it.
 */
export const AGENT_TOOL_STARTED_PART = "data-agent-tool-started";

/** The chunk recording that the execution of tool call `toolCallId` started. */
export function toolStartedChunk(toolCallId: string): UIMessageChunk {
  return { type: AGENT_TOOL_STARTED_PART, data: { toolCallId }, transient: true } as UIMessageChunk;
}

/** The toolCallId a `data-agent-tool-started` chunk names, or `null` for any other chunk (or a malformed one). */
export function readToolStartedChunk(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const { type, data } = body as { type?: unknown; data?: unknown };
  if (type !== AGENT_TOOL_STARTED_PART || typeof data !== "object" || data === null) return null;
  const toolCallId = (data as { toolCallId?: unknown }).toolCallId;
  return typeof toolCallId === "string" && toolCallId !== "" ? toolCallId : null;
}
