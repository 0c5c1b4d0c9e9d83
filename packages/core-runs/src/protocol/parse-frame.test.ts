import { describe, expect, it } from "vitest";
import {
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolEvent,
  type AgentToolEventFrame,
  encodeAgentToolFrame,
} from "./frames.js";
import { parseAgentToolFrame } from "./parse-frame.js";

const frame = (event: AgentToolEvent, extra: Partial<AgentToolEventFrame> = {}): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  ...extra,
  event,
});

/** A valid frame as a plain object, to be broken one field at a time. */
const validRaw = (event: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: AGENT_TOOL_EVENT_TYPE,
  ...extra,
  event,
});

const interruptedEvent = {
  kind: "interrupted",
  runId: "run-1",
  error: "the parent restarted",
  reason: "no-progress",
  childStillRunning: true,
};

function expectFailure(input: unknown): string {
  const result = parseAgentToolFrame(input);
  expect(result.ok).toBe(false);
  if (result.ok) throw new Error("expected a failure");
  expect(typeof result.error).toBe("string");
  expect(result.error.length).toBeGreaterThan(0);
  return result.error;
}

describe("parseAgentToolFrame round trip", () => {
  const frames: Record<AgentToolEvent["kind"], AgentToolEventFrame> = {
    started: frame(
      {
        kind: "started",
        runId: "run-1",
        agentType: "Researcher",
        inputPreview: "find the thing",
        displayOrder: 2,
        display: { name: "Research", icon: "search", color: "blue" },
        startedAt: 1_700_000_000_000,
        detached: true,
      },
      { parentToolCallId: "call-1", revision: 1 },
    ),
    chunk: frame(
      { kind: "chunk", runId: "run-1", body: { type: "text-delta", id: "text-1", delta: "hello" } },
      { parentToolCallId: "call-1", sequence: 3 },
    ),
    finished: frame(
      { kind: "finished", runId: "run-1", summary: "done", output: { answer: 42, items: ["a", null] } },
      { revision: 3 },
    ),
    error: frame({ kind: "error", runId: "run-1", error: "the model failed" }, { revision: 3 }),
    aborted: frame({ kind: "aborted", runId: "run-1", error: "cancelled by the user" }, { revision: 3 }),
    interrupted: frame(
      {
        kind: "interrupted",
        runId: "run-1",
        error: "no progress for 10 minutes",
        reason: "no-progress",
        childStillRunning: false,
      },
      { revision: 4, replay: true },
    ),
    cleared: frame({ kind: "cleared", runIds: ["run-1", "run-2"] }),
  };

  for (const [kind, original] of Object.entries(frames)) {
    it(`round-trips a ${kind} frame`, () => {
      const result = parseAgentToolFrame(encodeAgentToolFrame(original));
      expect(result).toEqual({ ok: true, frame: original });
    });

    it(`accepts an already-parsed ${kind} frame`, () => {
      const result = parseAgentToolFrame(JSON.parse(encodeAgentToolFrame(original)));
      expect(result).toEqual({ ok: true, frame: original });
    });
  }

  it("round-trips minimal lifecycle events (optional fields absent)", () => {
    const minimal: AgentToolEventFrame[] = [
      frame({ kind: "started", runId: "r", agentType: "A", displayOrder: 0 }, { revision: 1 }),
      frame({ kind: "finished", runId: "r", summary: "" }),
      frame({ kind: "aborted", runId: "r" }),
    ];
    for (const original of minimal) {
      expect(parseAgentToolFrame(encodeAgentToolFrame(original))).toEqual({ ok: true, frame: original });
    }
  });

  it("round-trips every interrupted reason", () => {
    const reasons = [
      "no-progress",
      "window-exceeded",
      "not-tailable",
      "inspect-timeout",
      "inspect-failed",
      "recovery-deadline",
      "budget-exceeded",
    ] as const;
    for (const reason of reasons) {
      const original = frame({ kind: "interrupted", runId: "r", error: "x", reason, childStillRunning: true });
      expect(parseAgentToolFrame(encodeAgentToolFrame(original))).toEqual({ ok: true, frame: original });
    }
  });

  it("round-trips progress and milestone data parts as chunk bodies", () => {
    const progress = frame({
      kind: "chunk",
      runId: "r",
      body: { type: "data-agent-progress", data: { fraction: 0.5, message: "halfway" }, transient: true },
    });
    const milestone = frame(
      { kind: "chunk", runId: "r", body: { type: "data-agent-milestone", data: { name: "fetched" } } },
      { sequence: 7 },
    );
    expect(parseAgentToolFrame(encodeAgentToolFrame(progress))).toEqual({ ok: true, frame: progress });
    expect(parseAgentToolFrame(encodeAgentToolFrame(milestone))).toEqual({ ok: true, frame: milestone });
  });
});

