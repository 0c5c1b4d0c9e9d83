import { type BaseEvent, EventType } from "@ag-ui/core";
import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { MemoryAgUiResumeStore, parseAgUiEventId } from "./cursor.js";
import { AgUiProjection } from "./projection.js";
import type { AgUiSource } from "./sources.js";
import { agUiEventStream } from "./sse.js";
import { checkAgUiStream, childRun, recordTurn } from "./test-support.test-utils.js";

/** A parent as the stream sees it: what it holds (replayed whole, in order), and live sources told to followers. */
class FakeParent {
  readonly held: AgUiSource[] = [];
  readonly #followers = new Set<(source: AgUiSource) => void>();

  say(source: AgUiSource): void {
    this.held.push(source);
    for (const follower of this.#followers) follower(source);
  }

  listen(follower: (source: AgUiSource) => void): () => void {
    this.#followers.add(follower);
    return () => this.#followers.delete(follower);
  }

  stream(options: { cursor?: string; store: MemoryAgUiResumeStore; follow?: boolean }) {
    return agUiEventStream({
      threadId: "thread-1",
      cursor: options.cursor ?? null,
      store: options.store,
      replay: (push) => {
        for (const source of this.held) push(source);
      },
      ...(options.follow === false ? {} : { follow: (push: (source: AgUiSource) => void) => this.listen(push) }),
    });
  }
}

/** Read an SSE stream as it comes: its text, its events and ids, in order. */
class Reader {
  text = "";
  readonly events: BaseEvent[] = [];
  readonly ids: string[] = [];
  /** The text up to and including the last id (what a client that stops there holds). */
  delivered = "";
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Read until the stream ends. */
  async read(): Promise<this> {
    return this.readUntil(() => false);
  }

  /** Read until `done` holds (or the stream ends). */
  async readUntil(done: (reader: this) => boolean): Promise<this> {
    while (!done(this)) {
      const result = await this.#reader.read();
      if (result.done) return this;
      this.#take(result);
    }
    return this;
  }

  #take(result: ReadableStreamReadResult<Uint8Array>): void {
    if (result.done) return;
    this.#buffer += this.#decoder.decode(result.value, { stream: true });
    const blocks = this.#buffer.split("\n\n");
    this.#buffer = blocks.pop() ?? "";
    for (const block of blocks) {
      this.text += `${block}\n\n`;
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined) this.events.push(JSON.parse(data) as BaseEvent);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      if (id !== undefined) {
        this.ids.push(id);
        this.delivered = this.text;
      }
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

const eventsOf = (text: string): BaseEvent[] =>
  text.split("\n\n").flatMap((block) => {
    const data = /^data: (.*)$/m.exec(block)?.[1];
    return data === undefined ? [] : [JSON.parse(data) as BaseEvent];
  });

describe("agUiEventStream", () => {
  it("marks the replay, then each live batch, with a position of constant size", async () => {
    const parent = new FakeParent();
    for (let index = 0; index < 30; index += 1) {
      for (const frame of childRun(`run-${index}`, { text: `text ${index}` })) parent.say(frame);
    }
    const store = new MemoryAgUiResumeStore();
    const reader = await new Reader(parent.stream({ store, follow: false })).read();
    await checkAgUiStream(reader.events);
    // One id for the whole replay (the runs ended in it: nothing is left to close).
    expect(reader.ids).toHaveLength(1);
    for (const id of reader.ids) expect(id.length).toBeLessThanOrEqual(40);
    expect(parseAgUiEventId(reader.ids[0])).toMatchObject({ batch: 1 });
  });

  it("goes on exactly from any position it kept: the two connections are one valid stream", async () => {
    const { sources } = await recordTurn();
    const expected = (() => {
      const projection = new AgUiProjection({ threadId: "thread-1" });
      return sources.flatMap((source) => projection.push(source));
    })();
    for (let cut = 1; cut < sources.length; cut += 1) {
      const parent = new FakeParent();
      const store = new MemoryAgUiResumeStore();
      const before = (() => {
        const projection = new AgUiProjection({ threadId: "thread-1" });
        return sources.slice(0, cut).flatMap((source) => projection.push(source));
      })();
      const first = new Reader(parent.stream({ store }));
      for (const source of sources.slice(0, cut)) parent.say(source);
      await first.readUntil((reader) => reader.events.length >= before.length);
      await first.cancel();
      const second = new Reader(parent.stream({ store, cursor: first.ids.at(-1) ?? "" }));
      for (const source of sources.slice(cut)) parent.say(source);
      // What the client holds is what came up to the last id it got.
      const held = eventsOf(first.delivered).length;
      await second.readUntil((reader) => reader.events.length >= expected.length - held);
      await second.cancel();
      const events = eventsOf(first.delivered + second.text);
      await checkAgUiStream(events);
      expect(events).toEqual(expected);
    }
  });

  it("starts over from a position it does not keep (forged, or forgotten): an empty MESSAGES_SNAPSHOT, then the whole stream, no more", async () => {
    const { sources } = await recordTurn();
    const parent = new FakeParent();
    for (const source of sources) parent.say(source);
    const store = new MemoryAgUiResumeStore({ maxStreams: 1, batchesPerStream: 1 });
    const full = await new Reader(parent.stream({ store, follow: false })).read();
    const forgotten = full.ids[0] ?? "";
    // Another stream pushes the first out of a store that keeps one.
    await new Reader(parent.stream({ store, follow: false })).read();
    for (const cursor of [forgotten, "agui2.nosuchstream.3", "agui1.eyJmb3JnZWQiOnRydWV9", "garbage"]) {
      const again = await new Reader(parent.stream({ store, cursor, follow: false })).read();
      await checkAgUiStream(again.events);
      expect(again.events[1]).toEqual({ type: EventType.MESSAGES_SNAPSHOT, messages: [] });
      expect(again.events.filter((event) => event.type !== EventType.MESSAGES_SNAPSHOT)).toEqual(full.events);
      expect(again.text.length).toBeLessThanOrEqual(full.text.length + 100);
    }
  });

  it("a run the client asks for: the replay is not sent, the run starts after it, and the stream ends with it", async () => {
    const { sources } = await recordTurn();
    const ended = sources.length - 1;
    const parent = new FakeParent();
    // Everything up to the turn's end is held by the client; the turn then ends while the run is open.
    for (const source of sources.slice(0, ended)) parent.say(source);
    let started = 0;
    const stream = agUiEventStream({
      threadId: "thread-1",
      replay: (push) => {
        for (const source of parent.held) push(source);
      },
      follow: (push) => parent.listen(push),
      run: {
        runId: "client-run",
        start: () => {
          started += 1;
          parent.say(sources[ended] as AgUiSource);
        },
      },
    });
    const reader = await new Reader(stream).read();
    expect(started).toBe(1);
    await checkAgUiStream(reader.events);
    expect(reader.events.map((event) => event.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
    expect(reader.events[0]).toMatchObject({ runId: "client-run" });
  });

  it("keeps a followed stream alive with a comment every heartbeat, and ends it at its longest (the client goes on by id)", async () => {
    const parent = new FakeParent();
    const clock = new ManualClock(0);
    const stream = agUiEventStream({
      threadId: "thread-1",
      replay: () => undefined,
      follow: (push) => parent.listen(push),
      keepAlive: { clock, heartbeatMs: 1_000, maxDurationMs: 2_500 },
    });
    const reader = new Reader(stream);
    const read = reader.read();
    await clock.advanceBy(2_500);
    await read;
    expect(reader.text).toBe(":\n\n:\n\n");
  });
});
