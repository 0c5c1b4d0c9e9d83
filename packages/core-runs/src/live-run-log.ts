import type { UIMessageChunk } from "ai";
import type { Clock } from "./ports/clock.js";
import type { RunStore } from "./ports/run-store.js";
import type { AgentToolLogEntry, AgentToolTailItem } from "./protocol/index.js";

/** Receives a live run's tail items in order: entries once they are written, ephemeral items in their place. */
export type TailListener = (item: AgentToolTailItem) => void;

/** An ephemeral tail item (progress): it never enters the log. */
export type EphemeralTailItem = AgentToolTailItem & { type: "progress" };

/**
 * The log of a run whose turn is executing here: it numbers each durable chunk with the next sequence, writes the
 * entries in group commits (one `appendLog` per batch, never two at once), and hands every item to the live tails
 * only once it is written, ephemeral items keeping their place after the entries before them.
 *
 * A store failure is kept in `storeError`; the entries not yet written are dropped and `onStoreError` is called
 * (the runner aborts the turn). `hold()` keeps new entries back until `release()` (a turn mid-burst); a write in
 * flight still takes what came meanwhile.
 * @internal
 */
export class LiveRunLog {
  readonly #store: RunStore;
  readonly #clock: Clock;
  readonly #runId: string;
  readonly #onStoreError: (error: unknown) => void;
  readonly #listeners = new Set<TailListener>();
  /**
   * Entries and ephemeral items not yet delivered, in order: entries wait for their write, the rest for them.
   * Consecutive entries share one `entries` item (appended to until the next flush takes it).
   */
  readonly #pending: AgentToolTailItem[] = [];
  #flushing: Promise<void> | null = null;
  #isFlushing = false;
  #isHeld = false;
  #lastSequence: number;
  #storeError: unknown;

  constructor(options: {
    store: RunStore;
    clock: Clock;
    runId: string;
    lastSequence: number;
    onStoreError: (error: unknown) => void;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#runId = options.runId;
    this.#lastSequence = options.lastSequence;
    this.#onStoreError = options.onStoreError;
  }

  /** The highest sequence given out (written or not). */
  get lastSequence(): number {
    return this.#lastSequence;
  }

  /** The store's error, once a write failed (`undefined` until then). */
  get storeError(): unknown {
    return this.#storeError;
  }

  /** How many log entries wait to be written. */
  get pendingEntries(): number {
    let count = 0;
    for (const item of this.#pending) if (item.type === "entries") count += item.entries.length;
    return count;
  }

  /** Listen to the items delivered from now on; returns the function that stops listening. */
  subscribe(listener: TailListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Give `body` the next sequence and queue it for the next write. */
  append(body: UIMessageChunk): AgentToolLogEntry {
    this.#lastSequence += 1;
    const entry: AgentToolLogEntry = { sequence: this.#lastSequence, body, at: this.#clock.now() };
    const last = this.#pending.at(-1);
    if (last?.type === "entries") last.entries.push(entry);
    else this.#pending.push({ type: "entries", entries: [entry] });
    // Group commit: everything appended while a write is in flight goes out in the next single append.
    if (!this.#isHeld) this.#startFlush();
    return entry;
  }

  /** Deliver an ephemeral item now, or after the entries still being written (so it never overtakes them). */
  publish(item: EphemeralTailItem): void {
    if (this.#isFlushing || this.#pending.length > 0) {
      this.#pending.push(item);
      return;
    }
    this.#deliver(item);
  }

  /** Keep new entries back (the turn is mid-burst), or (`false`) stop keeping them back from the next one on. */
  hold(isHeld = true): void {
    this.#isHeld = isHeld;
  }

  /** Write what was kept back, and from now on write entries as they come. */
  release(): void {
    this.#isHeld = false;
    if (this.#pending.length > 0) this.#startFlush();
  }

  /** Resolves once nothing is being written. */
  async settled(): Promise<void> {
    while (this.#flushing !== null) await this.#flushing;
  }

  /** Deliver an item to every listener (the terminal one, when the run ends). */
  deliverFinal(item: AgentToolTailItem): void {
    for (const listener of [...this.#listeners]) listener(item);
  }

  #deliver(item: AgentToolTailItem): void {
    for (const listener of this.#listeners) listener(item);
  }

  #startFlush(): void {
    if (this.#flushing !== null) return;
    const flushing = this.#flush();
    // A flush with nothing to write ends before this line: only one still running is waited for.
    if (this.#isFlushing) this.#flushing = flushing;
  }

  async #flush(): Promise<void> {
    this.#isFlushing = true;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0);
        const entries = batch.flatMap((item) => (item.type === "entries" ? item.entries : []));
        if (entries.length > 0) await this.#store.appendLog(this.#runId, entries);
        for (const item of batch) this.#deliver(item);
      }
    } catch (error) {
      this.#storeError = error;
      this.#pending.length = 0;
      this.#onStoreError(error);
    } finally {
      this.#isFlushing = false;
      this.#flushing = null;
    }
  }
}
