import type { LiveRunLog } from "../log/live-run-log.js";
import type { AgentToolTailItem } from "../protocol/index.js";

/**
 * The tail of a run that `startTail` starts, listening from the run's start: it holds what the run's log delivers
 * until the caller's stream takes it, so the stream needs no read of the stored run or log (there is nothing before
 * the first item it holds).
 * @internal
 */
export class StartTail {
  readonly #held: AgentToolTailItem[] = [];
  readonly #subscription: { open(): void; unsubscribe(): void };
  #sink: ((item: AgentToolTailItem) => void) | null = null;
  #isTaken = false;
  #isEnded = false;
  #onEnd: (() => void) | null = null;

  /**
   * Listen to `log` from now on (before its turn appends anything), holding what it delivers unread until `open`: the
   * log need not write a burst's first entry alone for it (nobody reads it sooner).
   */
  constructor(log: LiveRunLog) {
    this.#subscription = log.subscribeHeld((item) => {
      if (item.type === "terminal") this.#end();
      if (this.#sink) this.#sink(item);
      else this.#held.push(item);
    });
  }

  /** Resolves once the run's `terminal` item is held (or delivered), or when `other` settles first. */
  endedOr(other: Promise<void>): Promise<void> {
    if (this.#isEnded) return Promise.resolve();
    const ended = new Promise<void>((resolve) => {
      this.#onEnd = resolve;
    });
    return Promise.race([ended, other]).finally(() => {
      this.#onEnd = null;
    });
  }

  #end(): void {
    this.#isEnded = true;
    this.#onEnd?.();
  }

  /** Stop listening: the stream is never opened (the start failed) or was cancelled. */
  close(): void {
    this.#subscription.unsubscribe();
    this.#sink = null;
    this.#held.length = 0;
  }

  /**
   * The run's items from its start, then live ones, ending after its `terminal` item. Once only (`null` after).
   * Stopping it (cancelling the stream or aborting `signal`) never cancels the run.
   */
  open(signal?: AbortSignal): ReadableStream<AgentToolTailItem> | null {
    if (this.#isTaken) return null;
    this.#isTaken = true;
    let isClosed = false;
    const end = () => {
      isClosed = true;
      signal?.removeEventListener("abort", onAbort);
      this.close();
    };
    let onAbort = () => {};
    return new ReadableStream<AgentToolTailItem>({
      start: (controller) => {
        const close = () => {
          if (isClosed) return;
          end();
          controller.close();
        };
        onAbort = close;
        if (signal?.aborted) return close();
        signal?.addEventListener("abort", onAbort, { once: true });
        const deliver = (item: AgentToolTailItem) => {
          if (isClosed) return;
          controller.enqueue(item);
          if (item.type === "terminal") close();
        };
        for (const item of this.#held.splice(0)) deliver(item);
        if (isClosed) return;
        this.#sink = deliver;
        // Read from now on: what the log still holds back for a reader is written now.
        this.#subscription.open();
      },
      cancel: () => {
        if (!isClosed) end();
      },
    });
  }
}
