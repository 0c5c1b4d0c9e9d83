// Property-based tests of the wire frame parser (issue 10): it never throws, whatever it accepts survives a round
// trip through `encodeAgentToolFrame`, and sequences / revisions are accepted only as positive safe integers.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AGENT_TOOL_INTERRUPTED_REASONS } from "./failure.js";
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEventFrame, encodeAgentToolFrame } from "./frames.js";
import { parseAgentToolFrame } from "./parse-frame.js";

/**
 * CPU-heavy (thousands of generated values): a time budget of its own. vitest's five-second default is for unit tests,
 * and a busy machine runs this several times slower than an idle one; the budget still ends a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

const RUNS = { numRuns: 500 };

/** A value of any JSON-compatible shape, or something JSON cannot carry. */
const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.anything() },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, Number.NaN, Infinity, -0, 0, 1, -1, 2 ** 53, 1.5) },
);

/** Sometimes a well-typed value, sometimes anything: the parser must sort them out. */
const maybe = <T>(good: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: anyValue });

const kinds = fc.constantFrom("started", "chunk", "finished", "error", "aborted", "interrupted", "cleared", "bogus");
const goodBody = fc.oneof(
  fc.record({ type: fc.constantFrom("text-delta", "start", "finish"), id: fc.string(), delta: fc.string() }),
  fc.record({ type: fc.constant("data-agent-progress"), data: fc.jsonValue(), transient: fc.constant(true) }),
  fc.jsonValue().map((value) => JSON.stringify({ type: "text-delta", id: "t", delta: value })),
);

/** An event object with the right kind most of the time and fields of any quality. */
const nearEvent = fc.record(
  {
    kind: maybe(kinds),
    runId: maybe(fc.string()),
    runIds: maybe(fc.array(fc.string())),
    agentType: maybe(fc.string()),
    displayOrder: maybe(fc.integer()),
    inputPreview: maybe(fc.string()),
    display: maybe(fc.dictionary(fc.string(), fc.jsonValue())),
    startedAt: maybe(fc.nat()),
    completedAt: maybe(fc.nat()),
    body: maybe(goodBody),
    summary: maybe(fc.string()),
    output: fc.jsonValue(),
    error: maybe(fc.string()),
    reason: maybe(fc.constantFrom(...AGENT_TOOL_INTERRUPTED_REASONS)),
    childStillRunning: maybe(fc.boolean()),
  },
  { requiredKeys: [] },
);

