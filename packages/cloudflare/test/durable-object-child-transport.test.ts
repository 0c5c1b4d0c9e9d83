import { fileURLToPath } from "node:url";
import type { AgentToolTailItem } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { fromNdjson, toNdjson, toNdjsonAnswer } from "../src/adapters/ndjson.js";
import { fromNdjsonTail, MAX_ANSWER_CHARS, toNdjsonTail, toNdjsonTailAnswer } from "../src/adapters/ndjson-tail.js";
import { CONTRACT_WORKER_DURABLE_OBJECTS, type ScopingResult } from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

// The ChildTransport contract runs in contract-suites.test.ts.
const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

describe("DurableObjectChildTransport scoping", () => {
  it("two parents starting the same runId reach two different child objects", async () => {
    const { parents } = await worker().fetchJson<ScopingResult>("/transport/scoping", { method: "POST" });
    expect(parents).toHaveLength(2);
    const [a, b] = parents;
    expect(a?.parentId).not.toEqual(b?.parentId);
    // Each parent's child ran its own first start (a shared child would have ignored the second start).
    expect(a?.deltas).toEqual(["from ", "parent ", "A"]);
    expect(b?.deltas).toEqual(["from ", "parent ", "B"]);
    expect(a?.deltas).not.toEqual(b?.deltas);
    expect(a).toMatchObject({ status: "completed", summary: "from parent A" });
    expect(b).toMatchObject({ status: "completed", summary: "from parent B" });
  });
});

