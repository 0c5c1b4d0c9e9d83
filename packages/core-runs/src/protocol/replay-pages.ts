/**
 * Paged replay (SPEC §6): a client that says so gets a parent's retained runs a page at a time — on connect the
 * newest runs (and every live one), older pages when it asks — instead of every retained run at once.
 *
 * - The client puts `agentToolPage=<limit>` on the connect URL. Without cursors it is sent the `limit` newest runs
 *   and every live run; with cursors, every run from the oldest one it names on (what it shows, and what started
 *   since), plus every live run. Then one `agent-tool-page` frame: whether older runs exist, and where they start.
 * - For the next page it sends, on the same socket, `{ type: "agent-tool-page-request", before, limit }` with the
 *   `before` of the last page frame; the parent replays that page (`replay: true` frames, as on connect) and sends
 *   the next page frame.
 * - A client that does not send the parameter gets every retained run, as before, and no page frame.
 * - A parent bounds what page requests cost it: a socket that asks too often is answered with a page frame that
 *   replays nothing and says when to ask again (`retryAfterMs`), and one page of older runs ends once it has sent
 *   about as many bytes as the parent allows (at least one run a page).
 */

/** The connect URL's query parameter asking for paged replay; its value is the first page's size. */
export const AGENT_TOOL_PAGE_PARAM = "agentToolPage";

/** The frame that ends a page of replay. */
export const AGENT_TOOL_PAGE_TYPE = "agent-tool-page";

/** The message a client sends on the event socket for the next page of older runs. */
export const AGENT_TOOL_PAGE_REQUEST_TYPE = "agent-tool-page-request";

/** The largest page a parent sends at once (a larger `limit` is cut to it). */
export const MAX_AGENT_TOOL_PAGE = 500;

/** Sent after a page of replayed runs. */
export type AgentToolPageFrame = {
  type: typeof AGENT_TOOL_PAGE_TYPE;
  /** Runs replayed in this page (with frames or not: a run the client holds whole sends none). */
  runs: number;
  /** True when older runs than this page's are retained. */
  hasOlder: boolean;
  /** Where the older runs start: the `before` of the next page request (present when `hasOlder`). */
  before?: string;
  /**
   * Present when the parent refused the page request this answers (too many on this socket): nothing was replayed
   * (`runs: 0`, `before` as asked); ask again after this many milliseconds.
   */
  retryAfterMs?: number;
};

/** Sent by a client for the page of runs older than `before`. */
export type AgentToolPageRequest = {
  type: typeof AGENT_TOOL_PAGE_REQUEST_TYPE;
  before: string;
  /** At most this many runs (capped at `MAX_AGENT_TOOL_PAGE`). */
  limit: number;
};

/** A run's place in the parent's order (its start, then its id): what a page boundary names. */
export type AgentToolRunPosition = { startedAt: number; runId: string };

/** A position as the opaque text a page frame carries (`<startedAt>:<runId>`). */
export function encodeAgentToolPosition(position: AgentToolRunPosition): string {
  return `${position.startedAt}:${position.runId}`;
}

/** The position a page frame's `before` names, or `null` when it is not one. */
export function parseAgentToolPosition(value: unknown): AgentToolRunPosition | null {
  if (typeof value !== "string") return null;
  const colon = value.indexOf(":");
  if (colon <= 0) return null;
  const startedAt = Number(value.slice(0, colon));
  const runId = value.slice(colon + 1);
  return Number.isSafeInteger(startedAt) && runId.length > 0 ? { startedAt, runId } : null;
}

/** A page size as a client asked for it (a URL value or a request's `limit`), capped; `null` when it is none. */
export function parseAgentToolPageLimit(value: unknown): number | null {
  const limit = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit <= 0) return null;
  return Math.min(limit, MAX_AGENT_TOOL_PAGE);
}

/** A page request from a client's message, or `null` when the message is not a valid one (never throws). */
export function parseAgentToolPageRequest(
  message: unknown,
): (AgentToolPageRequest & { position: AgentToolRunPosition }) | null {
  const value = objectOf(message);
  if (value === null) return null;
  const request = value as Partial<AgentToolPageRequest>;
  if (request.type !== AGENT_TOOL_PAGE_REQUEST_TYPE) return null;
  const position = parseAgentToolPosition(request.before);
  const limit = parseAgentToolPageLimit(request.limit);
  if (position === null || limit === null || typeof request.before !== "string") return null;
  return { type: AGENT_TOOL_PAGE_REQUEST_TYPE, before: request.before, limit, position };
}

/** A page frame from a socket message, or `null` when the message is not one (never throws). */
export function parseAgentToolPageFrame(message: unknown): AgentToolPageFrame | null {
  if (typeof message === "string" && !message.includes(AGENT_TOOL_PAGE_TYPE)) return null;
  const value = objectOf(message);
  if (value === null) return null;
  const frame = value as Partial<AgentToolPageFrame>;
  if (frame.type !== AGENT_TOOL_PAGE_TYPE || typeof frame.hasOlder !== "boolean") return null;
  const runs = typeof frame.runs === "number" && Number.isSafeInteger(frame.runs) && frame.runs >= 0 ? frame.runs : 0;
  const before = frame.hasOlder && parseAgentToolPosition(frame.before) !== null ? frame.before : undefined;
  if (frame.hasOlder && before === undefined) return null;
  const { retryAfterMs } = frame;
  const isRefusal = typeof retryAfterMs === "number" && Number.isFinite(retryAfterMs) && retryAfterMs >= 0;
  return {
    type: AGENT_TOOL_PAGE_TYPE,
    runs,
    hasOlder: frame.hasOlder,
    ...(before !== undefined ? { before } : {}),
    ...(isRefusal ? { retryAfterMs } : {}),
  };
}

/** A message as an object: parsed when it is JSON text; `null` when it is not an object. */
function objectOf(message: unknown): object | null {
  let value = message;
  if (typeof message === "string") {
    try {
      value = JSON.parse(message);
    } catch {
      return null;
    }
  }
  return typeof value === "object" && value !== null ? value : null;
}
