/**
 * Where a parent agent serves its stored conversation (`GET …/messages`), from its event socket's URL: the same
 * path under http(s), without the query (its cursors) or fragment.
 *
 * @example
 * agentChatMessagesUrl("wss://host/agents/assistant/default?agentToolCursors=…")
 * // "https://host/agents/assistant/default/messages"
 */
export function agentChatMessagesUrl(eventsUrl: string): string {
  return `${parentHttpUrl(eventsUrl)}/messages`;
}

/**
 * Where a parent agent stops its conversation's turn `turnId` for every tab (`POST …/chat/stop/<turnId>`), from its
 * event socket's URL.
 *
 * @example
 * agentChatStopUrl("wss://host/agents/assistant/default", "t1")
 * // "https://host/agents/assistant/default/chat/stop/t1"
 */
export function agentChatStopUrl(eventsUrl: string, turnId: string): string {
  return `${parentHttpUrl(eventsUrl)}/chat/stop/${encodeURIComponent(turnId)}`;
}

/**
 * Where a parent agent cancels run `runId` (`POST …/cancel/<runId>`, with an optional JSON body `{ "reason": "…" }`:
 * the text the run's failure carries, for the model and every client), from its event socket's URL.
 *
 * @example
 * await fetch(agentToolCancelUrl(eventsUrl, runId), { method: "POST", body: JSON.stringify({ reason: "Stopped by Ana" }) });
 * // → { cancelled: true } (false for a run already ended); 400 for a bad body
 */
export function agentToolCancelUrl(eventsUrl: string, runId: string): string {
  return `${parentHttpUrl(eventsUrl)}/cancel/${encodeURIComponent(runId)}`;
}

/** The parent's own address over http(s): the event socket's path, without its query, fragment or last slash. */
function parentHttpUrl(eventsUrl: string): string {
  const end = eventsUrl.search(/[?#]/);
  const path = end === -1 ? eventsUrl : eventsUrl.slice(0, end);
  const http = path.replace(/^ws(s?):/i, (_match, secure: string) => `http${secure}:`);
  return http.endsWith("/") ? http.slice(0, -1) : http;
}
