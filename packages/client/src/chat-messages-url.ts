/**
 * Where a parent agent serves its stored conversation (`GET …/messages`), from its event socket's URL: the same
 * path under http(s), without the query (its cursors) or fragment.
 *
 * @example
 * agentChatMessagesUrl("wss://host/agents/assistant/default?agentToolCursors=…")
 * // "https://host/agents/assistant/default/messages"
 */
export function agentChatMessagesUrl(eventsUrl: string): string {
  const end = eventsUrl.search(/[?#]/);
  const path = end === -1 ? eventsUrl : eventsUrl.slice(0, end);
  const http = path.replace(/^ws(s?):/i, (_match, secure: string) => `http${secure}:`);
  return `${http.endsWith("/") ? http.slice(0, -1) : http}/messages`;
}
