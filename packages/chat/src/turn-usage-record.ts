import type { AgentToolUsage } from "@agent-tools/core-runs";
import { NO_USAGE } from "@agent-tools/core-runs/protocol";
import type { ChatStore, StoredChatTurn } from "./ports/chat-store.js";

/**
 * A turn's own usage (its model calls, the runs it dispatched itself), kept on its stored turn as it changes, so that
 * a turn resumed after a restart goes on counting from it. Writes go one after another, in order, and only when the
 * figure of its model calls changed; changes that come while a write waits its turn are one write of the latest figure.
 * A dispatch alone (`runs` + 1) is not written: a resumed turn counts the runs it dispatched from their rows
 * (`RunBudget.restore`, which goes on from the larger count), so a turn of 1 000 agent tool calls writes its row once
 * per model call, not once per call. `close()` waits for the last one and takes no more, because the turn's end
 * deletes its row and no late write may bring the row back.
 * @internal
 */
export class TurnUsageRecord {
  readonly #store: ChatStore;
  readonly #turn: StoredChatTurn;
  readonly #onError: (error: unknown) => void;
  #written: string;
  #writes: Promise<void> = Promise.resolve();
  /** The figure the next write takes, while a write is queued and not yet under way. */
  #next: StoredChatTurn | null = null;
  #closed = false;

  constructor(options: { store: ChatStore; turn: StoredChatTurn; onError: (error: unknown) => void }) {
    this.#store = options.store;
    this.#turn = options.turn;
    this.#onError = options.onError;
    this.#written = modelCallsOf(options.turn.usage);
  }

  /**
   * The turn's own usage now: stored after the writes before it, unless its model calls' figure is what was stored
   * last. True when that figure changed (what the turn's journal records too).
   */
  record(own: AgentToolUsage): boolean {
    const figure = modelCallsOf(own);
    if (figure === this.#written) return false;
    this.#written = figure;
    if (this.#closed) return true;
    const queued = this.#next !== null;
    this.#next = { ...this.#turn, usage: own };
    if (queued) return true;
    this.#writes = this.#writes
      .then(() => {
        const turn = this.#next as StoredChatTurn;
        this.#next = null;
        return this.#store.updateTurn(turn);
      })
      .catch(this.#onError);
    return true;
  }

  /** Take no more figures; resolves once the last write is done (or failed). */
  close(): Promise<void> {
    this.#closed = true;
    return this.#writes;
  }
}

/** What a turn's model calls spent (its own usage without the count of runs it dispatched), to compare. */
function modelCallsOf(usage: AgentToolUsage | undefined): string {
  return JSON.stringify({ ...(usage ?? NO_USAGE), runs: 0 });
}
