/**
 * Streams over Durable Object RPC carry bytes: a tail of typed items crosses as NDJSON (one JSON value a line), or,
 * when it has ended already, as one `Uint8Array` of the same lines. These functions only map; they hold no agent-tool
 * logic.
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
  return encodedStream(new ReadyLines(source.getReader(), toJson));
}

/**
 * What crosses in one message when it can: the source's values, encoded as by `toNdjson`, as one `Uint8Array` when the
 * source ends with what it has at hand now (all of it already queued, within `maxChars` of text); otherwise the same
 * bytes as a stream, beginning with what was at hand. An answer over RPC as bytes is one message, where a stream is a
 * message and then a pipe between the two objects.
 */
export async function toNdjsonAnswer<T>(
  source: ReadableStream<T>,
  toJson: (value: T) => string,
  maxChars: number,
): Promise<Uint8Array | ReadableStream<Uint8Array>> {
  const lines = new ReadyLines(source.getReader(), toJson);
  let text = "";
  for (;;) {
    let ready: ReadyText;
    try {
      ready = await lines.take(false);
    } catch (error) {
      // The source failed: what came before it goes out, then the failure (as a stream would have told it).
      return erroredAfter(text, error);
    }
    text += ready.text;
    if (ready.ended) return encoder.encode(text);
    // Nothing more at hand, or more than one message should carry: the rest follows as a stream.
    if (ready.text === "" || text.length > maxChars) return encodedStream(lines, text);
  }
}

/** What a source has at hand: the lines of the values already queued, and whether it ended after them. */
type ReadyText = { text: string; ended: boolean };

/**
 * A source read for the values it has at hand: `take` encodes those already queued (up to `MAX_LINES_PER_CHUNK`), a
 * value still coming being kept for the next `take`.
 */
class ReadyLines<T> {
  readonly #reader: ReadableStreamDefaultReader<T>;
  readonly #toJson: (value: T) => string;
  #pending: ReturnType<ReadableStreamDefaultReader<T>["read"]> | null = null;
  /** The source's failure, once the lines read before it have been taken. */
  #failure: { error: unknown } | null = null;

  constructor(reader: ReadableStreamDefaultReader<T>, toJson: (value: T) => string) {
    this.#reader = reader;
    this.#toJson = toJson;
  }

  /** The values at hand (`wait`: after waiting for the first one, else none when none is queued). */
  async take(wait: boolean): Promise<ReadyText> {
    if (this.#failure) throw this.#failure.error;
    let text = "";
    for (let lines = 0; lines < MAX_LINES_PER_CHUNK; lines += 1) {
      const next = this.#pending ?? this.#reader.read();
      this.#pending = null;
      let settled: Awaited<typeof next> | typeof IDLE;
      try {
        settled =
          wait && lines === 0
            ? await next
            : await Promise.race([next, Promise.resolve().then((): typeof IDLE => IDLE)]);
      } catch (error) {
        // The lines read before the failure go out first; the failure with the next take.
        if (text === "") throw error;
        this.#failure = { error };
        return { text, ended: false };
      }
      if (settled === IDLE) {
        this.#pending = next;
        return { text, ended: false };
      }
      if (settled.done) return { text, ended: true };
      text += `${this.#toJson(settled.value)}\n`;
    }
    return { text, ended: false };
  }

  cancel(reason: unknown): Promise<void> {
    return this.#reader.cancel(reason);
  }
}

/** The bytes of `lines`' values as they come, after `first` (the text read from it already). */
function encodedStream<T>(lines: ReadyLines<T>, first = ""): ReadableStream<Uint8Array> {
  let lead = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (lead !== "") {
        controller.enqueue(encoder.encode(lead));
        lead = "";
        return;
      }
      const { text, ended } = await lines.take(true);
      if (text !== "") controller.enqueue(encoder.encode(text));
      if (ended) controller.close();
    },
    async cancel(reason) {
      await lines.cancel(reason);
    },
  });
}

/** A stream of `text`'s bytes, then `error` (once they are read: erroring a stream drops what it still holds). */
function erroredAfter(text: string, error: unknown): ReadableStream<Uint8Array> {
  let rest = text;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (rest === "") {
        controller.error(error);
        return;
      }
      controller.enqueue(encoder.encode(rest));
      rest = "";
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
