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
  /** The SDK's stream ended (a chunk it could not apply): later chunks change nothing, as in one assembly. */
  #ended = false;
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
    if (this.#ended) return;
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

  /** Stop the SDK's stream (the chunks are voided and assembled again elsewhere). */
  close(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#input.close();
  }

  async #readNow(): Promise<UIMessage | null> {
    if (this.#appended === 0) return null;
    if (!this.#ended) {
      this.#marks += 1;
      const mark = this.#marks;
      this.#input.enqueue({ type: READ_MARK, id: "mark", data: mark } as UIMessageChunk);
      // The SDK's states up to the one that holds this mark (each state is a copy of the message: keep the latest).
      for (;;) {
        const next = await this.#states.next();
        if (next.done) {
          this.#ended = true;
          break;
        }
        this.#latest = next.value;
        const held = next.value.parts.find(isMark) as { data?: unknown } | undefined;
        if (held?.data === mark) break;
        this.#chunkMadeState = true;
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
