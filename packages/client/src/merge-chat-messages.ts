import type { UIMessage } from "ai";

/** True when two messages say the same (same id, role, parts and metadata). */
function isSameChatMessage(left: UIMessage, right: UIMessage): boolean {
  return left === right || (left.id === right.id && JSON.stringify(left) === JSON.stringify(right));
}

/** True when two conversations hold the same messages in the same order. */
export function isSameConversation(left: readonly UIMessage[], right: readonly UIMessage[]): boolean {
  return (
    left.length === right.length &&
    left.every((message, index) => isSameChatMessage(message, right[index] as UIMessage))
  );
}

/**
 * A conversation with `message` in it: in place of the message with its id, else added at the end. Returns the
 * same array when `message` is there already, unchanged.
 */
export function upsertChatMessage<TMessage extends UIMessage>(
  messages: readonly TMessage[],
  message: TMessage,
): readonly TMessage[] {
  const index = messages.findIndex((candidate) => candidate.id === message.id);
  if (index === -1) return [...messages, message];
  if (isSameChatMessage(messages[index] as TMessage, message)) return messages;
  return messages.map((candidate, at) => (at === index ? message : candidate));
}

/**
 * The stored conversation (the server's truth) with what only this client holds kept: with `keepUnsent` (a reply
 * streams in, or a send failed), the messages after the last one the server stored — the user message waiting for its
 * turn, the reply so far, a message whose send failed — go after the stored ones, in the client's order; so do the
 * messages `keep` names, wherever they are (the messages this tab sent that the server does not hold). Anything else
 * the server does not have is dropped (another tab's edit or regenerate rewrote the history).
 *
 * Returns `local` itself when the result holds the same messages.
 */
export function mergeStoredConversation<TMessage extends UIMessage>(
  stored: readonly TMessage[],
  local: readonly TMessage[],
  options: { keepUnsent: boolean; keep?: (messageId: string) => boolean },
): readonly TMessage[] {
  const storedIds = new Set(stored.map((message) => message.id));
  let lastStored = -1;
  for (const [index, message] of local.entries()) if (storedIds.has(message.id)) lastStored = index;
  const kept = local.filter(
    (message, index) =>
      !storedIds.has(message.id) && ((options.keepUnsent && index > lastStored) || options.keep?.(message.id) === true),
  );
  const merged = [...stored, ...kept];
  return isSameConversation(merged, local) ? local : merged;
}