describe("parseAgentToolFrame leniency", () => {
  it("decodes a chunk body sent as a JSON string (the seed system's form)", () => {
    const body = { type: "text-delta", id: "text-1", delta: "hi" };
    const wire = JSON.stringify(validRaw({ kind: "chunk", runId: "r", body: JSON.stringify(body) }, { sequence: 1 }));
    expect(parseAgentToolFrame(wire)).toEqual({
      ok: true,
      frame: { type: AGENT_TOOL_EVENT_TYPE, sequence: 1, event: { kind: "chunk", runId: "r", body } },
    });
  });

  it("drops unknown extra fields on the frame and the event", () => {
    const result = parseAgentToolFrame(
      validRaw({ kind: "error", runId: "r", error: "boom", secret: "x" }, { revision: 2, extra: true }),
    );
    expect(result).toEqual({
      ok: true,
      frame: { type: AGENT_TOOL_EVENT_TYPE, revision: 2, event: { kind: "error", runId: "r", error: "boom" } },
    });
  });

  it("treats null sequence, revision and parentToolCallId as absent", () => {
    const result = parseAgentToolFrame(
      validRaw({ kind: "aborted", runId: "r" }, { sequence: null, revision: null, parentToolCallId: null }),
    );
    expect(result).toEqual({
      ok: true,
      frame: { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "aborted", runId: "r" } },
    });
  });

  it("keeps replay only when it is exactly true", () => {
    const event = { kind: "aborted", runId: "r" };
    const replayed = parseAgentToolFrame(validRaw(event, { replay: true }));
    const notReplayed = parseAgentToolFrame(validRaw(event, { replay: "true" }));
    expect(replayed.ok && replayed.frame.replay).toBe(true);
    expect(notReplayed.ok && "replay" in notReplayed.frame).toBe(false);
  });

  it("defaults a started event's displayOrder to 0", () => {
    const result = parseAgentToolFrame(validRaw({ kind: "started", runId: "r", agentType: "A" }, { revision: 1 }));
    expect(result.ok && result.frame.event).toEqual({ kind: "started", runId: "r", agentType: "A", displayOrder: 0 });
  });
});

