import type { Clock, TimerHandle } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";
import type { DurableObjectChatStore } from "./chat-store.js";

/** Default `chatWriteIntervalMs`: how often, at most, a streaming turn's chunks are written (250 ms). */
export const DEFAULT_CHAT_WRITE_INTERVAL_MS = 250;

/**
 * Writes a streaming turn's chunks to the chat store as they come, bounded: at most one write per `intervalMs` (the
 * chunks that came meanwhile go in one row), the first at once. A Durable Object's write holds the messages it sends
 * after it until the write is durable, so a write per chunk would slow the stream; a crash loses at most one
 * interval of chunks, and the turn is resumed from its last completed step anyway.
 * @internal
 */
export class TurnLogWriter {
  readonly #store: DurableObjectChatStore;
  readonly #clock: Clock;
  readonly #turnId: string;
  readonly #intervalMs: number;
  #written: number;
  #pending: UIMessageChunk[] = [];
  #timer: TimerHandle | null = null;
  #lastWriteAt = Number.NEGATIVE_INFINITY;

  constructor(options: {
    store: DurableObjectChatStore;
    clock: Clock;
    turnId: string;
    intervalMs: number;
    /** Chunks of the turn already stored (a resumed turn). */
    written: number;
  }) {
    this.#store = options.store;
    this.#clock = options.clock;
    this.#turnId = options.turnId;
    this.#intervalMs = options.intervalMs;
    this.#written = options.written;
  }

  add(chunk: UIMessageChunk): void {
    this.#pending.push(chunk);
    if (this.#timer !== null) return;
    const wait = this.#lastWriteAt + this.#intervalMs - this.#clock.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null;
      this.flush();
    }, wait);
  }

  /** Write what is pending now. */
  flush(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#store.appendTurnChunks(this.#turnId, this.#written, batch);
    this.#written += batch.length;
    this.#lastWriteAt = this.#clock.now();
  }

  /** Stop without writing what is pending (the turn ended and its answer is stored whole). */
  dispose(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = [];
  }
}
