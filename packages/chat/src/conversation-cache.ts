import type { UIMessage } from "ai";
import type { ChatStore } from "./ports/chat-store.js";

/**
 * The stored conversation as the engine holds it: read from the store once (the first time a turn or a caller needs
 * it), then kept in step with every write the engine makes, so a turn costs the same on a conversation of 1 000
 * messages as on an empty one (reading and parsing the whole conversation per turn grew with its length; see
 * bench/README.md). The engine is its store's only writer, so what it wrote is what is stored; after a write that
 * failed, it reads the store again rather than guess. Messages are kept frozen (copies of what callers gave): a turn's
 * model or a caller cannot change the conversation held by changing what it was given.
 * @internal
 */
export class ConversationCache {
  readonly #store: ChatStore;
  #messages: UIMessage[] | null = null;
  #loading: Promise<UIMessage[]> | null = null;

  constructor(store: ChatStore) {
    this.#store = store;
  }

  /** The conversation, oldest first (read once; the array is the cache's own: copy it before handing it out). */
  load(): Promise<readonly UIMessage[]> {
    if (this.#messages) return Promise.resolve(this.#messages);
    if (this.#loading) return this.#loading;
    const loading: Promise<UIMessage[]> = this.#store.messages().then(
      (messages) => {
        const frozen = messages.map(deepFreeze);
        // A write that failed while this read was on its way made it stale: only the latest read is kept.
        if (this.#loading === loading) {
          this.#messages = frozen;
          this.#loading = null;
        }
        return frozen;
      },
      (error: unknown) => {
        if (this.#loading === loading) this.#loading = null;
        throw error;
      },
    );
    this.#loading = loading;
    return loading;
  }

  /** `message` was stored: a new id goes last, a known id is replaced where it is (the store's rule). */
  stored(message: UIMessage): void {
    const messages = this.#messages;
    if (!messages) return;
    const kept = deepFreeze(structuredClone(message));
    const index = messages.findIndex((held) => held.id === message.id);
    if (index === -1) messages.push(kept);
    else messages[index] = kept;
  }

  /** The conversation was cut before the message `fromId` (it and everything after it are gone). */
  truncatedFrom(fromId: string): void {
    const messages = this.#messages;
    if (!messages) return;
    const index = messages.findIndex((held) => held.id === fromId);
    if (index !== -1) messages.length = index;
  }

  /** A write failed: what is stored is read again next time. */
  forget(): void {
    this.#messages = null;
    this.#loading = null;
  }
}

function deepFreeze<TValue>(value: TValue): TValue {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