/** A frame object with the right `type` and fields of any quality. */
const nearFrame = fc.record(
  {
    type: fc.oneof({ weight: 9, arbitrary: fc.constant(AGENT_TOOL_EVENT_TYPE) }, { weight: 1, arbitrary: anyValue }),
    parentToolCallId: maybe(fc.string()),
    sequence: maybe(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
    revision: maybe(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
    replay: maybe(fc.constant(true)),
    event: maybe(nearEvent),
  },
  { requiredKeys: ["type"] },
);

/** JSON text of anything, or text that is not quite JSON. */
const anyText = fc.oneof(
  fc.string(),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  nearFrame.map((value) => JSON.stringify(value) ?? ""),
  nearFrame.map((value) => (JSON.stringify(value) ?? "").slice(0, -1)),
);

function expectNeverThrows(input: unknown) {
  let result: ReturnType<typeof parseAgentToolFrame> | undefined;
  expect(() => {
    result = parseAgentToolFrame(input);
  }).not.toThrow();
  expect(result).toBeDefined();
  if (result && !result.ok) expect(typeof result.error).toBe("string");
}

/** Whatever the parser accepts is a frame that encodes and parses back to itself. */
function expectRoundTrip(frame: AgentToolEventFrame) {
  const text = encodeAgentToolFrame(frame);
  const again = parseAgentToolFrame(text);
  expect(again.ok).toBe(true);
  if (!again.ok) return;
  // Compared as JSON: JSON itself cannot tell -0 from 0 or keep `undefined`, which is not the parser's doing.
  expect(JSON.parse(encodeAgentToolFrame(again.frame))).toEqual(JSON.parse(text));
  expect(again.frame).toEqual(JSON.parse(text));
  // A fixed point: one more round changes nothing.
  expect(encodeAgentToolFrame(again.frame)).toBe(text);
}

function expectWellFormed(frame: AgentToolEventFrame) {
  expect(frame.type).toBe(AGENT_TOOL_EVENT_TYPE);
  if (frame.sequence !== undefined) {
    expect(Number.isSafeInteger(frame.sequence) && frame.sequence >= 1).toBe(true);
  }
  if (frame.revision !== undefined) {
    expect(Number.isSafeInteger(frame.revision) && frame.revision >= 1).toBe(true);
  }
  if (frame.event.kind === "cleared") {
    expect(frame.event.runIds.every((runId) => typeof runId === "string" && runId.length > 0)).toBe(true);
  } else {
    expect(typeof frame.event.runId).toBe("string");
    expect(frame.event.runId.length).toBeGreaterThan(0);
  }
  if (frame.event.kind === "chunk") expect(typeof frame.event.body.type).toBe("string");
}

describe("parseAgentToolFrame (properties)", CPU_HEAVY, () => {
  it("never throws on arbitrary values", () => {
    fc.assert(fc.property(fc.anything(), expectNeverThrows), RUNS);
  });

  it("never throws on arbitrary strings and JSON text", () => {
    fc.assert(fc.property(anyText, expectNeverThrows), RUNS);
  });

  it("never throws on objects with the right type and fields of any quality, parsed or as text", () => {
    fc.assert(
      fc.property(nearFrame, (raw) => {
        expectNeverThrows(raw);
        const text = JSON.stringify(raw);
        if (text !== undefined) expectNeverThrows(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws on hostile objects (throwing getters, proxies, null prototypes)", () => {
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
        has() {
          throw new Error("trap");
        },
      },
    );
    const hostile: unknown[] = [
      throwing,
      { type: AGENT_TOOL_EVENT_TYPE, event: throwing },
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "finished", runId: "r", summary: throwing } },
      Object.assign(Object.create(null), { type: AGENT_TOOL_EVENT_TYPE, event: Object.create(null) }),
      {
        type: AGENT_TOOL_EVENT_TYPE,
        get sequence() {
          throw new Error("getter");
        },
        event: { kind: "chunk", runId: "r", body: { type: "start" } },
      },
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: Symbol("kind"), runId: "r" } },
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "chunk", runId: "r", body: { type: 1n } } },
    ];
    // A plain loop: fast-check itself would trip over the proxy when cloning it.
    for (const value of hostile) expectNeverThrows(value);
  });

  it("whatever it accepts (as an object) is well formed and round-trips through encodeAgentToolFrame", () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearFrame, (raw) => {
        // Only JSON-compatible objects can be encoded; `fc.anything` fields (functions, bigints) may not be.
        const text = JSON.stringify(raw);
        const result = parseAgentToolFrame(text === undefined ? raw : JSON.parse(text));
        if (!result.ok) return;
        accepted += 1;
        expectWellFormed(result.frame);
        expectRoundTrip(result.frame);
      }),
      { numRuns: 3000 },
    );
    // The generator must reach the accepting paths, or the property says nothing.
    expect(accepted).toBeGreaterThan(100);
  });

  it("whatever it accepts (as JSON text) round-trips to an equal frame", () => {
    fc.assert(
      fc.property(nearFrame, (raw) => {
        const text = JSON.stringify(raw);
        if (text === undefined) return;
        const result = parseAgentToolFrame(text);
        if (!result.ok) return;
        expectWellFormed(result.frame);
        expectRoundTrip(result.frame);
      }),
      { numRuns: 2000 },
    );
  });

  const validBase = {
    type: AGENT_TOOL_EVENT_TYPE,
    event: { kind: "chunk", runId: "run-1", body: { type: "text-delta", id: "t", delta: "x" } },
  };

  it("accepts sequences and revisions only as positive safe integers", () => {
    const candidate = fc.oneof(
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.integer({ min: -1000, max: 0 }),
      fc.double(),
      fc.constantFrom<unknown>(
        -0,
        0.5,
        1.0000001,
        Number.MAX_SAFE_INTEGER + 1,
        2 ** 64,
        Infinity,
        -Infinity,
        Number.NaN,
        "1",
        "3",
        true,
        [1],
        { value: 1 },
        1n,
      ),
      anyValue,
    );
    fc.assert(
      fc.property(candidate, fc.constantFrom("sequence", "revision"), (value, field) => {
        const result = parseAgentToolFrame({ ...validBase, [field]: value });
        const positiveSafe = typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
        const absent = value === undefined || value === null;
        if (positiveSafe) {
          expect(result).toMatchObject({ ok: true, frame: { [field]: value } });
        } else if (absent) {
          expect(result.ok).toBe(true);
          if (result.ok) expect(field in result.frame).toBe(false);
        } else {
          expect(result.ok).toBe(false);
        }
        // Through the wire too (when the value has a JSON form).
        const text = JSON.stringify({ ...validBase, [field]: value }, (_key, item) =>
          typeof item === "bigint" ? undefined : item,
        );
        const viaText = parseAgentToolFrame(text);
        if (viaText.ok) {
          const carried = viaText.frame[field as "sequence" | "revision"];
          if (carried !== undefined) expect(Number.isSafeInteger(carried) && carried >= 1).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
