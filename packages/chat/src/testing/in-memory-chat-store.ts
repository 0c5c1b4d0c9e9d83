import type { UIMessage, UIMessageChunk } from "ai";
import type { ChatStore, StoredChatTurn } from "../ports/chat-store.js";

/** What an `InMemoryChatStore` counts, for tests that check how much a turn writes. */
export type InMemoryChatStoreStats = { chunkWrites: number; messageWrites: number };

/**
 * A `ChatStore` in memory: every value is kept as JSON text (so what comes back is a copy, as from a database, and a
 * value JSON cannot hold fails as it would there). Set `failNext(method)` to make the next call of a method reject,
 * for tests of what the engine does when storage fails. Passes `chatStoreContractCases`.
 */
export class InMemoryChatStore implements ChatStore {
  readonly stats: InMemoryChatStoreStats = { chunkWrites: 0, messageWrites: 0 };
  #messages: Array<{ id: string; json: string }> = [];
  readonly #turns = new Map<string, string>();
  readonly #logs = new Map<string, Map<number, string>>();
  readonly #failures = new Map<keyof ChatStore, { error: Error; times: number }>();

  /** Make the next `times` calls of `method` (default 1) reject with `error`, writing nothing. */
  failNext(method: keyof ChatStore, error: Error = new Error(`${method} failed`), times = 1): void {
    this.#failures.set(method, { error, times });
  }

  async messages(): Promise<UIMessage[]> {
    this.#maybeFail("messages");
    return this.#messages.map((row) => JSON.parse(row.json) as UIMessage);
  }

  async hasMessage(id: string): Promise<boolean> {
    this.#maybeFail("hasMessage");
    return this.#messages.some((row) => row.id === id);
  }

  async upsertMessage(message: UIMessage): Promise<boolean> {
    this.#maybeFail("upsertMessage");
    return this.#upsert(message);
  }

  async truncateFrom(fromId: string): Promise<void> {
    this.#maybeFail("truncateFrom");
    const index = this.#messages.findIndex((row) => row.id === fromId);
    if (index !== -1) this.#messages = this.#messages.slice(0, index);
  }

  async turns(): Promise<StoredChatTurn[]> {
    this.#maybeFail("turns");
    return [...this.#turns.values()]
      .map((json) => JSON.parse(json) as StoredChatTurn)
      .sort((left, right) => left.startedAt - right.startedAt);
  }

  async beginTurn(turn: StoredChatTurn, userMessage?: UIMessage): Promise<void> {
    this.#maybeFail("beginTurn");
    const turnJson = JSON.stringify(turn);
    if (userMessage) this.#upsert(userMessage);
    this.#turns.set(turn.turnId, turnJson);
  }

  async updateTurn(turn: StoredChatTurn): Promise<void> {
    this.#maybeFail("updateTurn");
    this.#turns.set(turn.turnId, JSON.stringify(turn));
  }

  async appendTurnChunks(turnId: string, firstIndex: number, chunks: readonly UIMessageChunk[]): Promise<void> {
    this.#maybeFail("appendTurnChunks");
    if (chunks.length === 0) return;
    const json = JSON.stringify(chunks);
    const log = this.#logs.get(turnId) ?? new Map<number, string>();
    log.set(firstIndex, json);
    this.#logs.set(turnId, log);
    this.stats.chunkWrites += 1;
  }

  async turnChunks(turnId: string): Promise<UIMessageChunk[]> {
    this.#maybeFail("turnChunks");
    const log = this.#logs.get(turnId);
    if (!log) return [];
    return [...log.entries()]
      .sort(([left], [right]) => left - right)
      .flatMap(([, json]) => JSON.parse(json) as UIMessageChunk[]);
  }

  async rewriteTurnChunks(turnId: string, chunks: readonly UIMessageChunk[]): Promise<void> {
    this.#maybeFail("rewriteTurnChunks");
    const json = JSON.stringify(chunks);
    this.#logs.set(turnId, chunks.length === 0 ? new Map() : new Map([[0, json]]));
  }

  async finishTurn(turnId: string, answer: UIMessage | null): Promise<void> {
    this.#maybeFail("finishTurn");
    if (answer) this.#upsert(answer);
    this.#logs.delete(turnId);
    this.#turns.delete(turnId);
  }

  #upsert(message: UIMessage): boolean {
    const json = JSON.stringify(message);
    this.stats.messageWrites += 1;
    const index = this.#messages.findIndex((row) => row.id === message.id);
    if (index === -1) {
      this.#messages.push({ id: message.id, json });
      return true;
    }
    this.#messages[index] = { id: message.id, json };
    return false;
  }

  #maybeFail(method: keyof ChatStore): void {
    const failure = this.#failures.get(method);
    if (!failure) return;
    if (failure.times <= 1) this.#failures.delete(method);
    else failure.times -= 1;
    throw failure.error;
  }
}
