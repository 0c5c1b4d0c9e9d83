import type { ChatHost, SyntheticChatMessage } from "@agent-tools/core-runs";
import type { UIMessage } from "ai";

/** `metadata.source` of the Assistant's answers in turns the server starts (not a client). */
export const SERVER_TURN_SOURCE = "assistant:server-turn";

export type AssistantChatHostOptions = {
  /** The stored conversation. */
  load(): UIMessage[];
  save(messages: UIMessage[]): void;
  /** Run one model turn over `messages` (streaming it to connected clients); resolves with the conversation after. */
  runTurn(messages: UIMessage[]): Promise<UIMessage[]>;
  /**
   * Test knob: after appending a message with this `source`, never settle, as if the process stopped in the middle
   * of that delivery (after the message, before the model's answer).
   */
  holdAfterAppending?: string;
};

/**
 * The Assistant's side of the `ChatHost` port: how detached runs talk into its chat.
 *
 * Client turns (through `exclusive`), turns the server starts and between-turn tasks run one at a time, in call
 * order: `runBetweenTurns` waits for a chat turn in flight and holds the next one until its task is done, so a
 * delivery never lands inside a turn. `appendMessage` is idempotent by id. `startTurn` called from inside a task
 * runs at once (the task holds the turn); called from outside, it queues like any turn.
 */
export class AssistantChatHost implements ChatHost {
  readonly #options: AssistantChatHostOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #taskDepth = 0;

  constructor(options: AssistantChatHostOptions) {
    this.#options = options;
  }

  /** Run `work` (a chat turn) once every turn and task queued before it has ended; later ones wait for it. */
  exclusive<TResult>(work: () => Promise<TResult>): Promise<TResult> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async appendMessage(message: SyntheticChatMessage): Promise<boolean> {
    const messages = this.#options.load();
    if (messages.some((existing) => existing.id === message.id)) return false;
    this.#options.save([...messages, toUIMessage(message)]);
    if (message.source === this.#options.holdAfterAppending) await new Promise<never>(() => {});
    return true;
  }

  runBetweenTurns(task: () => Promise<void>): Promise<void> {
    return this.exclusive(async () => {
      this.#taskDepth += 1;
      try {
        await task();
      } finally {
        this.#taskDepth -= 1;
      }
    });
  }

  startTurn(): Promise<void> {
    const turn = async () => {
      this.#options.save(await this.#options.runTurn(this.#options.load()));
    };
    return this.#taskDepth > 0 ? turn() : this.exclusive(turn);
  }

  async messages(): Promise<UIMessage[]> {
    return this.#options.load();
  }
}

/** A synthetic message as the chat stores it: one text part, `metadata.source`. */
export function toUIMessage(message: SyntheticChatMessage): UIMessage {
  return {
    id: message.id,
    role: message.role,
    metadata: { source: message.source },
    parts: [{ type: "text", text: message.text }],
  };
}

/** True for messages the server put into the chat (synthetic messages, answers in server turns). */
export function isServerMessage(message: UIMessage): boolean {
  const metadata = message.metadata as { source?: unknown } | undefined;
  return typeof metadata?.source === "string";
}

/**
 * A client's request carries the conversation as the client knows it, which lacks what the server added while it
 * was not looking (completions, milestones, the model's reactions). Keep those: they go before the request's new
 * last message, in stored order.
 */
export function withServerMessages(requested: UIMessage[], stored: UIMessage[]): UIMessage[] {
  const ids = new Set(requested.map((message) => message.id));
  const missing = stored.filter((message) => !ids.has(message.id) && isServerMessage(message));
  if (missing.length === 0) return requested;
  const last = requested.at(-1);
  const lastIsNew = last !== undefined && !stored.some((message) => message.id === last.id);
  return lastIsNew ? [...requested.slice(0, -1), ...missing, last] : [...requested, ...missing];
}
