import { tailItemFromJson, tailItemToJson } from "@agent-tools/core-runs/internal";
import type { AgentToolTailItem } from "@agent-tools/core-runs/protocol";
import { NdjsonLines, toNdjson } from "./ndjson.js";

/**
 * A run's tail as it crosses between objects: NDJSON, one tail item a line, each burst's entries encoded once in the
 * log's compact form (`tailItemToJson`). These two functions only map.
 */
export function toNdjsonTail(source: ReadableStream<AgentToolTailItem>): ReadableStream<Uint8Array> {
  return toNdjson(source, tailItemToJson);
}

/**
 * A child's tail, from the NDJSON bytes its RPC answers with (`toNdjsonTail`'s lines, or the whole entries a child
 * running older code sends): cancelling it (or aborting `signal`) cancels the RPC stream, never the run.
 */
export function fromNdjsonTail(
  bytes: Promise<ReadableStream<Uint8Array>>,
  signal: AbortSignal | undefined,
): ReadableStream<AgentToolTailItem> {
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
