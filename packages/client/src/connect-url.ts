import {
  AGENT_TOOL_BATCH_PARAM,
  AGENT_TOOL_BATCH_VERSION,
  AGENT_TOOL_CURSORS_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  type AgentToolCursors,
  encodeAgentToolCursors,
} from "@agent-tools/core-runs/protocol";

/** `url` split into what comes before its query, the query (without `?`) and the fragment (with `#`). */
function splitUrl(url: string): { path: string; query: string; fragment: string } {
  const hashAt = url.indexOf("#");
  const fragment = hashAt >= 0 ? url.slice(hashAt) : "";
  const beforeHash = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const queryAt = beforeHash.indexOf("?");
  return queryAt >= 0
    ? { path: beforeHash.slice(0, queryAt), query: beforeHash.slice(queryAt + 1), fragment }
    : { path: beforeHash, query: "", fragment };
}

/**
 * The parent's connect URL carrying `cursors` (SPEC §6): the server then replays only what is newer. With no
 * cursors the parameter is left out (a full replay). Any cursors parameter already on `url` is replaced; the rest of
 * the URL is kept as written, so relative URLs work too.
 */
export function withAgentToolCursors(url: string, cursors: AgentToolCursors): string {
  return withParam(
    url,
    AGENT_TOOL_CURSORS_PARAM,
    Object.keys(cursors).length > 0 ? encodeURIComponent(encodeAgentToolCursors(cursors)) : null,
  );
}

/**
 * The parent's connect URL asking for paged replay (SPEC §6): the newest `limit` runs (and every live one) rather
 * than every retained run; `null` leaves the parameter out. Any page parameter already on `url` is replaced.
 */
export function withAgentToolPage(url: string, limit: number | null): string {
  return withParam(url, AGENT_TOOL_PAGE_PARAM, limit === null ? null : String(limit));
}

/**
 * The parent's connect URL asking for batches (SPEC §6): the frames of one burst come as one JSON array message. A
 * server that does not know the parameter ignores it and sends one frame per message; the client reads both.
 */
export function withAgentToolBatches(url: string): string {
  return withParam(url, AGENT_TOOL_BATCH_PARAM, AGENT_TOOL_BATCH_VERSION);
}

/** `url` with the query parameter `name` set to `value` (already encoded), or removed when `value` is `null`. */
function withParam(url: string, name: string, value: string | null): string {
  const { path, query, fragment } = splitUrl(url);
  const kept = query === "" ? [] : query.split("&").filter((pair) => pair.split("=")[0] !== name);
  if (value !== null) kept.push(`${name}=${value}`);
  return `${path}${kept.length > 0 ? `?${kept.join("&")}` : ""}${fragment}`;
}

const HAS_SCHEME = /^[a-z][a-z\d+.-]*:/i;

/**
 * Where a run's drill-in socket is: `drillInUrl` (a run's `drillInUrl`, by default `sub/<agentType>/<runId>`)
 * resolved under the parent's URL — relative to the parent agent's route itself, not to its parent folder, and
 * without the parent's query (its cursors). An absolute `drillInUrl` is used as it is; a root-relative one keeps the
 * parent's origin. `drillInUrl`'s own query (e.g. a read token) is kept.
 *
 * @example
 * resolveDrillInUrl("wss://host/agents/assistant/default?agentToolCursors=…", "sub/Researcher/r1")
 * // "wss://host/agents/assistant/default/sub/Researcher/r1"
 */
export function resolveDrillInUrl(parentUrl: string, drillInUrl: string): string {
  if (HAS_SCHEME.test(drillInUrl)) return drillInUrl;
  const { path } = splitUrl(parentUrl);
  const base = path.endsWith("/") ? path : `${path}/`;
  if (HAS_SCHEME.test(base)) {
    try {
      return new URL(drillInUrl, base).href;
    } catch {
      // An opaque or malformed parent URL: fall back to joining the strings.
    }
  }
  return drillInUrl.startsWith("/") ? drillInUrl : `${base}${drillInUrl}`;
}