describe("NDJSON codec (Node)", () => {
  const encoder = new TextEncoder();

  /** A byte stream that yields `bytes` cut at the given offsets. */
  function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
    const bounds = [0, ...cuts.filter((cut) => cut > 0 && cut < bytes.length).sort((x, y) => x - y), bytes.length];
    const pieces = bounds.slice(1).map((end, index) => bytes.slice(bounds[index], end));
    return new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
  }

  function streamOf<T>(values: T[]): ReadableStream<T> {
    return new ReadableStream<T>({
      start(controller) {
        for (const value of values) controller.enqueue(value);
        controller.close();
      },
    });
  }

  async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
    const reader = stream.getReader();
    const values: T[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return values;
      values.push(value);
    }
  }

  async function concatBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
    const parts = await readAll(stream);
    const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    return bytes;
  }

  /** A source of `{ n: 1 }` … `{ n: count }`, then the error "source broke". */
  function failingAfter(count: number): ReadableStream<unknown> {
    let pulls = 0;
    return new ReadableStream<unknown>({
      pull(controller) {
        pulls += 1;
        if (pulls > count) throw new Error("source broke");
        controller.enqueue({ n: pulls });
      },
    });
  }

  const values: unknown[] = [
    { type: "entries", entries: [{ sequence: 1, body: { type: "text-delta", delta: "héllo wörld — 日本語 🎉" } }] },
    { type: "progress", fraction: 0.5, note: "line\nbreak inside a string" },
    null,
    42,
    "plain string",
    [1, [2, [3]], { deep: { deeper: true } }],
    { type: "terminal", inspection: { status: "completed", summary: "🎉🎉" } },
  ];

  it("round-trips values through toNdjson → fromNdjson", async () => {
    expect(await readAll(fromNdjson(toNdjson(streamOf(values))))).toEqual(values);
  });

  it("decodes values split across every chunk boundary, one byte at a time and at random cuts", async () => {
    const bytes = await concatBytes(toNdjson(streamOf(values)));
    expect(new TextDecoder().decode(bytes).split("\n")).toHaveLength(values.length + 1);

    // Every byte its own chunk: each value and every multi-byte character crosses boundaries.
    const everyByte = Array.from({ length: bytes.length }, (_, index) => index);
    expect(await readAll(fromNdjson(chunked(bytes, everyByte)))).toEqual(values);

    // Deterministic pseudo-random cuts (several patterns).
    let seed = 12_345;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 25; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 20) }, () => Math.floor(random() * bytes.length));
      expect(await readAll(fromNdjson(chunked(bytes, cuts)))).toEqual(values);
    }
  });

  it("decodes a multi-byte UTF-8 character split mid-character", async () => {
    const value = { text: "a€b🎉c" };
    const bytes = encoder.encode(`${JSON.stringify(value)}\n`);
    const euro = bytes.indexOf(0xe2); // "€" is E2 82 AC
    const party = bytes.indexOf(0xf0); // "🎉" is F0 9F 8E 89
    expect(euro).toBeGreaterThan(0);
    expect(party).toBeGreaterThan(euro);
    for (const cuts of [[euro + 1], [euro + 2], [party + 1], [party + 2], [party + 3], [euro + 1, party + 2]]) {
      expect(await readAll(fromNdjson(chunked(bytes, cuts)))).toEqual([value]);
    }
  });

  it("decodes a last line without a trailing newline, and skips blank lines", async () => {
    const bytes = encoder.encode('{"a":1}\n\n  \n{"b":2}\n{"c":3}');
    expect(await readAll(fromNdjson(chunked(bytes, [3, 9, 14])))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it("errors the stream on a malformed line, after the values before it", async () => {
    const bytes = encoder.encode('{"ok":1}\n{"broken":\n{"ok":2}\n');
    const reader = fromNdjson(chunked(bytes, [5, 12])).getReader();
    expect(await reader.read()).toEqual({ done: false, value: { ok: 1 } });
    await expect(reader.read()).rejects.toThrow(SyntaxError);
    // The stream is errored now: further reads reject too.
    await expect(reader.read()).rejects.toThrow();
  });

  it("errors the stream on a malformed last line without a newline", async () => {
    const reader = fromNdjson(chunked(encoder.encode('{"ok":1}\n{"trunc'), [4])).getReader();
    expect(await reader.read()).toEqual({ done: false, value: { ok: 1 } });
    await expect(reader.read()).rejects.toThrow(SyntaxError);
  });

  /** An endless source that records when it is cancelled and why. */
  function endlessSource<T>(next: (index: number) => T) {
    const state = { pulled: 0, cancelled: false, reason: undefined as unknown };
    const stream = new ReadableStream<T>(
      {
        pull(controller) {
          controller.enqueue(next(state.pulled++));
        },
        cancel(reason) {
          state.cancelled = true;
          state.reason = reason;
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  it("cancelling the decoded stream cancels the byte source", async () => {
    const source = endlessSource((index) => encoder.encode(`{"n":${index}}\n`));
    const reader = fromNdjson<{ n: number }>(source.stream).getReader();
    expect((await reader.read()).value).toEqual({ n: 0 });
    expect((await reader.read()).value).toEqual({ n: 1 });
    expect(source.state.cancelled).toBe(false);
    await reader.cancel("enough");
    expect(source.state).toMatchObject({ cancelled: true, reason: "enough" });
  });

  it("cancelling the encoded stream cancels the value source", async () => {
    const source = endlessSource((index) => ({ n: index }));
    const reader = toNdjson(source.stream).getReader();
    const first = await reader.read();
    // Values already queued go out together in one byte chunk.
    expect(new TextDecoder().decode(first.value).startsWith('{"n":0}\n{"n":1}\n')).toBe(true);
    await reader.cancel("stop");
    expect(source.state).toMatchObject({ cancelled: true, reason: "stop" });
  });

  it("cancelling through both codecs reaches the original source", async () => {
    const source = endlessSource((index) => ({ n: index }));
    const reader = fromNdjson<{ n: number }>(toNdjson(source.stream)).getReader();
    expect((await reader.read()).value).toEqual({ n: 0 });
    await reader.cancel("done");
    expect(source.state).toMatchObject({ cancelled: true, reason: "done" });
  });

  const tailItems: AgentToolTailItem[] = [
    { type: "entries", entries: [{ sequence: 1, body: { type: "text-start", id: "t" }, at: 7 }] },
    {
      type: "entries",
      entries: Array.from({ length: 40 }, (_, index) => ({
        sequence: index + 2,
        body: { type: "text-delta" as const, id: "t", delta: `w${index} — 🎉` },
        at: 7 + Math.floor(index / 10),
      })),
    },
    { type: "terminal", inspection: { status: "completed", summary: "done" } } as unknown as AgentToolTailItem,
  ];

  it("a child's tail crosses with each burst encoded once, and reads back as the items it sent", async () => {
    const sent = await concatBytes(toNdjsonTail(streamOf(tailItems)));
    expect(new TextDecoder().decode(sent)).not.toContain('"sequence"');
    const tail = fromNdjsonTail(Promise.resolve(chunked(sent, [5, 100, 101, 300])), undefined);
    expect(await readAll(tail)).toEqual(tailItems);
  });

  it("a child's tail reads back whatever bytes its chunks are cut at: every byte, mid-character, a last line alone", async () => {
    const sent = await concatBytes(toNdjsonTail(streamOf(tailItems)));
    const everyByte = Array.from({ length: sent.length }, (_, index) => index);
    expect(await readAll(fromNdjsonTail(Promise.resolve(chunked(sent, everyByte)), undefined))).toEqual(tailItems);
    const party = sent.indexOf(0xf0); // "🎉" is F0 9F 8E 89
    for (const cut of [party + 1, party + 2, party + 3]) {
      expect(await readAll(fromNdjsonTail(Promise.resolve(chunked(sent, [cut])), undefined))).toEqual(tailItems);
    }
    // The last line without its newline (a child that ended its stream there).
    const unterminated = sent.slice(0, sent.length - 1);
    expect(await readAll(fromNdjsonTail(Promise.resolve(chunked(unterminated, [7])), undefined))).toEqual(tailItems);
  });

  it("reads tails and NDJSON streams without a TextDecoder of their own (making one is slow in workerd)", async () => {
    const made = { decoders: 0 };
    const Original = globalThis.TextDecoder;
    globalThis.TextDecoder = class extends Original {
      constructor(...args: ConstructorParameters<typeof TextDecoder>) {
        super(...args);
        made.decoders += 1;
      }
    };
    try {
      const sent = await concatBytes(toNdjsonTail(streamOf(tailItems)));
      for (let index = 0; index < 3; index += 1) {
        expect(await readAll(fromNdjsonTail(Promise.resolve(chunked(sent, [9])), undefined))).toEqual(tailItems);
        expect(await readAll(fromNdjson(toNdjson(streamOf(values))))).toEqual(values);
      }
    } finally {
      globalThis.TextDecoder = Original;
    }
    expect(made.decoders).toBe(0);
  });

  it("an ended tail is answered as one Uint8Array: the bytes its stream would carry, read back as the same items", async () => {
    const answer = await toNdjsonTailAnswer(streamOf(tailItems));
    expect(answer).toBeInstanceOf(Uint8Array);
    expect(answer).toEqual(await concatBytes(toNdjsonTail(streamOf(tailItems))));
    expect(await readAll(fromNdjsonTail(Promise.resolve(answer), undefined))).toEqual(tailItems);
  });

  it("a tail still going when it answers is a stream: what was at hand first, then the rest as it comes", async () => {
    let controller!: ReadableStreamDefaultController<AgentToolTailItem>;
    const live = new ReadableStream<AgentToolTailItem>({
      start(c) {
        controller = c;
        c.enqueue(tailItems[0] as AgentToolTailItem);
      },
    });
    const answer = await toNdjsonTailAnswer(live);
    expect(answer).toBeInstanceOf(ReadableStream);
    const items = readAll(fromNdjsonTail(Promise.resolve(answer), undefined));
    controller.enqueue(tailItems[1] as AgentToolTailItem);
    controller.enqueue(tailItems[2] as AgentToolTailItem);
    controller.close();
    expect(await items).toEqual(tailItems);
  });

  it("a tail with nothing at hand yet is a stream from its first item", async () => {
    let controller!: ReadableStreamDefaultController<AgentToolTailItem>;
    const answer = await toNdjsonTailAnswer(
      new ReadableStream<AgentToolTailItem>({
        start(c) {
          controller = c;
        },
      }),
    );
    expect(answer).toBeInstanceOf(ReadableStream);
    const items = readAll(fromNdjsonTail(Promise.resolve(answer), undefined));
    for (const item of tailItems) controller.enqueue(item);
    controller.close();
    expect(await items).toEqual(tailItems);
  });

  it("an ended tail longer than one answer carries goes as a stream of the same bytes", async () => {
    const entry = (sequence: number) => ({
      sequence,
      body: { type: "text-delta" as const, id: "t", delta: "x".repeat(1_000) },
      at: 7,
    });
    const long: AgentToolTailItem[] = Array.from({ length: Math.ceil(MAX_ANSWER_CHARS / 1_000) + 10 }, (_, index) => ({
      type: "entries",
      entries: [entry(index + 1)],
    }));
    long.push(tailItems[2] as AgentToolTailItem);
    const answer = await toNdjsonTailAnswer(streamOf(long));
    expect(answer).toBeInstanceOf(ReadableStream);
    const bytes = await concatBytes(answer as ReadableStream<Uint8Array>);
    expect(bytes).toEqual(await concatBytes(toNdjsonTail(streamOf(long))));
  });

  it("a source that fails while its answer is made: what came before it, then the failure, as a stream would tell it", async () => {
    const answer = await toNdjsonAnswer(failingAfter(2), JSON.stringify, MAX_ANSWER_CHARS);
    expect(answer).toBeInstanceOf(ReadableStream);
    const reader = fromNdjson<{ n: number }>(answer as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).value).toEqual({ n: 1 });
    expect((await reader.read()).value).toEqual({ n: 2 });
    await expect(reader.read()).rejects.toThrow("source broke");
  });

  it("a source that fails mid-stream: the lines read before it go out, then the failure", async () => {
    const reader = fromNdjson<{ n: number }>(toNdjson(failingAfter(3))).getReader();
    for (const n of [1, 2, 3]) expect((await reader.read()).value).toEqual({ n });
    await expect(reader.read()).rejects.toThrow("source broke");
  });

  it("a malformed answer of bytes errors the tail (the parent reads it as a broken tail and tails again)", async () => {
    const good = new TextDecoder().decode(await concatBytes(toNdjsonTail(streamOf(tailItems.slice(0, 1)))));
    const answer = new TextEncoder().encode(`${good}{"type":"entries",\n`);
    await expect(readAll(fromNdjsonTail(Promise.resolve(answer), undefined))).rejects.toThrow(SyntaxError);
  });

  it("a tail in the form sent before (whole entries, from a child running older code) still reads", async () => {
    const tail = fromNdjsonTail(Promise.resolve(toNdjson(streamOf(tailItems))), undefined);
    expect(await readAll(tail)).toEqual(tailItems);
  });
});
