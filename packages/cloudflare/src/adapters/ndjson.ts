/**
 * Streams over Durable Object RPC carry bytes: a tail of typed items crosses as NDJSON (one JSON value a line).
 * These two functions only map; they hold no agent-tool logic.
 */
const encoder = new TextEncoder();
/**
 * One decoder for every stream: it decodes whole lines only (a newline byte is never part of a multi-byte character),
 * so it keeps no state between calls. A decoder per stream would cost more than a short tail's whole reading (making
 * one is slow in workerd).
 */
const decoder = new TextDecoder();
const NEWLINE = 0x0a;

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
  const reader = source.getReader();
  const bytes = new LineBytes();
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
          buffer += bytes.end();
          if (buffer.trim() !== "") controller.enqueue(JSON.parse(buffer) as T);
          controller.close();
          return;
        }
        buffer += bytes.push(value);
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}

/** Incremental NDJSON decoding: push bytes, get every complete value. */
export class NdjsonLines<T> {
  readonly #bytes = new LineBytes();
  push(bytes: Uint8Array): T[] {
    const text = this.#bytes.push(bytes);
    const values: T[] = [];
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline >= 0) {
      const line = text.slice(start, newline);
      if (line.trim() !== "") values.push(JSON.parse(line) as T);
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    return values;
  }
  end(): T[] {
    const rest = this.#bytes.end().trim();
    return rest === "" ? [] : [JSON.parse(rest) as T];
  }
}

/**
 * Bytes cut into the text of whole lines: `push` gives the text up to the last newline in what came so far (the bytes
 * after it wait for the next push), `end` the text after it. Decoded by the shared decoder, a line at a time never
 * split inside a character.
 */
class LineBytes {
  /** The bytes after the last newline pushed (a line still coming), or `null`. */
  #rest: Uint8Array | null = null;

  /** The text of the lines these bytes complete, each with its newline ("" when none is complete yet). */
  push(bytes: Uint8Array): string {
    const last = bytes.lastIndexOf(NEWLINE);
    if (last === -1) {
      // Kept past this call: a copy (the caller may reuse its buffer).
      this.#rest = this.#rest === null ? bytes.slice() : join(this.#rest, bytes);
      return "";
    }
    const lines = join(this.#rest, bytes.subarray(0, last + 1));
    this.#rest = last + 1 < bytes.length ? bytes.slice(last + 1) : null;
    return decoder.decode(lines);
  }

  /** The text after the last newline (the stream ended). */
  end(): string {
    const rest = this.#rest;
    this.#rest = null;
    return rest === null ? "" : decoder.decode(rest);
  }
}

/** `head` then `tail` as one array (`tail` itself when there is no head). */
function join(head: Uint8Array | null, tail: Uint8Array): Uint8Array {
  if (head === null) return tail;
  const joined = new Uint8Array(head.length + tail.length);
  joined.set(head);
  joined.set(tail, head.length);
  return joined;
}
