import { AGENT_MILESTONE_PART, type AgentToolProgressSnapshot, readProgressChunk } from "@agent-tools/core-runs";

/** The `_meta` key a progress notification carries the run's progress snapshot under. */
export const PROGRESS_META_KEY = "dev.agent-tools/progress";

/** What a chunk of a run says as progress: a milestone reached, or a progress report (the bar). */
export type ChunkProgress = {
  kind: "milestone" | "progress";
  snapshot: AgentToolProgressSnapshot;
  message: string;
};

/**
 * What a chunk of a run tells an MCP client as progress: its kind, its snapshot and a line for `message`, or `null` for
 * a chunk that reports no progress. A milestone (`data-agent-milestone`) says "milestone: <name>", then its message and
 * percentage; a progress report says its message and percentage — also when its snapshot still names the run's last
 * milestone (the snapshot a tail starts from does): that milestone was said by its own chunk.
 */
export function progressOfChunk(body: unknown, at: number): ChunkProgress | null {
  const snapshot = readProgressChunk(body, at);
  if (!snapshot) return null;
  const kind = (body as { type?: unknown }).type === AGENT_MILESTONE_PART ? "milestone" : "progress";
  const parts = [
    kind === "milestone" && snapshot.milestone !== undefined ? `milestone: ${snapshot.milestone}` : undefined,
    snapshot.message,
    snapshot.fraction !== undefined ? `${Math.round(snapshot.fraction * 100)}%` : undefined,
  ].filter((part): part is string => part !== undefined && part !== "");
  return { kind, snapshot, message: parts.length > 0 ? parts.join(" — ") : "progress" };
}
