import { type AgentToolProgressSnapshot, readProgressChunk } from "@agent-tools/core-runs";

/** The `_meta` key a progress notification carries the run's progress snapshot under. */
export const PROGRESS_META_KEY = "dev.agent-tools/progress";

/**
 * What a chunk of a run tells an MCP client as progress: its snapshot and a line for `message` ("milestone: <name>",
 * then the report's message and percentage, as it has them), or `null` for a chunk that reports no progress.
 */
export function progressOfChunk(
  body: unknown,
  at: number,
): { snapshot: AgentToolProgressSnapshot; message: string } | null {
  const snapshot = readProgressChunk(body, at);
  if (!snapshot) return null;
  const parts = [
    snapshot.milestone !== undefined ? `milestone: ${snapshot.milestone}` : undefined,
    snapshot.message,
    snapshot.fraction !== undefined ? `${Math.round(snapshot.fraction * 100)}%` : undefined,
  ].filter((part): part is string => part !== undefined && part !== "");
  return { snapshot, message: parts.length > 0 ? parts.join(" — ") : "progress" };
}
