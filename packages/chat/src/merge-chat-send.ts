import type { UIMessage } from "ai";

/** What a client's `send` asks for (the AI SDK `WebSocketChatTransport` request's fields that matter here). */
export type ChatSendRequest = {
  trigger: "submit-message" | "regenerate-message";
  /** Set when the client resubmits an earlier user message (an edit). */
  messageId: string | undefined;
  /** The conversation as the client knows it, its new message last. */
  messages: readonly UIMessage[];
};

/**
 * How a `send` meets the stored conversation. The server's conversation is the truth: a client's copy may be stale
 * (another tab added messages, a background run's completion was told to the chat), and nothing already stored may
 * be lost because of it.
 * - `append`: a new user message; the stored history is kept as it is, whatever the client held (also a regenerate
 *   from a client that holds everything stored plus a user message the server never got: its send was cut off);
 * - `duplicate`: the user message is stored already (a resend): no second turn;
 * - `replace`: an edit or a regenerate the client may make, since it knows everything it drops: keep `keep`, then
 *   (for an edit) add `userMessage`;
 * - `refuse`: the client would drop or rewrite messages it has not seen.
 */
export type ChatSendDecision =
  | { kind: "append"; userMessage: UIMessage }
  | { kind: "duplicate"; messageId: string }
  | { kind: "replace"; keep: UIMessage[]; userMessage: UIMessage | null }
  | { kind: "refuse"; error: string };

const STALE =
  "The conversation changed since this page loaded it (another tab or a background run); reload and try again";

/** Decide a `send` against the stored conversation, as a pure function. */
export function mergeChatSend(stored: readonly UIMessage[], request: ChatSendRequest): ChatSendDecision {
  const last = request.messages.at(-1);
  const storedIds = stored.map((message) => message.id);
  if (request.trigger === "regenerate-message") {
    const clientIds = request.messages.map((message) => message.id);
    // A retry of a message whose send was cut off before it was stored (the AI SDK retries by regenerating): the
    // client holds everything stored, then that message. It is the message's send.
    if (last?.role === "user" && !storedIds.includes(last.id) && sameIds(clientIds.slice(0, -1), storedIds)) {
      return { kind: "append", userMessage: last };
    }
    // The client dropped the answer(s) to regenerate: what it holds must be the stored conversation up to them.
    if (!isPrefix(clientIds, storedIds)) return { kind: "refuse", error: STALE };
    const dropped = stored.slice(clientIds.length);
    if (dropped.some((message) => message.role !== "assistant")) return { kind: "refuse", error: STALE };
    return { kind: "replace", keep: stored.slice(0, clientIds.length), userMessage: null };
  }
  if (last === undefined || last.role !== "user") {
    return { kind: "refuse", error: "A send must end with the user's message" };
  }
  if (request.messageId !== undefined) {
    // An edit drops what came after the edited message: allowed for the last user message (its answer goes), whose
    // history before it the client holds as stored; anything else could drop messages the client has not seen.
    const editedAt = storedIds.indexOf(request.messageId);
    if (editedAt === -1 || stored[editedAt]?.role !== "user") {
      return { kind: "refuse", error: `No user message "${request.messageId}" to edit` };
    }
    const clientIds = request.messages.slice(0, -1).map((message) => message.id);
    if (!sameIds(clientIds, storedIds.slice(0, editedAt))) return { kind: "refuse", error: STALE };
    if (stored.slice(editedAt + 1).some((message) => message.role === "user")) return { kind: "refuse", error: STALE };
    return { kind: "replace", keep: stored.slice(0, editedAt), userMessage: { ...last, id: request.messageId } };
  }
  if (storedIds.includes(last.id)) return { kind: "duplicate", messageId: last.id };
  return { kind: "append", userMessage: last };
}

function isPrefix(prefix: readonly string[], whole: readonly string[]): boolean {
  return prefix.length <= whole.length && prefix.every((id, index) => whole[index] === id);
}

function sameIds(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && isPrefix(left, right);
}
