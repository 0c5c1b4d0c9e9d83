import type { ChatHost } from "@agent-tools/core-runs";
import type { SyntheticChatMessage } from "@agent-tools/core-runs/internal";
import type { UIMessage } from "ai";
import type { ChatEngine } from "./chat-engine.js";

/**
 * The conversation's side of the `ChatHost` port (what `@agent-tools/detached` talks into the chat through):
 * synthetic messages are stored (idempotent by id) and told to every client, server turns are durable turns like any
 * other, and deliveries run between turns, never inside one.
 */
export class EngineChatHost<TPeer> implements ChatHost {
  readonly #engine: ChatEngine<TPeer>;

  constructor(engine: ChatEngine<TPeer>) {
    this.#engine = engine;
  }

  appendMessage(message: SyntheticChatMessage): Promise<boolean> {
    return this.#engine.appendMessage(toUIMessage(message));
  }

  runBetweenTurns(task: () => Promise<void>): Promise<void> {
    return this.#engine.runBetweenTurns(task);
  }

  startTurn(): Promise<void> {
    return this.#engine.startServerTurn();
  }

  messages(): Promise<UIMessage[]> {
    return this.#engine.messages();
  }
}

/** A synthetic message as the chat stores it: one text part, `metadata.source` (and `metadata.run`, when it has one). */
function toUIMessage(message: SyntheticChatMessage): UIMessage {
  return {
    id: message.id,
    role: message.role,
    metadata: { source: message.source, ...(message.run ? { run: message.run } : {}) },
    parts: [{ type: "text", text: message.text }],
  };
}
