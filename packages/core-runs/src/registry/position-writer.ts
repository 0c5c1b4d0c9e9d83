import type { Clock, TimerHandle } from "../ports/clock.js";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolLogEntry, AgentToolProgressSnapshot } from "../protocol/index.js";

/** Default `followWriteIntervalMs`: how often, at most, a parent persists its position in a followed run. */
export const DEFAULT_FOLLOW_WRITE_INTERVAL_MS = 500;

/**
 * Persists what a parent forwarded of a run as it follows it — its copy of the log, the highest sequence, the latest
 * progress — so that after a restart it re-attaches from there (clients are not sent again what they hold) and replay
 * reads it without waking the child. Writes are bounded: at most one in flight, and at most one per `intervalMs`;
 * entries forwarded meanwhile go into the next write (so a crash re-sends at most one interval of chunks, which
 * clients dedupe by sequence). The first write goes out one interval after the first entry (a run that ends within
 * it copies its log once, with `flushLog()` before its terminal) and copies the log alone: the row's position waits
 * for the next write (a driver that re-attaches reads the log past the row's `lastSequence`), so a run that ends
 * within its first interval writes its row only for its terminal. What one tail item brings is added as one
 * (`adding()`): a write due at once takes all of it. `flushLog()` writes the log now, for the terminal
 * write that carries the position; `flush()` writes the position as well; `durable(sequence)` writes without waiting
 * for the interval and tells when an entry is stored with its position (what a hook fired once needs).
 * `beforePosition` runs before each write of the position to the run's row (the start acknowledgement rides on the
 * first one).
 * @internal
 */
export class PositionWriter {
  readonly #store: RunStore;
  readonly #clock: Clock;
  readonly #runId: string;
  readonly #intervalMs: number;
  /** Forwarded, not yet durable (in flight first, then waiting), in sequence order. */
  #unwritten: AgentToolLogEntry[] = [];
  #inFlight = 0;
  #progress: AgentToolProgressSnapshot | undefined;
  #progressDirty = false;
  #writing: Promise<void> | null = null;
  #timer: TimerHandle | null = null;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  /** No write went out yet: the first copies the log alone (see the class comment). */
  #isFirstWrite = true;
  readonly #beforePosition: (() => Promise<unknown>) | undefined;
  #isClosed = false;
  /** The highest sequence stored. */
  #durableSequence = Number.NEGATIVE_INFINITY;
  /** `durable()` calls waiting for their sequence to be stored. */
  #waiters: Array<{ sequence: number; resolve: (isDurable: boolean) => void }> = [];
  /** A `durable()` call waits: the next write goes out without waiting for the interval. */
  #isUrgent = false;
  /** Inside `adding()`: a write is decided once the whole batch is added. */
  #isAdding = false;

