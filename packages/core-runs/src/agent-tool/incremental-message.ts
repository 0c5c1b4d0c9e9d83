import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";

/**
 * A part type of our own, written at each `read` so that the AI SDK hands over its state (it gives none after some
 * chunks, such as `start-step`); with an id, so that the SDK updates the one part in place. Taken off each answer.
 */
const READ_MARK = "data-agent-tools-read-mark";
const isMark = (part: UIMessage["parts"][number]) => part.type === READ_MARK;

/**
 * The assistant message that a growing sequence of chunks describes, kept up to date one chunk at a time: each chunk
 * is applied once, by the AI SDK's own assembly (`readUIMessageStream`, the reference `assembleMessage` follows for
 * chunks it cannot apply or that start a second message), where assembling the sequence again at each read was
 * quadratic over a long child. `read` gives what `assembleMessage` gives for every chunk appended so far.
 * @internal
 */
export class IncrementalMessage {
  readonly #fallbackId: string;
  readonly #input: ReadableStreamDefaultController<UIMessageChunk>;
  readonly #states: AsyncIterator<UIMessage>;
  /** The SDK's latest state; whether a chunk of the caller's (not a read mark) made a state. */
  #latest: UIMessage | undefined;
  #chunkMadeState = false;
  #appended = 0;
  #marks = 0;
  /** No more chunks: `close()` was called, or the SDK's stream ended (a chunk it could not apply, as in one assembly). */
  #inputClosed = false;
  /** The SDK gave its last state. */
  #done = false;
  #reading: Promise<UIMessage | null> | null = null;

  constructor(fallbackId: string) {
    this.#fallbackId = fallbackId;
    let input: ReadableStreamDefaultController<UIMessageChunk> | undefined;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        input = controller;
      },
    });
    this.#input = input as unknown as ReadableStreamDefaultController<UIMessageChunk>;
    this.#states = readUIMessageStream({ stream, terminateOnError: false })[Symbol.asyncIterator]();
  }

  /** Take the next chunk of the sequence. */
  append(chunk: UIMessageChunk): void {
    if (this.#inputClosed) return;
    this.#appended += 1;
    this.#input.enqueue(chunk);
  }

  /** The message the chunks so far make; `null` while they make none (no chunk, or none that makes a state). */
  read(): Promise<UIMessage | null> {
    // One read at a time: each waits for its own mark.
    const previous = this.#reading ?? Promise.resolve(null);
    const reading = previous.then(() => this.#readNow());
    this.#reading = reading;
    return reading;
  }

  /** Take no more chunks and let the SDK's stream end: the message stays what the chunks so far make. */
  close(): void {
    if (this.#inputClosed) return;
    this.#mark();
    this.#inputClosed = true;
    this.#input.close();
  }

  /** Ask the SDK for its state after every chunk so far; the mark's number. */
  #mark(): number {
    this.#marks += 1;
    this.#input.enqueue({ type: READ_MARK, id: "mark", data: this.#marks } as UIMessageChunk);
    return this.#marks;
  }

  async #readNow(): Promise<UIMessage | null> {
    if (this.#appended === 0) return null;
    if (!this.#done) {
      // Open: up to the state that holds a new mark. Closed: every state left (the last holds `close()`'s mark).
      const mark = this.#inputClosed ? null : this.#mark();
      for (;;) {
        const next = await this.#states.next();
        if (next.done) {
          this.#done = true;
          this.#inputClosed = true;
          break;
        }
        // Each state is a copy of the message: keep the latest.
        this.#latest = next.value;
        const held = (next.value.parts.find(isMark) as { data?: unknown } | undefined)?.data;
        if (held !== this.#marks) this.#chunkMadeState = true;
        else if (mark !== null) break;
      }
    }
    const latest = this.#latest;
    if (latest === undefined) return null;
    const parts = latest.parts.filter((part) => !isMark(part));
    // Only the marks made a state, and the chunks made no part: they describe no message.
    if (!this.#chunkMadeState && parts.length === 0) return null;
    return { ...latest, parts, id: latest.id || this.#fallbackId };
  }
}
