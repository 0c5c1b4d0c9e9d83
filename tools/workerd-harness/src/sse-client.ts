import type { MiniflareHost } from "./miniflare-host.js";

/** One event of a stream: its `data:` line, parsed (an AG-UI event has a `type`). */
export type SseEvent = { type: string; [field: string]: unknown };

/** A test client of a Server-Sent Events stream (`GET`, or `POST` with a JSON body) that records it as it comes: its
 * complete events (`data:` parsed), every `id:` and the text up to the last one (what a client that stopped holds),
 * its bytes; a test waits for a condition on the events, bounded by a timeout. */
export class SseRecording<TEvent extends { type: unknown } = SseEvent> {
  /** The raw text of every complete event block, up to and including the last one that carried an id. */
  readonly delivered: string[] = [];
  readonly events: TEvent[] = [];
  /** Every id the stream sent, in order. */
  readonly ids: string[] = [];
  lastEventId: string | null = null;
  /** Bytes received (every block, delivered or not). */
  bytes = 0;
  ended = false;
  readonly #pending: string[] = [];
  #waiters: Array<() => void> = [];
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  private constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
    void this.#read();
  }

  /** Open `path` (GET, or POST with `body`); expects a 200 event stream. */
  static async open<TEvent extends { type: unknown } = SseEvent>(
    host: MiniflareHost,
    path: string,
    options: { lastEventId?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<SseRecording<TEvent>> {
    const response = await host.fetch(path, {
      ...(options.body !== undefined ? { method: "POST", body: JSON.stringify(options.body) } : {}),
      headers: {
        ...(options.lastEventId ? { "Last-Event-ID": options.lastEventId } : {}),
        ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
    });
    if (response.status !== 200 || response.headers.get("content-type") !== "text/event-stream") {
      throw new Error(
        `${path} answered ${response.status} ${response.headers.get("content-type")}: ${await response.text()}`,
      );
    }
    return new SseRecording<TEvent>(response.body as unknown as ReadableStream<Uint8Array>);
  }

  /** The client goes: it stops reading, and its connection is closed. */
  close(): void {
    void this.#reader.cancel().catch(() => undefined);
  }

  /** The whole stream of `path` (it must end by itself: `?follow=false`). */
  static async read<TEvent extends { type: unknown } = SseEvent>(
    host: MiniflareHost,
    path: string,
    options: { lastEventId?: string } = {},
  ): Promise<SseRecording<TEvent>> {
    const recording = await SseRecording.open<TEvent>(host, path, options);
    await recording.waitForEnd();
    return recording;
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value: bytes } = await this.#reader.read();
        if (done) break;
        this.bytes += bytes.byteLength;
        buffer += decoder.decode(bytes, { stream: true });
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop() ?? "";
        for (const block of blocks) this.#block(block);
      }
    } catch {
      // the connection died with workerd
    }
    this.ended = true;
    this.#wake();
  }

  #block(block: string): void {
    this.#pending.push(`${block}\n\n`);
    const id = /^id: (.*)$/m.exec(block)?.[1];
    if (id === undefined) return;
    // A batch is delivered once its id came: the events before an id the client never got are sent again.
    for (const text of this.#pending.splice(0)) {
      this.delivered.push(text);
      const data = /^data: (.*)$/m.exec(text)?.[1];
      if (data !== undefined) this.events.push(JSON.parse(data) as TEvent);
    }
    this.ids.push(id);
    this.lastEventId = id;
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async waitFor(predicate: (events: TEvent[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = AbortSignal.timeout(timeoutMs);
    while (!predicate(this.events)) {
      if (deadline.aborted || this.ended) {
        throw new Error(
          `${this.ended ? "the stream ended" : "timed out"}; got ${this.events.map((event) => event.type).join(", ")}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        deadline.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }

  async waitForEnd(timeoutMs = 30_000): Promise<void> {
    const deadline = AbortSignal.timeout(timeoutMs);
    while (!this.ended) {
      if (deadline.aborted) throw new Error("the stream did not end");
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        deadline.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}
