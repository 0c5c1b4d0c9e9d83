import type { ChatHost, SyntheticChatMessage } from "@agent-tools/core-runs";
import type { UIMessage } from "ai";
import type { ChatTurns } from "./chat-turns.js";

/**
 * The parent's side of the `ChatHost` port (what `@agent-tools/detached` talks into the chat through): synthetic
 * messages are stored (idempotent by id) and told to every client, server turns are durable turns like any other,
 * and deliveries run between turns, never inside one.
 * @internal
 */
export class ParentChatHost implements ChatHost {
  readonly #turns: ChatTurns;

  constructor(turns: ChatTurns) {
    this.#turns = turns;
  }

  async appendMessage(message: SyntheticChatMessage): Promise<boolean> {
    return this.#turns.appendMessage(toUIMessage(message));
  }

  runBetweenTurns(task: () => Promise<void>): Promise<void> {
    return this.#turns.runBetweenTurns(task);
  }

  startTurn(): Promise<void> {
    return this.#turns.startServerTurn();
  }

  messages(): Promise<UIMessage[]> {
    return this.#turns.messages();
  }
}

/** A synthetic message as the chat stores it: one text part, `metadata.source`. */
function toUIMessage(message: SyntheticChatMessage): UIMessage {
  return {
    id: message.id,
    role: message.role,
    metadata: { source: message.source },
    parts: [{ type: "text", text: message.text }],
  };
}
