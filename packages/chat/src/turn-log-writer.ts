import { type Clock, type TimerHandle, waitsForNext } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";
import type { ChatStore } from "./ports/chat-store.js";

/** Default `writeIntervalMs`: how often, at most, a streaming turn's chunks are written (250 ms). */
export const DEFAULT_CHAT_WRITE_INTERVAL_MS = 250;

/**
 * Writes a streaming turn's chunks to the chat store as they come, bounded: at most one write per `intervalMs` (the
 * chunks that came meanwhile go in one write), the first at once. A Durable Object's write holds the messages it sends
 * after it until the write is durable, so a write per chunk would slow the stream; a crash loses at most one interval
 * of chunks, and the turn is resumed from its last completed step anyway. Writes happen one at a time, in order; the
 * first that fails is kept (`error`), and every later `flush` rejects with it.
 *
 * A step's `finish-step` (`waitsForNext`) is never written at once: it waits for the event loop to turn (a timer of
 * 0 ms), so the stream's `finish` that follows the turn's last step goes in the same write. Chunks added together
 * (`addAll`) go in the same write.
 * @internal
 */
export class TurnLogWriter {
  readonly #store: ChatStore;
  readonly #clock: Clock;
  readonly #turnId: string;
  readonly #intervalMs: number;
  #written = 0;
  #pending: UIMessageChunk[] = [];
  #timer: TimerHandle | null = null;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #writes: Promise<void> = Promise.resolve();
  #error: unknown;
  #hasFailed = false;

  constructor(options: {
    store: ChatStore;
    clock: Clock;
    turnId: string;
    intervalMs: number;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#turnId = options.turnId;
    this.#intervalMs = options.intervalMs;
  }

  /** True once a write failed (`error` says why). */
  get hasFailed(): boolean {
    return this.#hasFailed;
  }

  get error(): unknown {
    return this.#error;
  }

  /** `count` chunks of the turn are stored already (a resumed turn's kept chunks): the next write goes after them. */
  skip(count: number): void {
    this.#written += count;
  }

  add(chunk: UIMessageChunk): void {
    this.addAll([chunk]);
  }

  /** Add chunks that go in the same write. */
  addAll(chunks: readonly UIMessageChunk[]): void {
    const last = chunks.at(-1);
    if (last === undefined) return;
    this.#pending.push(...chunks);
    if (this.#timer !== null) return;
    const wait = this.#lastWriteAt + this.#intervalMs - this.#clock.now();
    if (wait <= 0 && !waitsForNext(last)) {
      this.#flushInBackground();
      return;
    }
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#timer = null;
        this.#flushInBackground();
      },
      Math.max(wait, 0),
    );
  }

  /** Write what is pending now; resolves once it (and every earlier write) is stored. */
  flush(): Promise<void> {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending.length > 0) {
      const batch = this.#pending;
      const firstIndex = this.#written;
      this.#pending = [];
      this.#written += batch.length;
      this.#lastWriteAt = this.#clock.now();
      this.#writes = this.#writes.then(async () => {
        if (this.#hasFailed) return;
        try {
          await this.#store.appendTurnChunks(this.#turnId, firstIndex, batch);
        } catch (error) {
          this.#hasFailed = true;
          this.#error = error;
        }
      });
    }
    return this.#writes.then(() => {
      if (this.#hasFailed) throw this.#error;
    });
  }

  /** Stop without writing what is pending (the turn ended and its answer is stored whole); resolves once writes are done. */
  dispose(): Promise<void> {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = [];
    return this.#writes;
  }

  #flushInBackground(): void {
    // A failure is kept and surfaces at the next `flush` (the engine ends the turn with it).
    this.flush().catch(() => undefined);
  }
}
