import { tailItemFromJson, tailItemToJson } from "@agent-tools/core-runs/internal";
import type { AgentToolTailItem } from "@agent-tools/core-runs/protocol";
import { NdjsonLines, toNdjson, toNdjsonAnswer } from "./ndjson.js";

/**
 * A run's tail as it crosses between objects: NDJSON, one tail item a line, each burst's entries encoded once in the
 * log's compact form (`tailItemToJson`). These functions only map.
 */
export function toNdjsonTail(source: ReadableStream<AgentToolTailItem>): ReadableStream<Uint8Array> {
  return toNdjson(source, tailItemToJson);
}

/**
 * The most text an answer carries as one `Uint8Array` (a longer tail goes as a stream): well under what one RPC message
 * may carry, and a run's whole log held at once only when it is small.
 */
export const MAX_ANSWER_CHARS = 1 << 20;

/**
 * `startTail`'s answer to a parent that reads bytes (`{ bytes: true }`): a tail that has ended already (a short instant
 * run's, with its terminal item) as one `Uint8Array`, one RPC message; any other as `toNdjsonTail`'s stream.
 */
export function toNdjsonTailAnswer(
  source: ReadableStream<AgentToolTailItem>,
): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  return toNdjsonAnswer(source, tailItemToJson, MAX_ANSWER_CHARS);
}

/**
 * `agentToolStartTail`'s answer as the parent asked for it (`StartTailAnswer`): bytes when it reads them and the tail
 * has ended, else `toNdjsonTail`'s stream (a parent from before asks for nothing).
 */
export function startTailAnswer(
  source: ReadableStream<AgentToolTailItem>,
  answer: { bytes?: boolean } | undefined,
): Promise<Uint8Array | ReadableStream<Uint8Array>> | ReadableStream<Uint8Array> {
  return answer?.bytes ? toNdjsonTailAnswer(source) : toNdjsonTail(source);
}

/**
 * A child's tail, from the NDJSON bytes its RPC answers with (`toNdjsonTail`'s lines, or the whole entries a child
 * running older code sends; as a stream, or all at once as one `Uint8Array`): cancelling it (or aborting `signal`)
 * cancels the RPC stream, never the run.
 */
export function fromNdjsonTail(
  answer: Promise<ReadableStream<Uint8Array> | Uint8Array>,
  signal: AbortSignal | undefined,
): ReadableStream<AgentToolTailItem> {
  const bytes = answer.then((value) => (value instanceof Uint8Array ? bytesStream(value) : value));
  let inner: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const lines = new NdjsonLines<unknown>();
  const opened = bytes.then((stream) => {
    inner = stream.getReader();
    return inner;
  });
  const onAbort = () => void opened.then((reader) => reader.cancel()).catch(() => undefined);
  return new ReadableStream<AgentToolTailItem>({
    start() {
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    },
    async pull(controller) {
      const reader = await opened;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          for (const value of lines.end()) controller.enqueue(tailItemFromJson(value));
          signal?.removeEventListener("abort", onAbort);
          controller.close();
          return;
        }
        const values = lines.push(value);
        for (const item of values) controller.enqueue(tailItemFromJson(item));
        if (values.length > 0) return;
      }
    },
    async cancel(reason) {
      signal?.removeEventListener("abort", onAbort);
      const reader = inner ?? (await opened.catch(() => null));
      await reader?.cancel(reason).catch(() => undefined);
    },
  });
}

/** One answer's bytes, read as the stream they would have come in. */
function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