describe("parseAgentToolFrame rejects malformed frames with a value", () => {
  it("rejects malformed JSON", () => {
    for (const text of ["", "{", "not json", '{"type":"agent-tool-event",}', "undefined"]) {
      expectFailure(text);
    }
  });

  it("rejects non-objects and arrays", () => {
    for (const value of [null, undefined, 0, 1, true, false, "null", "42", '"a string"', "[]", [], [{}], () => 1]) {
      expectFailure(value);
    }
  });

  it("rejects a wrong or missing type", () => {
    expectFailure({ event: { kind: "aborted", runId: "r" } });
    expectFailure({ type: "agent-tool-events", event: { kind: "aborted", runId: "r" } });
    expectFailure({ type: 1, event: { kind: "aborted", runId: "r" } });
  });

  it("rejects a missing or non-object event", () => {
    expectFailure({ type: AGENT_TOOL_EVENT_TYPE });
    expectFailure({ type: AGENT_TOOL_EVENT_TYPE, event: "started" });
    expectFailure({ type: AGENT_TOOL_EVENT_TYPE, event: [] });
    expectFailure({ type: AGENT_TOOL_EVENT_TYPE, event: null });
  });

  it("rejects a missing or empty runId", () => {
    expectFailure(validRaw({ kind: "error", error: "x" }));
    expectFailure(validRaw({ kind: "error", runId: "", error: "x" }));
    expectFailure(validRaw({ kind: "error", runId: 7, error: "x" }));
  });

  it("rejects an unknown or missing kind", () => {
    expectFailure(validRaw({ kind: "progress", runId: "r" }));
    expectFailure(validRaw({ runId: "r" }));
    expectFailure(validRaw({ kind: 1, runId: "r" }));
    expectFailure(validRaw({ kind: { nested: true }, runId: "r" }));
  });

  it("rejects a kind that cannot be turned into a string without throwing", () => {
    expectFailure(validRaw({ kind: Object.create(null), runId: "r" }));
    expectFailure(validRaw({ kind: Symbol("started"), runId: "r" }));
    expectFailure(
      validRaw({
        kind: {
          toString() {
            throw new Error("no");
          },
        },
        runId: "r",
      }),
    );
  });

  it("rejects a bad sequence", () => {
    for (const sequence of [0, -1, 1.5, "3", Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, true, {}]) {
      expectFailure(validRaw({ kind: "chunk", runId: "r", body: { type: "text-delta" } }, { sequence }));
    }
  });

  it("rejects a bad revision", () => {
    for (const revision of [0, -1, 1.5, "3", Number.NaN, true, []]) {
      expectFailure(validRaw({ kind: "error", runId: "r", error: "x" }, { revision }));
    }
  });

  it("rejects a non-string parentToolCallId", () => {
    expectFailure(validRaw({ kind: "error", runId: "r", error: "x" }, { parentToolCallId: 1 }));
  });

  it("rejects an unknown interrupted reason", () => {
    for (const reason of ["timeout", "", null, 1, "No-Progress"]) {
      expectFailure(validRaw({ ...interruptedEvent, reason }));
    }
  });

  it("rejects a non-boolean childStillRunning", () => {
    for (const childStillRunning of ["true", 1, 0, null]) {
      expectFailure(validRaw({ ...interruptedEvent, childStillRunning }));
    }
  });

  it("accepts an interrupted event that says only what the parent knows (no reason, no childStillRunning)", () => {
    const { reason: _reason, childStillRunning: _still, ...known } = interruptedEvent;
    const parsed = parseAgentToolFrame(validRaw(known));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.frame.event).not.toHaveProperty("reason");
    expect(parsed.frame.event).not.toHaveProperty("childStillRunning");
  });

  it("rejects an interrupted event without error text", () => {
    expectFailure(validRaw({ ...interruptedEvent, error: undefined }));
  });

  it("rejects cleared without runIds", () => {
    expectFailure(validRaw({ kind: "cleared" }));
    expectFailure(validRaw({ kind: "cleared", runId: "r" }));
    expectFailure(validRaw({ kind: "cleared", runIds: "r" }));
    expectFailure(validRaw({ kind: "cleared", runIds: ["r", ""] }));
    expectFailure(validRaw({ kind: "cleared", runIds: ["r", 2] }));
  });

  it("rejects bad started fields", () => {
    const started = { kind: "started", runId: "r", agentType: "A", displayOrder: 0 };
    expectFailure(validRaw({ ...started, agentType: "" }));
    expectFailure(validRaw({ ...started, agentType: undefined }));
    expectFailure(validRaw({ ...started, displayOrder: "1" }));
    expectFailure(validRaw({ ...started, displayOrder: Number.NaN }));
    expectFailure(validRaw({ ...started, inputPreview: 5 }));
    expectFailure(validRaw({ ...started, display: "name" }));
    expectFailure(validRaw({ ...started, display: ["name"] }));
    expectFailure(validRaw({ ...started, startedAt: "2024-01-01" }));
    expectFailure(validRaw({ ...started, detached: "yes" }));
  });

  it("keeps a started event's detached only when true (false is the same as absent)", () => {
    const started = { kind: "started", runId: "r", agentType: "A", displayOrder: 0 };
    const notDetached = parseAgentToolFrame(validRaw({ ...started, detached: false }, { revision: 1 }));
    expect(notDetached.ok && "detached" in notDetached.frame.event).toBe(false);
  });

  it("rejects a chunk without a usable body", () => {
    for (const body of [undefined, null, "", "{", '"text"', "[]", '{"delta":"x"}', { delta: "x" }, { type: 1 }, []]) {
      expectFailure(validRaw({ kind: "chunk", runId: "r", body }));
    }
  });

  it("rejects bad terminal fields", () => {
    expectFailure(validRaw({ kind: "finished", runId: "r", summary: 1 }));
    expectFailure(validRaw({ kind: "error", runId: "r" }));
    expectFailure(validRaw({ kind: "error", runId: "r", error: { message: "x" } }));
    expectFailure(validRaw({ kind: "aborted", runId: "r", error: 1 }));
  });
});

