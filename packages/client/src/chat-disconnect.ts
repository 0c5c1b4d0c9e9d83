/**
 * True for a chat error that only says the connection went away (the server restarted, the network dropped): the
 * AI SDK's own test for a disconnect (a `TypeError` naming the network or a failed fetch), which its chat keeps
 * resumable. Show such an error as "reconnecting", not as a failure: `createAgentChatSync` resumes the turn once the
 * parent is reachable again.
 */
export function isAgentChatDisconnect(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const message = error.message.toLowerCase();
  return message.includes("network") || message.includes("fetch") || message === "load failed";
}
