import { MemoryAgUiResumeStore } from "@agent-tools/ag-ui";
import type { AgUiResumeStore } from "@agent-tools/ag-ui/internal";

/** A parent's AG-UI streams: how many may be open, how they are kept alive (see `AgentToolParent.agUiOptions()`). */
export type AgUiOptions = {
  /** At most this many AG-UI streams of the parent are open at once; the next is refused (429). Default 32. */
  maxStreams?: number;
  /** A followed stream sends an SSE comment this often (proxies drop idle connections). Default 15 s. */
  heartbeatMs?: number;
  /**
   * A followed stream ends this long after it opened; its client comes back with its last event id and goes on where
   * it stopped. A bound on a stream kept for a client that left while the runtime could not tell (without the
   * `enable_request_signal` compatibility flag). Default 1 h.
   */
  maxStreamMs?: number;
};

/** The defaults of `AgUiOptions`. */
export const DEFAULT_AG_UI_OPTIONS: Readonly<Required<AgUiOptions>> = Object.freeze({
  maxStreams: 32,
  heartbeatMs: 15_000,
  maxStreamMs: 60 * 60 * 1_000,
});

/**
 * The AG-UI streams of one parent (one per parent object, in its isolate): how many are open, within a cap (each
 * one follows every frame the parent sends), and where their positions are kept for clients that come back.
 */
export class AgUiStreams {
  readonly store: AgUiResumeStore = new MemoryAgUiResumeStore();
  #open = 0;

  /** Hold a place for one more stream: `null` when `max` are open. */
  take(max: number): { release(): void } | null {
    if (this.#open >= max) return null;
    this.#open += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#open -= 1;
      },
    };
  }

  /** `stream`, releasing its place once it ends, fails or is cancelled. */
  static counted(stream: ReadableStream<Uint8Array>, place: { release(): void }): ReadableStream<Uint8Array> {
    const reader = stream.getReader();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            place.release();
            controller.close();
            return;
          }
          controller.enqueue(value);
        } catch (error) {
          place.release();
          controller.error(error);
        }
      },
      async cancel(reason) {
        place.release();
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }
}

const streamsByParent = new WeakMap<object, AgUiStreams>();

/** The AG-UI streams of the parent that `owner` (one of its parts) belongs to. */
export function agUiStreamsOf(owner: object): AgUiStreams {
  let streams = streamsByParent.get(owner);
  if (!streams) {
    streams = new AgUiStreams();
    streamsByParent.set(owner, streams);
  }
  return streams;
}
