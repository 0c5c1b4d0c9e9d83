/**
 * Streams over Durable Object RPC carry bytes: a tail of typed items crosses as NDJSON (one JSON value a line).
 * These two functions only map; they hold no agent-tool logic.
 */
const encoder = new TextEncoder();

/** Encode a stream of values as NDJSON bytes. Cancelling the byte stream cancels the source. */
export function toNdjson<T>(source: ReadableStream<T>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}

/** Decode NDJSON bytes into values. A malformed line errors the stream (the reader treats it as a broken tail). */
export function fromNdjson<T>(source: ReadableStream<Uint8Array>): ReadableStream<T> {
  const decoder = new TextDecoder();
  const reader = source.getReader();
  let buffer = "";
  return new ReadableStream<T>({
    async pull(controller) {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.trim() === "") continue;
          controller.enqueue(JSON.parse(line) as T);
          return;
        }
        const { done, value } = await reader.read();
        if (done) {
          if (buffer.trim() !== "") controller.enqueue(JSON.parse(buffer) as T);
          controller.close();
          return;
        }
        buffer += decoder.decode(value, { stream: true });
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}
