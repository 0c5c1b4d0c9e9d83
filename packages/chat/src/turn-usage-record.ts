import type { AgentToolUsage } from "@agent-tools/core-runs";
import type { ChatStore, StoredChatTurn } from "./ports/chat-store.js";

/**
 * A turn's own usage (its model calls, the runs it dispatched itself), kept on its stored turn as it changes, so that
 * a turn resumed after a restart goes on counting from it. Writes go one after another, in order, and only when the
 * figure changed; `close()` waits for the last one and takes no more, because the turn's end deletes its row and no
 * late write may bring the row back.
 * @internal
 */
export class TurnUsageRecord {
  readonly #store: ChatStore;
  readonly #turn: StoredChatTurn;
  readonly #onError: (error: unknown) => void;
  #written: string;
  #writes: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: { store: ChatStore; turn: StoredChatTurn; onError: (error: unknown) => void }) {
    this.#store = options.store;
    this.#turn = options.turn;
    this.#onError = options.onError;
    this.#written = JSON.stringify(options.turn.usage ?? null);
  }

  /** The turn's own usage now: stored after the writes before it, unless it is what was stored last. */
  record(own: AgentToolUsage): void {
    if (this.#closed) return;
    const figure = JSON.stringify(own);
    if (figure === this.#written) return;
    this.#written = figure;
    const turn: StoredChatTurn = { ...this.#turn, usage: own };
    this.#writes = this.#writes.then(() => this.#store.updateTurn(turn)).catch(this.#onError);
  }

  /** Take no more figures; resolves once the last write is done (or failed). */
  close(): Promise<void> {
    this.#closed = true;
    return this.#writes;
  }
}
