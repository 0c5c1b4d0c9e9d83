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

/** The parent's own address over http(s): the event socket's path, without its query, fragment or last slash. */
function parentHttpUrl(eventsUrl: string): string {
  const end = eventsUrl.search(/[?#]/);
  const path = end === -1 ? eventsUrl : eventsUrl.slice(0, end);
  const http = path.replace(/^ws(s?):/i, (_match, secure: string) => `http${secure}:`);
  return http.endsWith("/") ? http.slice(0, -1) : http;
}
