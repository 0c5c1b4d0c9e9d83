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

/**
 * Where a parent agent answers an approval (`POST …/approve/<runId>/<approvalId>`, with a JSON body
 * `{ "approved": boolean, "reason"?: string }`), from its event socket's URL. `runId` is the parent's run whose state
 * shows the approval (for a descendant's, the top-level run above it: the answer travels down the tree).
 *
 * @example
 * agentToolApproveUrl("wss://host/agents/assistant/default", "agent-tool:call-1", "approval-1")
 * // "https://host/agents/assistant/default/approve/agent-tool%3Acall-1/approval-1"
 */
export function agentToolApproveUrl(eventsUrl: string, runId: string, approvalId: string): string {
  return `${parentHttpUrl(eventsUrl)}/approve/${encodeURIComponent(runId)}/${encodeURIComponent(approvalId)}`;
}

/** The parent's own address over http(s): the event socket's path, without its query, fragment or last slash. */
function parentHttpUrl(eventsUrl: string): string {
  const end = eventsUrl.search(/[?#]/);
  const path = end === -1 ? eventsUrl : eventsUrl.slice(0, end);
  const http = path.replace(/^ws(s?):/i, (_match, secure: string) => `http${secure}:`);
  return http.endsWith("/") ? http.slice(0, -1) : http;
}
