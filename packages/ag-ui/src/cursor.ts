import type { AgUiProjectionState } from "./projection.js";

const PREFIX = "agui1.";

/**
 * A projection's state as an SSE event id (`id:`): what a stream that stopped goes on from, sent back by the client
 * as `Last-Event-ID` (an `EventSource` does so by itself) or a `cursor` query parameter. URL-safe base64 of JSON.
 */
export function encodeAgUiCursor(state: AgUiProjectionState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The state a cursor names, or `null` for anything that is not one (the stream then starts over). Never throws. */
export function decodeAgUiCursor(cursor: string | null | undefined): AgUiProjectionState | null {
  if (typeof cursor !== "string" || !cursor.startsWith(PREFIX)) return null;
  try {
    const base64 = cursor.slice(PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return isState(value) ? value : null;
  } catch {
    return null;
  }
}

function isState(value: unknown): value is AgUiProjectionState {
  if (typeof value !== "object" || value === null) return false;
  const state = value as Record<string, unknown>;
  if (typeof state["threadId"] !== "string" || !Array.isArray(state["lanes"]) || !Array.isArray(state["endedTurns"])) {
    return false;
  }
  const segment = state["segment"] as Record<string, unknown> | null;
  if (segment !== null) {
    if (typeof segment !== "object" || typeof segment["runId"] !== "string" || typeof segment["turn"] !== "boolean")
      return false;
    if (!Array.isArray(segment["active"]) || !Array.isArray(segment["ended"]) || !Array.isArray(segment["interrupts"]))
      return false;
  }
  return (state["lanes"] as unknown[]).every((lane) => {
    const { runId, name, status, revision, sequence, texts, reasoning, tools, steps } = (lane ?? {}) as Record<
      string,
      unknown
    >;
    return (
      typeof runId === "string" &&
      typeof name === "string" &&
      (status === "live" || status === "suspended" || status === "ended") &&
      typeof revision === "number" &&
      typeof sequence === "number" &&
      typeof steps === "number" &&
      Array.isArray(texts) &&
      Array.isArray(reasoning) &&
      Array.isArray(tools)
    );
  });
}
