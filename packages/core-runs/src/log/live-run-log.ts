import type { UIMessageChunk } from "ai";
import type { Clock, TimerHandle } from "../ports/clock.js";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolLogEntry, AgentToolTailItem } from "../protocol/index.js";
import { ridesAlong, waitsForNext } from "../turn/journal-facts.js";

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
 * - The first entry of a burst is written at once while a tail reads the run's items, so a burst's first chunk (a
 *   turn's first, or each of a paced stream's) reaches live tails with no delay added. While none does (nobody
 *   follows the run, or only a tail that holds what it gets until it is opened: `startTail`'s, until it answers),
 *   nobody could read that entry sooner: it waits with the rest of its burst, and is written at once when a reader
 *   comes (a tail subscribing, a held one opened) or before the turn's own yield (`yielding()`) — so a short instant
 *   turn writes its log once, not its first entry and then the rest;
 * - the others wait for the burst's end — a timer of 0 ms on the injected `Clock`, which fires once the event loop
 *   turns — or until `MAX_BURST_ENTRIES` are waiting, and go out in one write (of at most that many entries);
 * - a turn that lets the event loop turn itself and reads on (`yielding()`, `yielded()`: an instant stream,
 *   followed) goes on with its burst: what waited behind its first entry waits over the yield, what it appends next
 *   waits with the rest, and no entry is written alone;
 * - `finish()` (the turn ended) writes the rest now.
 *
 * A step's `finish-step` (`waitsForNext`) is never written ahead of its burst: it goes with the next entry (a usage
 * update aside) — the stream's `finish` after a turn's last step, which comes in the same burst — or at the burst's
 * end (`writeNow`, `durable` and `finish` write it too). Entries appended together (`appendAll`) are never split
 * between two writes either.
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
  /** Listeners that hold what they get, unread, until they are opened (`subscribeHeld`). */
  #heldListeners = 0;
  /**
   * Entries and ephemeral items not yet delivered, in order: entries wait for their write, the rest for them.
   * Consecutive entries share one `entries` item (appended to until the next flush takes it).
   */
  readonly #pending: AgentToolTailItem[] = [];
  #pendingEntries = 0;
  /** Ephemeral items in `#pending` (waiting for the entries before them). */
  #waitingEphemeral = 0;
  #flushing: Promise<void> | null = null;
  #isFlushing = false;
  /** Armed while a burst is under way: it fires at the burst's end. */
  #burstEnd: TimerHandle | null = null;
  /** A burst's first entry waits to be written at once. */
  #isLeadDue = false;
  /** A burst's first entry waits unwritten because nobody read the run's items as it began (see `#hasReader`). */
  #isLeadDeferred = false;
  /** Set by `yielded()`: the next burst goes on from the turn's last one (no first entry written alone). */
  #isGoingOn = false;
  #isFinished = false;
  /** Set by `writeNow`: what waits is written without waiting for the burst's end, until nothing waits. */
  #isForced = false;
  #lastSequence: number;
  #storeError: unknown;
  /** The sequence of a `finish-step` waiting for the next entry or its burst's end: it and what follows wait too. */
  #held: number | null = null;
  /** Sequences written in the same write as the next one (entries appended together, a `finish-step` and its next). */
  readonly #joined = new Set<number>();

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

  /** True while a tail listens to the run's items. */
  get isFollowed(): boolean {
    return this.#listeners.size > 0;
  }

  /**
   * Listen to the items delivered from now on, reading them as they come (a burst's first entry waiting is written
   * now); returns the function that stops listening.
   */
  subscribe(listener: TailListener): () => void {
    this.#listeners.add(listener);
    this.#readerCame();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Listen to the items delivered from now on, for a tail that holds them unread until `open()` (`startTail`'s, until
   * it answers): until then it does not make a burst's first entry be written at once.
   */
  subscribeHeld(listener: TailListener): { open(): void; unsubscribe(): void } {
    this.#listeners.add(listener);
    this.#heldListeners += 1;
    let isHeld = true;
    const release = () => {
      if (!isHeld) return false;
      isHeld = false;
      this.#heldListeners -= 1;
      return true;
    };
    return {
      open: () => {
        if (release()) this.#readerCame();
      },
      unsubscribe: () => {
        release();
        this.#listeners.delete(listener);
      },
    };
  }

  /** True while a tail reads the run's items as they come (one held unread until opened does not count). */
  get #hasReader(): boolean {
    return this.#listeners.size > this.#heldListeners;
  }

  /** A tail reads the run's items from now on: a burst's first entry that waited for a reader is written now. */
  #readerCame(): void {
    if (this.#isLeadDeferred) this.#writeLead();
  }

  /** Write a burst's first entry now (with what waits behind it), or right after a write in flight. */
  #writeLead(): void {
    this.#isLeadDeferred = false;
    this.#isLeadDue = true;
    this.#startFlush();
  }

  /** Give `body` the next sequence and queue it for its burst's write. */
  append(body: UIMessageChunk): AgentToolLogEntry {
    const entry = this.#enqueue(body);
    this.#queued(entry.sequence, body, ridesAlong(body));
    return entry;
  }

  /** Give each of `bodies` the next sequence and queue them together: they go in the same write. */
  appendAll(bodies: readonly UIMessageChunk[]): AgentToolLogEntry[] {
    const entries = bodies.map((body) => this.#enqueue(body));
    const first = entries[0];
    if (first === undefined) return entries;
    for (const entry of entries.slice(0, -1)) this.#joined.add(entry.sequence);
    this.#queued(first.sequence, bodies.at(-1) as UIMessageChunk, bodies.every(ridesAlong));
    return entries;
  }

  /** Give `body` the next sequence and add it to the entries waiting (one call per chunk of a streaming turn). */
  #enqueue(body: UIMessageChunk): AgentToolLogEntry {
    this.#lastSequence += 1;
    const entry: AgentToolLogEntry = { sequence: this.#lastSequence, body, at: this.#clock.now() };
    const last = this.#pending[this.#pending.length - 1];
    if (last?.type === "entries") last.entries.push(entry);
    else this.#pending.push({ type: "entries", entries: [entry] });
    this.#pendingEntries += 1;
    return entry;
  }

  /**
   * Entries from `firstSequence` on, the last of them `lastBody`, were queued (`isRidingAlong`: every one of them
   * rides along with a waiting `finish-step`): a waiting `finish-step` released, a write started or a burst begun.
   */
  #queued(firstSequence: number, lastBody: UIMessageChunk, isRidingAlong: boolean): void {
    const held = this.#held;
    const isReleased = held !== null && !isRidingAlong;
    if (isReleased) {
      // The `finish-step` waiting goes in the same write as what comes after it.
      for (let sequence = held; sequence < firstSequence; sequence += 1) this.#joined.add(sequence);
      this.#held = null;
    }
    if (!this.#isFinished && this.#held === null && waitsForNext(lastBody)) {
      this.#held = this.#lastSequence;
    }
    const isGoingOn = this.#isGoingOn;
    this.#isGoingOn = false;
    if (this.#isFinished) {
      this.#startFlush();
    } else if (this.#burstEnd === null) {
      // A burst begins: its first entries are written now (or right after a write in flight), unless the turn goes on
      // from its own yield or nobody reads them yet; the rest wait for the event loop to turn.
      this.#armBurstEnd();
      if (isGoingOn) return;
      if (this.#hasReader) this.#writeLead();
      else this.#isLeadDeferred = true;
    } else if (isReleased || this.#pendingEntries >= MAX_BURST_ENTRIES) {
      this.#startFlush();
    }
  }

  /**
   * The turn let the event loop turn itself (what was written is out) and reads on at once: the entries it appends
   * next go on with its burst instead of beginning one whose first entry is written alone. A chunk that does come
   * paced after it waits for its burst's end (one turn of the event loop).
   */
  yielded(): void {
    this.#isGoingOn = true;
    // What waits (held over the yield by `yielding()`) is written at the burst's end: at once if the turn now waits
    // for its stream, else with what it appends next (up to `MAX_BURST_ENTRIES`) or at its end.
    if (this.#pendingEntries > 0 && this.#burstEnd === null && !this.#isFinished) this.#armBurstEnd();
  }

  /**
   * The turn is about to let the event loop turn itself, to let out what was written (a burst's first entry): the
   * entries waiting behind it stay waiting over that yield instead of going out in a write of their own (`yielded()`
   * arms the burst's end again), so a short burst with a yield in it costs no extra write. A burst whose first entry
   * waited for a reader is written now, all of it, in one write: the yield lets it out (the tail `startTail` opens at
   * that turn of the loop gets it).
   */
  yielding(): void {
    if (this.#isLeadDeferred) this.#writeLead();
    if (this.#burstEnd === null) return;
    this.#clock.clearTimeout(this.#burstEnd);
    this.#burstEnd = null;
  }

  #armBurstEnd(): void {
    this.#burstEnd = this.#clock.setTimeout(() => {
      this.#burstEnd = null;
      this.#held = null;
      this.#startFlush();
    }, 0);
  }

  /** Deliver an ephemeral item now, or after the entries still waiting or being written (it never overtakes them). */
  publish(item: EphemeralTailItem): void {
    if (this.#isFlushing || this.#pending.length > 0) {
      this.#pending.push(item);
      this.#waitingEphemeral += 1;
      return;
    }
    this.#deliver(item);
  }

  /**
   * True while an ephemeral item waits behind entries not yet written: a tail subscribed now gets it in its place,
   * so it needs no catch-up copy of it (which would overtake those entries).
   */
  get hasEphemeralWaiting(): boolean {
    return this.#waitingEphemeral > 0;
  }

  /** Write what is waiting now, without waiting for the burst's end (a fact of the turn's journal). */
  writeNow(): void {
    this.#held = null;
    // Only what waits now is forced out: with nothing waiting, the next burst goes by the usual rule.
    this.#isForced = this.#pending.length > 0;
    this.#startFlush();
  }

  /**
   * Resolves once every entry appended before the call is written (they are written now); rejects with the store's
   * error once a write failed.
   */
  async durable(): Promise<void> {
    this.writeNow();
    await this.settled();
    if (this.#storeError !== undefined) throw this.#storeError;
  }

  /** The turn has ended: write everything now, and from now on at once. */
  finish(): void {
    this.#isFinished = true;
    this.#held = null;
    this.#endBurst();
    this.#startFlush();
  }

  /** A turn of the run goes on (its approvals answered): entries are written per burst again, until `finish()`. */
  reopen(): void {
    this.#isFinished = false;
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
    if (item.type !== "entries" && item.type !== "terminal" && this.#waitingEphemeral > 0) this.#waitingEphemeral -= 1;
    for (const listener of this.#listeners) listener(item);
  }

  #endBurst(): void {
    if (this.#burstEnd !== null) this.#clock.clearTimeout(this.#burstEnd);
    this.#burstEnd = null;
  }

  /** Whether the entries waiting may be written now: the burst is over, or too many wait. */
  #mayWrite(): boolean {
    return this.#isForced || this.#burstEnd === null || this.#pendingEntries >= MAX_BURST_ENTRIES;
  }

  /**
   * Take the items waiting, up to `MAX_BURST_ENTRIES` entries (one append stays bounded too), none from a waiting
   * `finish-step` on, and never splitting entries that go in the same write.
   */
  #takeBatch(): AgentToolTailItem[] {
    const batch: AgentToolTailItem[] = [];
    let room = MAX_BURST_ENTRIES;
    while (this.#pending[0] !== undefined && room > 0) {
      const item = this.#pending[0];
      if (item.type !== "entries") {
        batch.push(this.#pending.shift() as AgentToolTailItem);
        continue;
      }
      const count = this.#writableCount(item.entries, room, batch.length === 0);
      if (count === 0) break;
      const isWhole = count === item.entries.length;
      const taken = isWhole ? item.entries : item.entries.splice(0, count);
      if (isWhole) this.#pending.shift();
      batch.push({ type: "entries", entries: taken });
      for (const entry of taken) this.#joined.delete(entry.sequence);
      room -= count;
      // The rest of the item waits (for the next write, or for what a waiting `finish-step` goes with).
      if (!isWhole) break;
    }
    this.#pendingEntries -= MAX_BURST_ENTRIES - room;
    return batch;
  }

  /** How many of `entries` (from the first) the next write takes, given `room` left in it. */
  #writableCount(entries: readonly AgentToolLogEntry[], room: number, isFirst: boolean): number {
    let count = 0;
    for (const entry of entries) {
      if (count === room || (this.#held !== null && entry.sequence >= this.#held)) break;
      count += 1;
    }
    if (count === entries.length) return count;
    // Cut before the entries that go in the same write as the last one taken (unless they alone fill a write).
    let cut = count;
    while (cut > 0 && this.#joined.has((entries[cut - 1] as AgentToolLogEntry).sequence)) cut -= 1;
    return cut === 0 && isFirst && count === room ? count : cut;
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
        if (this.#pending.length === 0) this.#isForced = false;
        if (this.#pending.length === 0 || !(this.#isLeadDue || this.#mayWrite())) break;
        const batch = this.#takeBatch();
        if (batch.length === 0) break;
        this.#isLeadDue = false;
        this.#isLeadDeferred = false;
        const entries = batch.flatMap((item) => (item.type === "entries" ? item.entries : []));
        if (entries.length > 0) await this.#store.appendLog(this.#runId, entries);
        for (const item of batch) this.#deliver(item);
      }
    } catch (error) {
      this.#storeError = error;
      this.#pending.length = 0;
      this.#pendingEntries = 0;
      this.#waitingEphemeral = 0;
      this.#held = null;
      this.#isLeadDeferred = false;
      this.#joined.clear();
      this.#endBurst();
      this.#onStoreError(error);
    } finally {
      this.#isFlushing = false;
      this.#flushing = null;
    }
  }
}
