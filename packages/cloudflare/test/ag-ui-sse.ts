// Reading a parent's AG-UI stream (GET/POST …/ag-ui) in the workerd tests: one SSE connection recorded as it comes,
// and a recorded text checked by @ag-ui/client's own SSE parsing and verification and @ag-ui/core's schemas.
import { transformHttpEventStream, verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { from, lastValueFrom, toArray } from "rxjs";
import { expect } from "vitest";

/** One SSE connection, read as it comes: its complete events (`data:` parsed) and the id each batch ended with. */
export class SseRecording {
  /** The raw text of every complete event block, up to and including the last one that carried an id. */
  readonly delivered: string[] = [];
  readonly events: BaseEvent[] = [];
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
  static async open(
    host: MiniflareHost,
    path: string,
    options: { lastEventId?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<SseRecording> {
    const response = await host.fetch(path, {
      ...(options.body !== undefined ? { method: "POST", body: JSON.stringify(options.body) } : {}),
      headers: {
        ...(options.lastEventId ? { "Last-Event-ID": options.lastEventId } : {}),
        ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
        ...options.headers,
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    return new SseRecording(response.body as unknown as ReadableStream<Uint8Array>);
  }

  /** The client goes: it stops reading, and its connection is closed. */
  close(): void {
    void this.#reader.cancel().catch(() => undefined);
  }

  /** The whole stream of `path` (it must end by itself: `?follow=false`). */
  static async read(host: MiniflareHost, path: string, options: { lastEventId?: string } = {}): Promise<SseRecording> {
    const recording = await SseRecording.open(host, path, options);
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
      if (data !== undefined) this.events.push(JSON.parse(data) as BaseEvent);
    }
    this.ids.push(id);
    this.lastEventId = id;
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async waitFor(predicate: (events: BaseEvent[]) => boolean, timeoutMs = 30_000): Promise<void> {
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

/**
 * A recorded SSE text through @ag-ui/client's own SSE parsing and event verification (`verifyEvents`), and every event
 * through @ag-ui/core's schemas; resolves the events.
 */
export async function verifyRecorded(sse: string): Promise<BaseEvent[]> {
  const bytes = new TextEncoder().encode(sse);
  const parsed = await lastValueFrom(
    // Emitted asynchronously, as a response body is (the client's parser drops what a synchronous source emits).
    transformHttpEventStream(
      from(
        (async function* () {
          yield { type: "headers", status: 200, headers: new Headers({ "content-type": "text/event-stream" }) };
          yield { type: "data", data: bytes };
        })() as never,
      ),
    ).pipe(verifyEvents(false), toArray()),
  );
  for (const event of parsed) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return parsed;
}

/** Every event of a recording, verified (see `verifyRecorded`). */
export const verified = (recording: SseRecording) => verifyRecorded(recording.delivered.join(""));

export const ofType = <T extends BaseEvent = BaseEvent & Record<string, unknown>>(events: BaseEvent[], type: string) =>
  events.filter((event) => event.type === type) as T[];
