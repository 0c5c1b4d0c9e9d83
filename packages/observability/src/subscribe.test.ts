import { AgentToolRegistry, AgentToolsError, getDefaultRunEventHub } from "@agent-tools/core-runs";
import { type AgentToolRegistryOptions, createRunEventHub } from "@agent-tools/core-runs/internal";
import {
  echoChild,
  flushMicrotasks,
  inMemoryRegistry,
  ManualClock,
  ScriptedChild,
  textChunks,
} from "@agent-tools/core-runs/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CoreRunEvent, type RunEvent, runIdOf } from "./channel.js";
import { subscribe } from "./subscribe.js";

const T0 = 1_000;
const SECRET_INPUT = "secret input: do not log";
const SECRET_ANSWER = "secret answer";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  expect(getDefaultRunEventHub().hasListeners).toBe(false);
});

/** Subscribe for the length of one test. */
function record(options: Parameters<typeof subscribe>[2] = {}): RunEvent[] {
  const events: RunEvent[] = [];
  cleanups.push(subscribe("agentTool", (event) => events.push(event), options));
  return events;
}

/** The real core, with the default hub (no `sink`): a parent registry and in-process children. */
function setup(options: Partial<AgentToolRegistryOptions> = {}) {
  const clock = new ManualClock(T0);
  const researcher = new ScriptedChild("Researcher");
  const echo = echoChild("Echo", { chunks: () => textChunks([SECRET_ANSWER]) });
  const sink = getDefaultRunEventHub();
  const { registry, transport, store } = inMemoryRegistry([researcher.definition, echo], clock, { sink, ...options });
  return { clock, researcher, transport, store, registry };
}

/** Start a Researcher run and wait until its child turn runs and the parent has recorded `running`. */
async function startResearch(context: ReturnType<typeof setup>, runId: string) {
  const result = context.registry.runAgentTool("Researcher", { input: SECRET_INPUT, runId });
  const run = context.researcher.run(runId);
  await run.context;
  await flushMicrotasks();
  return { result, run };
}

const dispatch = (runId: string, agentType: string, at = T0, extra: object = {}): CoreRunEvent => ({
  type: "agent_tool:run:dispatch",
  runId,
  agentType,
  detached: false,
  at,
  ...extra,
});

/** What a run whose turn counted no model call reports it spent. */
const NO_USAGE = { inputTokens: 0, outputTokens: 0, runs: 0 };

