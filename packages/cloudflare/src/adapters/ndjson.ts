/**
 * Streams over Durable Object RPC carry bytes: a tail of typed items crosses as NDJSON (one JSON value a line).
 * These two functions only map; they hold no agent-tool logic.
 */
const encoder = new TextEncoder();

const IDLE = Symbol("idle");
const MAX_LINES_PER_CHUNK = 512;

/**
 * Encode a stream of values as NDJSON bytes (`toJson` makes each line's JSON text: `JSON.stringify` unless given);
 * values already queued go out together in one byte chunk.
 */
export function toNdjson<T>(
  source: ReadableStream<T>,
  toJson: (value: T) => string = JSON.stringify,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: ReturnType<ReadableStreamDefaultReader<T>["read"]> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const first = await (pending ?? reader.read());
      pending = null;
      if (first.done) {
        controller.close();
        return;
      }
      let text = `${toJson(first.value)}\n`;
      let ended = false;
      for (let lines = 1; lines < MAX_LINES_PER_CHUNK; lines += 1) {
        const next = reader.read();
        const settled = await Promise.race([next, Promise.resolve().then((): typeof IDLE => IDLE)]);
        if (settled === IDLE) {
          pending = next;
          break;
        }
        if (settled.done) {
          ended = true;
          break;
        }
        text += `${toJson(settled.value)}\n`;
      }
      controller.enqueue(encoder.encode(text));
      if (ended) controller.close();
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

/** Incremental NDJSON decoding: push bytes, get every complete value. */
export class NdjsonLines<T> {
  readonly #decoder = new TextDecoder();
  #buffer = "";
  push(bytes: Uint8Array): T[] {
    this.#buffer += this.#decoder.decode(bytes, { stream: true });
    const values: T[] = [];
    let newline = this.#buffer.indexOf("\n");
    let start = 0;
    while (newline >= 0) {
      const line = this.#buffer.slice(start, newline);
      if (line.trim() !== "") values.push(JSON.parse(line) as T);
      start = newline + 1;
      newline = this.#buffer.indexOf("\n", start);
    }
    this.#buffer = this.#buffer.slice(start);
    return values;
  }
  end(): T[] {
    const rest = this.#buffer.trim();
    this.#buffer = "";
    return rest === "" ? [] : [JSON.parse(rest) as T];
  }
}
