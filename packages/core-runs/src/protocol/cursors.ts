/**
 * What a client already holds of each run: the highest durable sequence it applied and the newest lifecycle
 * revision. Sent on (re)connect so that replay sends only what is newer.
 */
export type AgentToolCursor = { sequence: number; revision: number };
export type AgentToolCursors = Record<string, AgentToolCursor>;

/** The query parameter that carries cursors on a connect URL. */
export const AGENT_TOOL_CURSORS_PARAM = "agentToolCursors";

/** Encode cursors for a URL query value (compact JSON: `[[runId, sequence, revision], …]`). */
export function encodeAgentToolCursors(cursors: AgentToolCursors): string {
  return JSON.stringify(Object.entries(cursors).map(([runId, cursor]) => [runId, cursor.sequence, cursor.revision]));
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/**
 * Decode a cursors query value. Returns `null` for anything malformed (the server then does a full replay,
 * which is always safe), never throws.
 */
export function parseAgentToolCursors(value: string | null | undefined): AgentToolCursors | null {
  if (value === null || value === undefined || value === "") return null;
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(raw)) return null;
  const cursors: AgentToolCursors = Object.create(null);
  for (const item of raw) {
    if (!Array.isArray(item) || item.length !== 3) return null;
    const [runId, sequence, revision] = item as unknown[];
    if (typeof runId !== "string" || runId.length === 0 || !isCount(sequence) || !isCount(revision)) return null;
    cursors[runId] = { sequence, revision };
  }
  return cursors;
}