describe("subscribe: event sequences of real runs", () => {
  it("an awaited run that completes: dispatch, child turn, start, finish with its duration", async () => {
    const events = record();
    const context = setup();
    const result = context.registry.runAgentTool("Researcher", {
      input: SECRET_INPUT,
      runId: "agent-tool:call-1",
      parentToolCallId: "call-1",
    });
    const run = context.researcher.run("agent-tool:call-1");
    await run.context;
    run.emit(...textChunks([SECRET_ANSWER]));
    await context.clock.advanceBy(120);
    run.complete();
    expect(await result).toMatchObject({ ok: true, status: "completed" });

    const runId = "agent-tool:call-1";
    const agentType = "Researcher";
    expect(events).toStrictEqual([
      dispatch(runId, agentType, T0, { parentToolCallId: "call-1" }),
      { type: "agent_tool:child:turn:start", runId, agentType, resumed: false, at: T0 },
      { type: "agent_tool:run:start", runId, agentType, at: T0 },
      { type: "agent_tool:child:turn:finish", runId, agentType, status: "completed", entries: 7, at: T0 + 120 },
      {
        type: "agent_tool:run:finish",
        runId,
        agentType,
        status: "completed",
        cause: "child",
        previousStatus: "running",
        durationMs: 120,
        usage: NO_USAGE,
        at: T0 + 120,
      },
    ]);
    // Ids and typed fields only: never the input or the output.
    expect(JSON.stringify(events)).not.toContain(SECRET_INPUT);
    expect(JSON.stringify(events)).not.toContain(SECRET_ANSWER);
  });

  it("a detached dispatch says so", async () => {
    const events = record({ types: ["agent_tool:run:dispatch"] });
    const context = setup();
    const extension = context.registry.extension({ key: "test", read: () => ({}) });
    const admitted = await extension.admit("Echo", { input: "x", runId: "d1", detached: true });
    expect(admitted.ok).toBe(true);
    await context.registry.waitForAgentToolRun("d1");
    expect(events).toStrictEqual([{ ...dispatch("d1", "Echo"), detached: true }]);
  });

  it("a dispatch whose child cannot be started: dispatch, then finish `error` from `starting`", async () => {
    const events = record();
    const context = setup();
    const result = await context.registry.runAgentTool("Unregistered", { input: SECRET_INPUT, runId: "r1" });
    expect(result).toMatchObject({ ok: false, status: "error" });
    expect(events).toStrictEqual([
      dispatch("r1", "Unregistered"),
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Unregistered",
        status: "error",
        cause: "start-failed",
        previousStatus: "starting",
        durationMs: 0,
        at: T0,
      },
    ]);
  });

  it("a child turn that fails: the turn and the run finish `error`", async () => {
    const events = record();
    const context = setup();
    const { result, run } = await startResearch(context, "r1");
    run.emit({ type: "start" });
    await context.clock.advanceBy(30);
    run.fail(new Error("model unreachable"));
    expect(await result).toMatchObject({ ok: false, status: "error" });
    expect(events.slice(3)).toStrictEqual([
      {
        type: "agent_tool:child:turn:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "error",
        entries: 1,
        at: T0 + 30,
      },
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "error",
        cause: "child",
        previousStatus: "running",
        durationMs: 30,
        usage: NO_USAGE,
        at: T0 + 30,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain("model unreachable");
  });

  it("dispatches refused before a run exists emit only `rejected`, with a typed rejection", async () => {
    const events = record();
    const context = setup({ maxAgentToolInputBytes: 64 });
    await context.registry.runAgentTool("Echo", { input: 1n, runId: "bad-input" });
    await context.registry.runAgentTool("Echo", { input: "x".repeat(100), runId: "too-large" });
    await context.registry.runAgentTool("Echo", { input: "ok", runId: "taken" });
    const before = events.length;
    await context.registry.runAgentTool("Researcher", { input: "ok", runId: "taken" });
    const rejected = (runId: string, agentType: string, rejection: string) => ({
      type: "agent_tool:run:rejected",
      runId,
      agentType,
      rejection,
      at: T0,
    });
    expect(events.slice(0, 2)).toStrictEqual([
      rejected("bad-input", "Echo", "invalid-input"),
      rejected("too-large", "Echo", "input-too-large"),
    ]);
    expect(events.slice(before)).toStrictEqual([rejected("taken", "Researcher", "agent-type-mismatch")]);
  });

  it("a dispatch refused by the cap: dispatch, rejected `max-concurrency`, finish `error`; the running run goes on", async () => {
    const context = setup({ maxConcurrentAgentTools: 1 });
    const { result, run } = await startResearch(context, "r1");
    const refusedEvents = record({ runId: "r2" });
    const firstEvents = record({ runId: "r1" });
    await context.clock.advanceBy(10);
    const refused = await context.registry.runAgentTool("Echo", { input: "x", runId: "r2" });
    expect(refused).toMatchObject({ ok: false, status: "error" });
    expect(refusedEvents).toStrictEqual([
      dispatch("r2", "Echo", T0 + 10),
      { type: "agent_tool:run:rejected", runId: "r2", agentType: "Echo", rejection: "max-concurrency", at: T0 + 10 },
      {
        type: "agent_tool:run:finish",
        runId: "r2",
        agentType: "Echo",
        status: "error",
        cause: "max-concurrency",
        previousStatus: "starting",
        durationMs: 0,
        at: T0 + 10,
      },
    ]);
    run.complete();
    expect(await result).toMatchObject({ ok: true });
    expect(firstEvents.map((event) => event.type)).toEqual(["agent_tool:child:turn:finish", "agent_tool:run:finish"]);
  });

  it("a cancelled run: the child's turn and the run finish `aborted`", async () => {
    const events = record();
    const context = setup();
    const { result } = await startResearch(context, "r1");
    await context.clock.advanceBy(50);
    expect(await context.registry.cancelAgentTool("r1")).toBe(true);
    expect(await result).toMatchObject({ ok: false, status: "aborted" });
    expect(events).toStrictEqual([
      dispatch("r1", "Researcher"),
      { type: "agent_tool:child:turn:start", runId: "r1", agentType: "Researcher", resumed: false, at: T0 },
      { type: "agent_tool:run:start", runId: "r1", agentType: "Researcher", at: T0 },
      {
        type: "agent_tool:child:turn:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "aborted",
        entries: 0,
        at: T0 + 50,
      },
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "aborted",
        cause: "child",
        previousStatus: "running",
        durationMs: 50,
        usage: NO_USAGE,
        at: T0 + 50,
      },
    ]);
  });

  it("clearing finished runs emits one `clear` with their ids", async () => {
    const context = setup();
    await context.registry.runAgentTool("Echo", { input: "a", runId: "r1" });
    await context.registry.runAgentTool("Echo", { input: "b", runId: "r2" });
    const events = record();
    expect(await context.registry.clearAgentToolRuns()).toEqual({ runIds: ["r1", "r2"] });
    expect(events).toStrictEqual([{ type: "agent_tool:clear", runIds: ["r1", "r2"], at: T0 }]);
  });

  it("clearing a live run: its child turn ends `aborted`, then `clear`", async () => {
    const context = setup();
    const { result } = await startResearch(context, "r1");
    const events = record();
    await context.registry.clearAgentToolRuns();
    expect(await result).toMatchObject({ ok: false, status: "aborted" });
    expect(events).toContainEqual({
      type: "agent_tool:child:turn:finish",
      runId: "r1",
      agentType: "Researcher",
      status: "aborted",
      entries: 0,
      at: T0,
    });
    expect(events.at(-1)).toStrictEqual({ type: "agent_tool:clear", runIds: ["r1"], at: T0 });
  });

  // Gap in core (reported): the run ends `aborted` for hooks and for its awaiting caller, but no
  it("clearing a live run emits its `agent_tool:run:finish` (aborted)", async () => {
    const context = setup();
    const { result } = await startResearch(context, "r1");
    const events = record({ types: ["agent_tool:run:finish"] });
    await context.registry.clearAgentToolRuns();
    await result;
    expect(events).toMatchObject([{ runId: "r1", status: "aborted", previousStatus: "running" }]);
  });

  it("replay to a connection: counts of runs, frames and cleared runs, and whether cursors were given", async () => {
    const context = setup();
    await context.registry.runAgentTool("Echo", { input: "a", runId: "r1" });
    const events = record();
    const frames: unknown[] = [];
    await context.registry.replayAgentToolRuns((frame) => frames.push(frame));
    await context.registry.replayAgentToolRuns(() => {}, {
      cursors: { r1: { revision: 3, sequence: 7 }, gone: { revision: 1, sequence: 0 } },
    });
    expect(events).toStrictEqual([
      { type: "agent_tool:replay", runs: 1, frames: frames.length, cleared: 0, withCursors: false, at: T0 },
      { type: "agent_tool:replay", runs: 0, frames: 1, cleared: 1, withCursors: true, at: T0 },
    ]);
    expect(frames).toHaveLength(9);
  });

  it("a parent that restarts re-attaches to its live run: `reattach`, then one finish", async () => {
    const context = setup();
    const { run } = await startResearch(context, "r1");
    run.emit({ type: "start" });
    await flushMicrotasks();
    const events = record();
    // A new registry on the same storage and children: the parent after an eviction.
    const restarted = new AgentToolRegistry({
      store: context.store,
      transport: context.transport,
      clock: context.clock,
    });
    const result = restarted.waitForAgentToolRun("r1");
    await flushMicrotasks();
    await context.clock.advanceBy(5);
    run.complete();
    expect(await result).toMatchObject({ ok: true, status: "completed" });
    expect(events).toStrictEqual([
      // It re-attaches after what the first instance persisted of the run: nothing yet (its first write waits one
      // follow-write interval after the first chunks).
      {
        type: "agent_tool:run:reattach",
        runId: "r1",
        agentType: "Researcher",
        afterSequence: 0,
        startedAt: T0,
        at: T0,
      },
      {
        type: "agent_tool:child:turn:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "completed",
        entries: 1,
        at: T0 + 5,
      },
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Researcher",
        status: "completed",
        cause: "child",
        previousStatus: "running",
        durationMs: 5,
        usage: NO_USAGE,
        at: T0 + 5,
      },
    ]);
  });

  it("a throwing hook emits `hook:error` with the hook's name and the error's name, and the run goes on", async () => {
    const events = record({ types: ["agent_tool:hook:error", "agent_tool:run:finish"] });
    const context = setup({
      hooks: {
        onAgentToolStart() {
          throw new TypeError("hook bug with details");
        },
        async onAgentToolFinish() {
          throw new RangeError("another");
        },
      },
    });
    expect(await context.registry.runAgentTool("Echo", { input: "x", runId: "r1" })).toMatchObject({ ok: true });
    expect(events).toStrictEqual([
      {
        type: "agent_tool:hook:error",
        hook: "onAgentToolStart",
        runId: "r1",
        agentType: "Echo",
        errorName: "TypeError",
        at: T0,
      },
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Echo",
        status: "completed",
        cause: "child",
        previousStatus: "running",
        durationMs: 0,
        usage: NO_USAGE,
        at: T0,
      },
      {
        type: "agent_tool:hook:error",
        hook: "onAgentToolFinish",
        runId: "r1",
        agentType: "Echo",
        errorName: "RangeError",
        at: T0,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain("hook bug");
  });
});

describe("subscribe: guarantees", () => {
  it("a listener that throws never breaks a run, nor other listeners", async () => {
    cleanups.push(
      subscribe("agentTool", () => {
        throw new Error("listener bug");
      }),
    );
    const events = record();
    cleanups.push(
      subscribe("agentTool", () => {
        throw "not even an Error";
      }),
    );
    const context = setup();
    const { result, run } = await startResearch(context, "r1");
    run.emit(...textChunks(["fine"]));
    run.complete();
    expect(await result).toMatchObject({ ok: true, status: "completed", summary: "fine" });
    expect(events.map((event) => event.type)).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:child:turn:start",
      "agent_tool:run:start",
      "agent_tool:child:turn:finish",
      "agent_tool:run:finish",
    ]);
  });

  it("isolates a throwing listener on a host's own source too", () => {
    let delivered = 0;
    const source = {
      subscribe(listener: (event: RunEvent) => void) {
        listener({ type: "agent_tool:run:start", runId: "r1", agentType: "Echo", at: 1 });
        delivered += 1;
        return () => {};
      },
    };
    const unsubscribe = subscribe(
      "agentTool",
      () => {
        throw new Error("listener bug");
      },
      { source },
    );
    expect(delivered).toBe(1);
    unsubscribe();
  });

  it("with no subscriber, the hub has no listeners and runs emit into nothing", async () => {
    const hub = getDefaultRunEventHub();
    expect(hub.hasListeners).toBe(false);
    const context = setup();
    expect(await context.registry.runAgentTool("Echo", { input: "x", runId: "r1" })).toMatchObject({ ok: true });
    // Nothing is buffered for a later subscriber.
    const events = record();
    expect(hub.hasListeners).toBe(true);
    await flushMicrotasks();
    expect(events).toEqual([]);
    cleanups.pop()?.();
    expect(hub.hasListeners).toBe(false);
  });

  it("stops delivering after unsubscribe; unsubscribing twice is harmless", async () => {
    const events: RunEvent[] = [];
    const unsubscribe = subscribe("agentTool", (event) => events.push(event));
    const context = setup();
    await context.registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    const seen = events.length;
    unsubscribe();
    unsubscribe();
    await context.registry.runAgentTool("Echo", { input: "x", runId: "r2" });
    expect(seen).toBe(5);
    expect(events).toHaveLength(seen);
  });

  it("an unknown channel name or a listener that is not a function throws a clear error", () => {
    const unknownChannel = () => subscribe("agentTools" as "agentTool", () => {});
    expect(unknownChannel).toThrow(AgentToolsError);
    expect(unknownChannel).toThrow('Unknown observability channel "agentTools": use "agentTool"');
    try {
      unknownChannel();
    } catch (error) {
      expect(AgentToolsError.isInstance(error) && error.code).toBe("INVALID_ARGUMENT");
    }
    expect(() => subscribe("agentTool", undefined as never)).toThrow("the listener must be a function");
    expect(getDefaultRunEventHub().hasListeners).toBe(false);
  });

  it("filters by type (exact or `prefix*`) and by runId", async () => {
    const finishes: RunEvent[] = [];
    cleanups.push(
      subscribe(
        "agentTool",
        (event) => {
          // `types` narrows the event: `durationMs` type-checks.
          expect(event.durationMs).toBeGreaterThanOrEqual(0);
          finishes.push(event);
        },
        { types: ["agent_tool:run:finish"] },
      ),
    );
    const childEvents = record({ types: ["agent_tool:child:*"] });
    const secondRun = record({ runId: "r2" });
    const context = setup();
    await context.registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    await context.registry.runAgentTool("Echo", { input: "x", runId: "r2" });
    await context.registry.clearAgentToolRuns();
    expect(finishes.map(runIdOf)).toEqual(["r1", "r2"]);
    expect(childEvents.map((event) => `${event.type} ${runIdOf(event)}`)).toEqual([
      "agent_tool:child:turn:start r1",
      "agent_tool:child:turn:finish r1",
      "agent_tool:child:turn:start r2",
      "agent_tool:child:turn:finish r2",
    ]);
    // `agent_tool:clear` names no single run: a runId filter leaves it out.
    expect(secondRun.map((event) => event.type)).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:child:turn:start",
      "agent_tool:run:start",
      "agent_tool:child:turn:finish",
      "agent_tool:run:finish",
    ]);
  });

  it("listens to a host's own hub when core was given it as `sink`", async () => {
    const hub = createRunEventHub();
    const events = record({ source: hub });
    const context = setup({ sink: hub });
    await context.registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    // The registry emits into the host's hub; the in-process child still uses the default hub.
    expect(events.map((event) => event.type)).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:run:start",
      "agent_tool:run:finish",
    ]);
    expect(getDefaultRunEventHub().hasListeners).toBe(false);
  });
});
