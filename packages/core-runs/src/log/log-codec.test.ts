import type { UIMessageChunk } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentToolLogEntry } from "../protocol/index.js";
import { decodeLogEntries, encodeLogEntries } from "./log-codec.js";
import { compactRunLog } from "./log-compaction.js";

const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The bench's stub run: text-start, 98 text-deltas of 8 characters, text-end, all in the same millisecond. */
function stubRun(at = 1_764_000_000_000): AgentToolLogEntry[] {
  const bodies: UIMessageChunk[] = [{ type: "text-start", id: "t0" }];
  for (let index = 0; index < 98; index += 1) {
    bodies.push({ type: "text-delta", id: "t0", delta: index.toString(36).padStart(8, "0") });
  }
  bodies.push({ type: "text-end", id: "t0" });
  return bodies.map((body, index) => ({ sequence: index + 1, body, at }));
}

describe("encodeLogEntries / decodeLogEntries", () => {
  it("gives back the bench's stub run, in a tenth of its JSON", () => {
    const entries = stubRun();
    const encoded = encodeLogEntries(entries);
    expect(decodeLogEntries(encoded)).toEqual(entries);
    expect(encoded.length).toBeLessThan(JSON.stringify(entries).length / 8);
    // One string for the 98 deltas, their lengths as one run, and one time for all 100 entries.
    expect(encoded).toContain('"8*98"');
    expect(encoded).toContain('"a":"0*100"');
  });

  it("keeps each delta's own text, part and time across interleaved parts and kinds", () => {
    const entries: AgentToolLogEntry[] = [
      { sequence: 4, body: { type: "text-delta", id: "a", delta: "Hel" }, at: 10 },
      { sequence: 5, body: { type: "text-delta", id: "a", delta: "lo" }, at: 12 },
      { sequence: 6, body: { type: "text-delta", id: "b", delta: "other" }, at: 12 },
      { sequence: 7, body: { type: "text-delta", id: "a", delta: "" }, at: 9 },
      { sequence: 8, body: { type: "reasoning-delta", id: "a", delta: "why" }, at: 30 },
      { sequence: 9, body: { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"q":' }, at: 31 },
      { sequence: 10, body: { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '"x"}' }, at: 31 },
    ];
    expect(decodeLogEntries(encodeLogEntries(entries))).toEqual(entries);
  });

  it("stores whole what it cannot shorten: extra fields, odd times, gaps", () => {
    const entries = [
      { sequence: 1, body: { type: "text-delta", id: "a", delta: "x", providerMetadata: { p: { n: 1 } } }, at: 5 },
      { sequence: 2, body: { type: "text-delta", id: "a", delta: "y" }, at: 5.5 },
      { sequence: 3, body: { type: "text-delta", id: "a", delta: "z" }, at: 6, note: "an envelope field" },
      { sequence: 7, body: { type: "data-agent-milestone", data: { name: "half", at: 9 } }, at: 9 },
      { sequence: 8, body: "a string body", at: 10 },
    ] as unknown as AgentToolLogEntry[];
    expect(decodeLogEntries(encodeLogEntries(entries))).toEqual(entries);
  });

  it("keeps a piece that splits a surrogate pair", () => {
    const entries: AgentToolLogEntry[] = [
      { sequence: 1, body: { type: "text-delta", id: "a", delta: "\ud83d" }, at: 1 },
      { sequence: 2, body: { type: "text-delta", id: "a", delta: "\ude00!" }, at: 1 },
    ];
    expect(decodeLogEntries(encodeLogEntries(entries))).toEqual(entries);
  });

  it("keeps a compacted log's merged deltas and their resets in a form of their own", () => {
    const compacted = compactRunLog(stubRun());
    const encoded = encodeLogEntries(compacted);
    expect(decodeLogEntries(encoded)).toEqual(compacted);
    // The 784 characters of text, and little else: no envelope, no reset body; no more than the full log's.
    expect(encoded.length).toBeLessThan(784 + 160);
    expect(encoded.length).toBeLessThanOrEqual(encodeLogEntries(stubRun()).length);
    expect(encoded).not.toContain("data-agent-step-reset");
    // A text that is the run's summary is not there at all.
    const text = stubRun()
      .flatMap((entry) => (entry.body.type === "text-delta" ? [entry.body.delta] : []))
      .join("");
    const withoutText = compactRunLog(stubRun(), { summary: text });
    expect(decodeLogEntries(encodeLogEntries(withoutText))).toEqual(withoutText);
    expect(encodeLogEntries(withoutText).length).toBeLessThan(160);
  });

  it("round-trips any compacted log", () => {
    const body = fc.oneof(
      fc.record({ type: fc.constant("text-delta"), id: fc.constantFrom("a", "b"), delta: fc.string({ maxLength: 3 }) }),
      fc.record({
        type: fc.constant("text-delta"),
        id: fc.constant("a"),
        delta: fc.string(),
        providerMetadata: fc.jsonValue(),
      }),
      fc.record({ type: fc.constantFrom("text-start", "finish-step"), id: fc.constant("a") }),
      fc.constant({ type: "data-agent-step-reset", data: { fromSequence: 1 }, transient: true }),
    );
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 40 }), (bodies) => {
        const entries = bodies.map((item, index) => ({ sequence: index + 1, body: item, at: 5 + index }));
        const compacted = jsonCopy(compactRunLog(entries as AgentToolLogEntry[]));
        if (compacted.length === 0) return;
        expect(decodeLogEntries(encodeLogEntries(compacted))).toEqual(compacted);
      }),
      { numRuns: 300 },
    );
  });

  it("writes the stored form byte for byte as stores hold it: deltas, parts, times, gaps, whole entries", () => {
    const at = 1_764_000_000_000;
    const entries = [
      { sequence: 3, body: { type: "text-start", id: "t0" }, at },
      { sequence: 4, body: { type: "text-delta", id: "t0", delta: "Hel" }, at },
      { sequence: 5, body: { type: "text-delta", id: "t0", delta: "lo" }, at },
      { sequence: 6, body: { type: "text-delta", id: "t0", delta: "" }, at: at + 2 },
      { sequence: 7, body: { type: "reasoning-delta", id: "t0", delta: "why" }, at: at + 2 },
      { sequence: 9, body: { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"q":' }, at: at + 1 },
      { sequence: 10, body: { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '"x"}' }, at: at + 1 },
      { sequence: 11, body: { type: "text-delta", id: "t0", delta: "x", providerMetadata: { p: 1 } }, at: at + 3 },
      { sequence: 12, body: { type: "text-delta", id: "t0", delta: "y" }, at: at + 3.5 },
      { sequence: 13, body: { type: "text-delta", id: "t0", delta: "z" }, at: at + 4, note: "envelope" },
      { sequence: 14, body: { type: "text-end", id: "t0" }, at: at + 4 },
    ] as unknown as AgentToolLogEntry[];
    expect(encodeLogEntries(entries)).toBe(
      '{"v":1,"s":3,"t":1764000000000,"a":"0*3,2,0,-1,0,2,1","g":[{"type":"text-start","id":"t0"},' +
        '["text-delta","t0","Hello","3,2,0"],["reasoning-delta","t0","why","3"],1,' +
        '["tool-input-delta","c1","{\\"q\\":\\"x\\"}","5,4"],' +
        '{"type":"text-delta","id":"t0","delta":"x","providerMetadata":{"p":1}},' +
        '[0,{"body":{"type":"text-delta","id":"t0","delta":"y"},"at":1764000000003.5}],' +
        '[0,{"body":{"type":"text-delta","id":"t0","delta":"z"},"at":1764000000004,"note":"envelope"}],' +
        '{"type":"text-end","id":"t0"}]}',
    );
    const run: AgentToolLogEntry[] = [{ sequence: 1, body: { type: "text-start", id: "t0" }, at: 5 }];
    for (let index = 0; index < 6; index += 1) {
      run.push({ sequence: index + 2, body: { type: "text-delta", id: "t0", delta: `d${index}` }, at: 5 });
    }
    run.push({ sequence: 8, body: { type: "text-end", id: "t0" }, at: 6 });
    expect(encodeLogEntries(compactRunLog(run))).toBe(
      '{"v":1,"s":1,"t":5,"a":"0*3,1","g":[{"type":"text-start","id":"t0"},4,[2,"text-delta","t0","d0d1d2d3d4d5",2,2],' +
        '{"type":"text-end","id":"t0"}]}',
    );
  });

  it("reads the plain JSON arrays stores wrote before", () => {
    const entries = stubRun().slice(0, 5);
    expect(decodeLogEntries(JSON.stringify(entries))).toEqual(entries);
  });

  it("refuses what it cannot encode or decode", () => {
    expect(() => encodeLogEntries([])).toThrow(RangeError);
    const [first, second] = stubRun();
    expect(() => encodeLogEntries([second as AgentToolLogEntry, first as AgentToolLogEntry])).toThrow(/ascending/);
    expect(() => decodeLogEntries('{"v":2}')).toThrow(RangeError);
    expect(() => decodeLogEntries("not json")).toThrow(SyntaxError);
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"x","g":[]}')).toThrow(/number list/);
    // A malformed time past the last entry's, and a piece's length, are refused too (not skipped).
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"0,1*x","g":[{"type":"text-start","id":"a"}]}')).toThrow(
      /number list/,
    );
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"0*2","g":[["text-delta","a","xy","1,y"]]}')).toThrow(
      /number list/,
    );
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"0","g":[{"type":"text-start","id":"a"}]}')).not.toThrow();
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"","g":[{"type":"text-start","id":"a"}]}')).toThrow(
      /fewer times/,
    );
  });

  it("refuses a stored delta segment of a type that is not a delta's, with a RangeError", () => {
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"0","g":[["text-start","a","x","1"]]}')).toThrow(RangeError);
    expect(() => decodeLogEntries('{"v":1,"s":1,"t":0,"a":"0","g":[[1,"bogus","a","x",1,1]]}')).toThrow(RangeError);
  });

  it("round-trips any log: random bodies, parts, times, envelopes and gaps", () => {
    const delta = fc.oneof(
      fc.record({
        type: fc.constantFrom("text-delta", "reasoning-delta"),
        id: fc.constantFrom("a", "b"),
        delta: fc.string({ unit: "binary", maxLength: 6 }),
      }),
      fc.record({
        type: fc.constant("tool-input-delta"),
        toolCallId: fc.constantFrom("c1", "c2"),
        inputTextDelta: fc.string({ maxLength: 6 }),
      }),
    );
    const other = fc.oneof(
      fc.record({ type: fc.constantFrom("text-start", "text-end", "start-step", "finish-step"), id: fc.string() }),
      fc.record({ type: fc.constant("text-delta"), id: fc.constant("a"), delta: fc.string(), extra: fc.jsonValue() }),
      fc.record({ type: fc.constant("data-agent-milestone"), data: fc.jsonValue() }),
      fc.jsonValue(),
    );
    const entry = fc.record({
      gap: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(3)),
      body: fc.oneof(delta, delta, other),
      at: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
      extra: fc.option(fc.jsonValue(), { freq: 8 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(entry, { minLength: 1, maxLength: 40 }),
        (start, drawn) => {
          let sequence = start - 1;
          let at = 1_764_000_000_000;
          const entries = drawn.map((item) => {
            sequence += 1 + item.gap;
            at += Number.isInteger(item.at) ? item.at : 0;
            const time = Number.isInteger(item.at) ? at : item.at;
            return {
              sequence,
              body: item.body,
              at: time,
              ...(item.extra !== null ? { extra: item.extra } : {}),
            } as AgentToolLogEntry;
          });
          const expected = jsonCopy(entries);
          expect(decodeLogEntries(encodeLogEntries(expected))).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