  constructor(options: {
    store: RunStore;
    clock: Clock;
    runId: string;
    intervalMs: number;
    beforePosition?: () => Promise<unknown>;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#runId = options.runId;
    this.#intervalMs = options.intervalMs;
    this.#beforePosition = options.beforePosition;
  }

  /** Entries forwarded but not yet durable: what replay adds to the stored copy. */
  get unwritten(): readonly AgentToolLogEntry[] {
    return this.#unwritten;
  }

  add(entry: AgentToolLogEntry): void {
    if (this.#isClosed) return;
    this.#unwritten.push(entry);
    this.#schedule();
  }

  /**
   * Run `add` (which adds what one tail item brought: a burst of entries, a progress), deciding the write once, after
   * it: a write that goes out at once (a `durable()` waiting, an interval passed) takes the whole burst, not its first
   * entry alone.
   */
  adding<TResult>(add: () => TResult): TResult {
    if (this.#isAdding) return add();
    this.#isAdding = true;
    try {
      return add();
    } finally {
      this.#isAdding = false;
      if (this.#hasWork()) this.#schedule();
    }
  }

  /** The latest progress (persisted with the next write). */
  progress(snapshot: AgentToolProgressSnapshot): void {
    if (this.#isClosed) return;
    this.#progress = snapshot;
    this.#progressDirty = true;
    this.#schedule();
  }

  /**
   * Write everything forwarded so far, now (the follow is ending: nothing more is added). Rejects when the store
   * fails, leaving the entries unwritten.
   */
  async flush(): Promise<void> {
    await this.#flush(true);
  }

  /**
   * Write the log copy of everything forwarded so far, now, and not the position: the follow is ending and the
   * terminal write that comes next carries the position (`lastSequence`, progress). When a `durable()` call waits,
   * the position is written too (the hook it holds fires once the entry is stored with its position). Rejects when
   * the store fails, leaving the entries unwritten.
   */
  async flushLog(): Promise<void> {
    await this.#flush(this.#waiters.length > 0);
  }

  async #flush(withPosition: boolean): Promise<void> {
    this.#cancelTimer();
    if (this.#writing !== null) await this.#writing;
    if (!this.#hasWork()) return;
    const batch = this.#unwritten.slice();
    const progress = this.#progressDirty ? this.#progress : undefined;
    if (withPosition) await this.#persist(batch, progress);
    else if (batch.length > 0) await this.#store.appendLog(this.#runId, batch);
    this.#unwritten = this.#unwritten.slice(batch.length);
    if (withPosition && progress === this.#progress) this.#progressDirty = false;
  }

  /**
   * Resolves `true` once the entry `sequence` (already added) is stored, written now rather than at the end of the
   * interval; after a failed write it waits for the next one (an interval later). Resolves `false` if the writer is closed
   * first (the run was cleared).
   */
  durable(sequence: number): Promise<boolean> {
    if (sequence <= this.#durableSequence) return Promise.resolve(true);
    if (this.#isClosed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.#waiters.push({ sequence, resolve });
      this.#isUrgent = true;
      this.#cancelTimer();
      this.#schedule();
    });
  }

  /** Stop writing (the run was cleared); waits for a write in flight, drops the rest. */
  async close(): Promise<void> {
    this.#isClosed = true;
    this.#cancelTimer();
    if (this.#writing !== null) await this.#writing;
    this.#unwritten = [];
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(false);
  }

  #hasWork(): boolean {
    return !this.#isClosed && (this.#unwritten.length > this.#inFlight || this.#progressDirty);
  }

  #schedule(): void {
    if (this.#isAdding || this.#writing || this.#timer !== null) return;
    const now = this.#clock.now();
    // The first write waits an interval too, from the first thing to write: a run that ends within it copies its log
    // once, before its terminal, instead of once for its first chunks and again at the end.
    if (this.#lastWriteAt === Number.NEGATIVE_INFINITY) this.#lastWriteAt = now;
    const wait = this.#isUrgent ? 0 : this.#lastWriteAt + this.#intervalMs - now;
    if (wait <= 0) {
      void this.#write();
      return;
    }
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null;
      if (!this.#writing) void this.#write();
    }, wait);
  }

  #cancelTimer(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  #write(): Promise<void> {
    const batch = this.#unwritten.slice(this.#inFlight);
    const progress = this.#progressDirty ? this.#progress : undefined;
    this.#inFlight = this.#unwritten.length;
    this.#progressDirty = false;
    this.#isUrgent = false;
    this.#lastWriteAt = this.#clock.now();
    // The first write copies the log alone, unless it must store a position (a progress, a `durable()` waiting).
    const logOnly = this.#isFirstWrite && progress === undefined && this.#waiters.length === 0;
    this.#isFirstWrite = false;
    const writing = (async () => {
      try {
        if (logOnly) await this.#store.appendLog(this.#runId, batch);
        else await this.#persist(batch, progress);
        this.#unwritten = this.#unwritten.slice(this.#inFlight);
      } catch {
        // Not durable: kept, and tried again with the next write (the final flush at the latest).
        if (progress) this.#progressDirty = true;
      } finally {
        this.#inFlight = 0;
        this.#writing = null;
      }
      if (this.#hasWork()) this.#schedule();
    })();
    this.#writing = writing;
    return writing;
  }

  async #persist(batch: readonly AgentToolLogEntry[], progress: AgentToolProgressSnapshot | undefined): Promise<void> {
    if (batch.length > 0) await this.#store.appendLog(this.#runId, batch);
    const last = batch.at(-1);
    if (!last && !progress) return;
    await this.#beforePosition?.();
    await this.#store.updateRun(this.#runId, {
      ...(last ? { lastSequence: last.sequence } : {}),
      ...(progress ? { progress } : {}),
      updatedAt: this.#clock.now(),
    });
    if (!last) return;
    this.#durableSequence = Math.max(this.#durableSequence, last.sequence);
    const stored = this.#waiters.filter((waiter) => waiter.sequence <= this.#durableSequence);
    this.#waiters = this.#waiters.filter((waiter) => waiter.sequence > this.#durableSequence);
    for (const waiter of stored) waiter.resolve(true);
  }
}
