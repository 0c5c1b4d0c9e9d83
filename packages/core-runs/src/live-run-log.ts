import type { UIMessageChunk } from "ai";
import type { Clock, TimerHandle } from "./ports/clock.js";
import type { RunStore } from "./ports/run-store.js";
import type { AgentToolLogEntry, AgentToolTailItem } from "./protocol/index.js";

/** Receives a live run's tail items in order: entries once they are written, ephemeral items in their place. */
export type TailListener = (item: AgentToolTailItem) => void;

/** An ephemeral tail item (progress): it never enters the log. */
export type EphemeralTailItem = AgentToolTailItem & { type: "progress" };

/** Most entries a burst keeps back before they are written anyway: memory and latency stay bounded. */
export const MAX_BURST_ENTRIES = 256;

/**
 * The log of a run whose turn is executing here: it numbers each durable chunk with the next sequence, writes the
 * entries in group commits (one `appendLog` per batch, never two at once), and hands every item to the live tails
 * only once it is written, ephemeral items keeping their place after the entries before them.
 *
 * Entries are written per **burst**: what the turn appends without the event loop getting to its macrotasks (an AI
 * SDK stream passes each chunk through several microtasks; a model paced by the network yields between its reads).
 * - The first entry of a burst is written at once, so a burst's first chunk (a turn's first, or each of a paced
 *   stream's) reaches live tails with no delay added;
 * - the others wait for the burst's end — a timer of 0 ms on the injected `Clock`, which fires once the event loop
 *   turns — or until `MAX_BURST_ENTRIES` are waiting, and go out in one write (of at most that many entries);
 * - `finish()` (the turn ended) writes the rest now.
 *
 * A store failure is kept in `storeError`; the entries not yet written are dropped and `onStoreError` is called
 * (the runner aborts the turn).
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
  #pendingEntries = 0;
  #flushing: Promise<void> | null = null;
  #isFlushing = false;
  /** Armed while a burst is under way: it fires at the burst's end. */
  #burstEnd: TimerHandle | null = null;
  /** A burst's first entry waits to be written at once. */
  #isLeadDue = false;
  #isFinished = false;
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

  /** Listen to the items delivered from now on; returns the function that stops listening. */
  subscribe(listener: TailListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Give `body` the next sequence and queue it for its burst's write. */
  append(body: UIMessageChunk): AgentToolLogEntry {
    this.#lastSequence += 1;
    const entry: AgentToolLogEntry = { sequence: this.#lastSequence, body, at: this.#clock.now() };
    const last = this.#pending.at(-1);
    if (last?.type === "entries") last.entries.push(entry);
    else this.#pending.push({ type: "entries", entries: [entry] });
    this.#pendingEntries += 1;
    if (this.#isFinished) {
      this.#startFlush();
    } else if (this.#burstEnd === null) {
      // A burst begins: its first entry is written now (or right after a write in flight); the rest wait for the
      // event loop to turn.
      this.#burstEnd = this.#clock.setTimeout(() => {
        this.#burstEnd = null;
        this.#startFlush();
      }, 0);
      this.#isLeadDue = true;
      this.#startFlush();
    } else if (this.#pendingEntries >= MAX_BURST_ENTRIES) {
      this.#startFlush();
    }
    return entry;
  }

  /** Deliver an ephemeral item now, or after the entries still waiting or being written (it never overtakes them). */
  publish(item: EphemeralTailItem): void {
    if (this.#isFlushing || this.#pending.length > 0) {
      this.#pending.push(item);
      return;
    }
    this.#deliver(item);
  }

  /** The turn has ended: write everything now, and from now on at once. */
  finish(): void {
    this.#isFinished = true;
    this.#endBurst();
    this.#startFlush();
  }

  /** Resolves once nothing is being written (after `finish()`: once everything is). */
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

  #endBurst(): void {
    if (this.#burstEnd !== null) this.#clock.clearTimeout(this.#burstEnd);
    this.#burstEnd = null;
  }

  /** Whether the entries waiting may be written now: the burst is over, or too many wait. */
  #mayWrite(): boolean {
    return this.#burstEnd === null || this.#pendingEntries >= MAX_BURST_ENTRIES;
  }

  /** Take the items waiting, up to `MAX_BURST_ENTRIES` entries (one append stays bounded too). */
  #takeBatch(): AgentToolTailItem[] {
    const batch: AgentToolTailItem[] = [];
    let room = MAX_BURST_ENTRIES;
    while (this.#pending[0] !== undefined && room > 0) {
      const item = this.#pending[0];
      if (item.type !== "entries") {
        batch.push(this.#pending.shift() as AgentToolTailItem);
      } else if (item.entries.length <= room) {
        batch.push(this.#pending.shift() as AgentToolTailItem);
        room -= item.entries.length;
      } else {
        batch.push({ type: "entries", entries: item.entries.splice(0, room) });
        room = 0;
      }
    }
    this.#pendingEntries -= MAX_BURST_ENTRIES - room;
    return batch;
  }

  #startFlush(): void {
    if (this.#flushing !== null || this.#pending.length === 0) return;
    const flushing = this.#flush();
    // A flush with nothing to write ends before this line: only one still running is waited for.
    if (this.#isFlushing) this.#flushing = flushing;
  }

  async #flush(): Promise<void> {
    this.#isFlushing = true;
    try {
      for (;;) {
        // Ephemeral items with no entry before them go out now.
        while (this.#pending[0] !== undefined && this.#pending[0].type !== "entries") {
          this.#deliver(this.#pending.shift() as AgentToolTailItem);
        }
        if (this.#pending.length === 0 || !(this.#isLeadDue || this.#mayWrite())) break;
        const batch = this.#takeBatch();
        this.#isLeadDue = false;
        const entries = batch.flatMap((item) => (item.type === "entries" ? item.entries : []));
        if (entries.length > 0) await this.#store.appendLog(this.#runId, entries);
        for (const item of batch) this.#deliver(item);
      }
    } catch (error) {
      this.#storeError = error;
      this.#pending.length = 0;
      this.#pendingEntries = 0;
      this.#endBurst();
      this.#onStoreError(error);
    } finally {
      this.#isFlushing = false;
      this.#flushing = null;
    }
  }
}