describe("parseAgentToolFrame never throws", () => {
  // A small seeded PRNG (mulberry32), so a failure is reproducible.
  function createRandom(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let value = state;
      value = Math.imul(value ^ (value >>> 15), value | 1);
      value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
      return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
    };
  }

  const random = createRandom(0x5eed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const keys = [
    "type",
    "event",
    "kind",
    "runId",
    "runIds",
    "sequence",
    "revision",
    "replay",
    "body",
    "reason",
    "childStillRunning",
    "agentType",
    "displayOrder",
    "display",
    "summary",
    "output",
    "error",
    "parentToolCallId",
    "__proto__",
    "constructor",
    "toString",
    "",
    "💥",
  ];
  const strings = [
    "",
    AGENT_TOOL_EVENT_TYPE,
    "started",
    "chunk",
    "finished",
    "error",
    "aborted",
    "interrupted",
    "cleared",
    "no-progress",
    "{",
    "[]",
    "{}",
    "null",
    '{"type":"text-delta"}',
    "\u0000",
    "\ud83d",
    "x".repeat(1000),
  ];

  function garbage(depth: number): unknown {
    const choice = Math.floor(random() * (depth > 3 ? 6 : 10));
    switch (choice) {
      case 0:
        return pick([null, undefined, true, false]);
      case 1:
        return pick([0, -1, 1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, -0, random() * 1e6]);
      case 2:
        return pick(strings);
      case 3:
        return String.fromCharCode(...Array.from({ length: Math.floor(random() * 20) }, () => random() * 0xffff));
      case 4:
        return pick([Symbol("x"), 10n, () => "fn"]);
      case 5:
        return JSON.stringify(garbage(depth + 2), (_key, value) => (typeof value === "bigint" ? 1 : value)) ?? "";
      case 6:
        return Array.from({ length: Math.floor(random() * 4) }, () => garbage(depth + 1));
      default: {
        const target: Record<string, unknown> = random() < 0.2 ? Object.create(null) : {};
        const size = Math.floor(random() * 6);
        for (let index = 0; index < size; index++) target[pick(keys)] = garbage(depth + 1);
        return target;
      }
    }
  }

  /** Frames that are nearly valid, so the loop reaches deep into parseEvent. */
  function nearlyValid(): unknown {
    const event: Record<string, unknown> = random() < 0.1 ? Object.create(null) : {};
    event["kind"] = random() < 0.8 ? pick(strings.slice(2, 9)) : garbage(2);
    event["runId"] = random() < 0.8 ? "run-1" : garbage(2);
    for (let index = 0; index < 3; index++) event[pick(keys)] = garbage(2);
    const raw: Record<string, unknown> = { type: AGENT_TOOL_EVENT_TYPE, event };
    if (random() < 0.5) raw[pick(keys)] = garbage(2);
    return random() < 0.5 ? raw : (JSON.stringify(raw, (_key, value) => (typeof value === "bigint" ? 1 : value)) ?? "");
  }

  it("returns { ok: boolean } for 400 random and garbage inputs", () => {
    const inputs = [
      ...Array.from({ length: 200 }, () => garbage(0)),
      ...Array.from({ length: 200 }, () => nearlyValid()),
    ];
    for (const input of inputs) {
      let result: ReturnType<typeof parseAgentToolFrame> | undefined;
      expect(() => {
        result = parseAgentToolFrame(input);
      }).not.toThrow();
      expect(typeof result?.ok).toBe("boolean");
      if (result && !result.ok) expect(typeof result.error).toBe("string");
    }
  });

  it("survives hostile objects (throwing getters, proxies, deep nesting)", () => {
    const throwingGetter = Object.defineProperty({}, "type", {
      get() {
        throw new Error("getter");
      },
      enumerable: true,
    });
    const throwingProxy = new Proxy(
      {},
      {
        get() {
          throw new Error("proxy");
        },
        has() {
          throw new Error("proxy");
        },
      },
    );
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const deepBody = JSON.stringify(validRaw({ kind: "chunk", runId: "r", body: deep }));
    const hostileEvent = validRaw(throwingProxy as Record<string, unknown>);
    for (const input of [throwingGetter, throwingProxy, deep, deepBody, hostileEvent]) {
      let result: ReturnType<typeof parseAgentToolFrame> | undefined;
      expect(() => {
        result = parseAgentToolFrame(input);
      }).not.toThrow();
      expect(result?.ok).toBe(false);
    }
  });
});
