import type { RunStore } from "../ports/run-store.js";

/**
 * The runs holding a concurrency slot (`starting`/`running`): loaded from the store once, then kept in step by the
 * registry, the only writer of its rows' statuses. Taking a slot is synchronous once loaded, so the count and the
 * reservation of one admission never interleave with another's.
 */
export class ConcurrencySlots {
  readonly #store: RunStore;
  #slots: Set<string> | null = null;
  #loading: Promise<Set<string>> | null = null;

  constructor(store: RunStore) {
    this.#store = store;
  }

  /** The slot table, loaded on first use. */
  load(): Promise<Set<string>> {
    if (this.#slots) return Promise.resolve(this.#slots);
    this.#loading ??= this.#store.listRuns({ status: ["starting", "running"] }).then((records) => {
      this.#slots = new Set(records.map((record) => record.runId));
      return this.#slots;
    });
    return this.#loading;
  }

  /** Hold a slot for a live run this registry follows (idempotent). */
  async hold(runId: string): Promise<void> {
    (await this.load()).add(runId);
  }

  /** Free a run's slot (it ended, or was cleared); a no-op before the table is loaded. */
  release(runId: string): void {
    this.#slots?.delete(runId);
  }
}
