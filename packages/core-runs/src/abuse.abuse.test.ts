// Bad input and abuse, in process (issue 10): invalid and oversized input, a runId of another parent, unknown and
// guessed run ids, hooks that throw or hang, children whose stream errors or never ends. Each gets a clear error or a
// typed failure; nothing crashes; no other run is affected.

import { isStepCount, streamText, type TextStreamPart, type ToolSet } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "./agent-tool.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import type { AgentToolEventFrame, AgentToolLifecycleResult, AgentToolRunInfo } from "./protocol/index.js";
import type { AgentToolHooks, AgentToolRegistryOptions } from "./registry-options.js";
import { createRunEventHub } from "./run-event-hub.js";
import type { RunEvent } from "./run-events.js";
import { AgentToolRegistry } from "./run-registry.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { InProcessChildTransport } from "./testing/in-process-child-transport.js";
import { flushMicrotasks } from "./testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "./testing/scripted-child.js";
import { unitUsage as usage } from "./testing/scripted-model.js";

/**
 * CPU-heavy (many runs and large inputs): a time budget of its own. vitest's five-second default is for unit tests,
 * and a busy machine runs this several times slower than an idle one; the budget still ends a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer TPart> ? TPart : never;

/** Let every pending promise chain and stream pump run (microtasks only: no real time passes). */
async function settle(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await flushMicrotasks(50);
}

/** Whether a promise settled after the queue drained, without waiting for it forever. */
async function settledWithin<T>(promise: Promise<T>, turns = 40): Promise<{ done: true; value: T } | { done: false }> {
  let state: { done: true; value: T } | { done: false } = { done: false };
  promise.then(
    (value) => {
      state = { done: true, value };
    },
    () => undefined,
  );
  await settle(turns);
  return state;
}

/** A child whose stream never ends and ignores cancellation of its stream (its cancel never resolves). */
function stubbornChild(agentType: string): AgentToolChildDefinition & { turns: string[] } {
  const turns: string[] = [];
  return {
    agentType,
    turns,
    turn(context) {
      turns.push(context.runId);
      return new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "start" });
          controller.enqueue({ type: "text-start", id: "t" });
          controller.enqueue({ type: "text-delta", id: "t", delta: "thinking forever" });
        },
        pull: () => new Promise(() => {}),
        cancel: () => new Promise(() => {}),
      });
    },
  };
}

/** A child whose `turn` throws before it returns a stream. */
function throwingChild(agentType: string): AgentToolChildDefinition {
  return {
    agentType,
    turn() {
      throw new Error("the child exploded");
    },
  };
}

function setup(options: Partial<AgentToolRegistryOptions> = {}) {
  const echo = echoChild("Echo", { chunks: (input) => textChunks([`echo ${JSON.stringify(input)}`]) });
  const scripted = new ScriptedChild("Scripted");
  const stubborn = stubbornChild("Stubborn");
  const transport = new InProcessChildTransport({
    children: [echo, scripted.definition, stubborn, throwingChild("Throwing")],
  });
  const store = new InMemoryRunStore();
  const frames: AgentToolEventFrame[] = [];
  const events: RunEvent[] = [];
  const sink = createRunEventHub();
  sink.subscribe((event) => events.push(event as RunEvent));
  const registry = new AgentToolRegistry({
    store,
    transport,
    sink,
    broadcast: (frame) => frames.push(frame),
    ...options,
  });
  return { registry, store, transport, frames, events, echo, scripted, stubborn };
}

const runIdsOf = (frames: AgentToolEventFrame[]) =>
  new Set(frames.flatMap((frame) => (frame.event.kind === "cleared" ? frame.event.runIds : [frame.event.runId])));

describe("abuse: invalid and oversized input", CPU_HEAVY, () => {
  it("a model calling an agent tool with invalid input gets an error; no run, no child, no frame", async () => {
    const { registry, store, transport, frames, echo } = setup();
    const tools = {
      research: agentTool(registry, "Echo", {
        description: "Research",
        inputSchema: z.object({ topic: z.string().min(1) }),
      }),
    };
    let call = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        call += 1;
        const parts: StreamPart[] =
          call === 1
            ? [
                { type: "stream-start" as const, warnings: [] },
                // Wrong type, then not even JSON.
                { type: "tool-call" as const, toolCallId: "c1", toolName: "research", input: '{"topic":5}' },
                { type: "tool-call" as const, toolCallId: "c2", toolName: "research", input: "{not json" },
                { type: "tool-call" as const, toolCallId: "c3", toolName: "research", input: '{"topic":""}' },
                { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: undefined }, usage },
              ]
            : [
                { type: "stream-start" as const, warnings: [] },
                { type: "text-start" as const, id: "t" },
                { type: "text-delta" as const, id: "t", delta: "sorry" },
                { type: "text-end" as const, id: "t" },
                { type: "finish" as const, finishReason: { unified: "stop" as const, raw: undefined }, usage },
              ];
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const result = streamText({ model, prompt: "go", tools, stopWhen: isStepCount(3) });
    const parts: TextStreamPart<ToolSet>[] = [];
    for await (const part of result.stream) parts.push(part);
    expect(await result.text).toBe("sorry");
    // Each invalid call came back to the model as a tool error, not a run.
    const errors = parts.filter((part) => part.type === "tool-error");
    expect(errors.map((part) => (part as { toolCallId: string }).toolCallId).sort()).toEqual(["c1", "c2", "c3"]);
    expect(await store.listRuns()).toEqual([]);
    expect(transport.childCount).toBe(0);
    expect(transport.calls).toEqual([]);
    expect(frames).toEqual([]);
    expect(echo.turns).toEqual([]);
  });

  it("input over maxAgentToolInputBytes: a typed failure, no row, no child, no frame, no hook", async () => {
    const starts: string[] = [];
    const { registry, store, transport, frames, events } = setup({
      maxAgentToolInputBytes: 1024,
      hooks: { onAgentToolStart: (run) => void starts.push(run.runId) },
    });
    const big = { text: "é".repeat(600) }; // 1200 bytes of UTF-8, 600 characters
    const result = await registry.runAgentTool("Echo", { input: big, runId: "too-big" });
    expect(result).toMatchObject({ ok: false, status: "error", retryable: false });
    if (result.ok) throw new Error("expected a failure");
    expect(result.error).toMatch(/maxAgentToolInputBytes/);
    const extension = registry.extension({ key: "test", read: () => ({}) });
    const admitted = await extension.admit("Echo", { input: big, runId: "too-big", detached: true });
    expect(admitted).toMatchObject({ ok: false, rejection: "input-too-large" });
    expect(await store.getRun("too-big")).toBeNull();
    expect(await registry.hasAgentToolRun("Echo", "too-big")).toBe(false);
    expect(transport.childCount).toBe(0);
    expect(frames).toEqual([]);
    expect(starts).toEqual([]);
    expect(events.filter((event) => event.type === "agent_tool:run:rejected")).toHaveLength(2);
    // Just under the cap is fine.
    const fits = await registry.runAgentTool("Echo", { input: "x".repeat(1000), runId: "fits" });
    expect(fits.ok).toBe(true);
  });

  it("input that cannot be serialized (cycle, BigInt) is refused before any run exists", async () => {
    const { registry, store, transport } = setup();
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    for (const [runId, input] of [
      ["cyclic", cyclic],
      ["bigint", { n: 10n }],
    ] as const) {
      const result = await registry.runAgentTool("Echo", { input, runId });
      expect(result).toMatchObject({ ok: false, status: "error", retryable: false });
      expect(await store.getRun(runId)).toBeNull();
    }
    expect(transport.childCount).toBe(0);
  });
});

describe("abuse: other parents' and guessed run ids", CPU_HEAVY, () => {
  it("a runId of another parent: nothing leaks across registries with separate transports", async () => {
    const a = setup();
    const b = setup();
    const runA = a.registry.runAgentTool("Scripted", { input: "secret of A", runId: "shared-id" });
    await settle();
    a.scripted.run("shared-id").emit(...textChunks(["A's private answer"]).slice(0, 4));
    await settle();
    // B knows nothing of A's run.
    expect(await b.registry.hasAgentToolRun("Scripted", "shared-id")).toBe(false);
    expect(await b.registry.getAgentToolRun("shared-id")).toBeNull();
    expect(await b.registry.cancelAgentTool("shared-id")).toBe(false);
    expect(await b.registry.extension({ key: "test", read: () => ({}) }).follow("shared-id").done).toBeNull();
    expect(await b.registry.waitForAgentToolRun("shared-id")).toMatchObject({ ok: false, status: "error" });
    const replayed: AgentToolEventFrame[] = [];
    await b.registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(replayed).toEqual([]);
    expect(b.transport.childCount).toBe(0);
    // B dispatching the same runId gets its own child; A's child is untouched and finishes with A's answer.
    const runB = b.registry.runAgentTool("Scripted", { input: "B's input", runId: "shared-id" });
    await settle();
    b.scripted.run("shared-id").emit(...textChunks(["B answer"]));
    b.scripted.run("shared-id").complete();
    a.scripted.run("shared-id").emit(...textChunks(["A's private answer"]).slice(4));
    a.scripted.run("shared-id").complete();
    expect(await runA).toMatchObject({ ok: true, summary: "A's private answer" });
    expect(await runB).toMatchObject({ ok: true, summary: "B answer" });
    expect(a.scripted.turns).toEqual(["shared-id"]);
    expect(b.scripted.turns).toEqual(["shared-id"]);
    const textOf = (frames: AgentToolEventFrame[]) =>
      frames
        .flatMap((frame) =>
          frame.event.kind === "chunk" && frame.event.body.type === "text-delta" ? [frame.event.body.delta] : [],
        )
        .join("");
    expect(textOf(a.frames)).toBe("A's private answer");
    expect(textOf(b.frames)).toBe("B answer");
    // Cancelling through B does not touch A's finished run either.
    expect(await a.store.getRun("shared-id")).toMatchObject({ status: "completed", summary: "A's private answer" });
  });

  it("unknown and guessed run ids: false / null / typed failure, and no child is ever created", async () => {
    const { registry, transport, frames } = setup();
    await registry.runAgentTool("Echo", { input: "real", runId: "real-run" });
    const childrenBefore = transport.childCount;
    const callsBefore = transport.calls.length;
    const framesBefore = frames.length;
    const guesses = [
      "guessed",
      "agent-tool:call-1",
      "real-run ",
      "REAL-RUN",
      "",
      "__proto__",
      "constructor",
      "../real-run",
      "x".repeat(10_000),
    ];
    for (const runId of guesses) {
      for (const agentType of ["Echo", "Scripted", "Nope", "__proto__"]) {
        expect(await registry.hasAgentToolRun(agentType, runId)).toBe(false);
      }
      expect(await registry.cancelAgentTool(runId)).toBe(false);
      expect(await registry.getAgentToolRun(runId)).toBeNull();
      expect(await registry.extension({ key: "test", read: () => ({}) }).follow(runId).done).toBeNull();
      expect(await registry.waitForAgentToolRun(runId)).toMatchObject({ ok: false, status: "error", retryable: false });
    }
    // The real run under a wrong agent type is refused too (drill-in checks both).
    expect(await registry.hasAgentToolRun("Scripted", "real-run")).toBe(false);
    expect(transport.childCount).toBe(childrenBefore);
    expect(transport.calls.length).toBe(callsBefore);
    expect(frames.length).toBe(framesBefore);
  });

  it("re-dispatching a runId with another agentType is a typed failure and starts nothing", async () => {
    const { registry, transport, echo } = setup();
    await registry.runAgentTool("Echo", { input: "one", runId: "r1" });
    const again = await registry.runAgentTool("Scripted", { input: "two", runId: "r1" });
    expect(again).toMatchObject({ ok: false, status: "error" });
    expect(transport.childCount).toBe(1);
    expect(echo.turns).toEqual(["r1"]);
  });
});

describe("abuse: hooks that throw or hang", CPU_HEAVY, () => {
  it("throwing hooks (start, finish, progress) lose nothing and stop nothing", async () => {
    const finished: string[] = [];
    const hooks: AgentToolHooks = {
      onAgentToolStart() {
        throw new Error("start hook bug");
      },
      async onAgentToolFinish(run) {
        finished.push(run.runId);
        throw new Error("finish hook bug");
      },
      onProgress() {
        throw new Error("progress hook bug");
      },
    };
    const { registry, store, events } = setup({ hooks });
    const results = await Promise.all([
      registry.runAgentTool("Echo", { input: 1, runId: "r1" }),
      registry.runAgentTool("Echo", { input: 2, runId: "r2" }),
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    expect(finished.sort()).toEqual(["r1", "r2"]);
    for (const runId of ["r1", "r2"]) {
      // The ledger is settled: a restart does not fire the hook again.
      expect(await store.getRun(runId)).toMatchObject({ status: "completed", finishNotifiedRevision: 3 });
    }
    expect(events.filter((event) => event.type === "agent_tool:hook:error").length).toBeGreaterThanOrEqual(4);
    expect(await registry.deliverPendingFinishHooks()).toBe(0);
  });

  it("a hanging onAgentToolFinish does not block other runs, nor hold a concurrency slot", async () => {
    const hang = new Promise<void>(() => {});
    const finishedCalls: string[] = [];
    const { registry, store } = setup({
      maxConcurrentAgentTools: 1,
      hooks: {
        onAgentToolFinish(run: AgentToolRunInfo, _result: AgentToolLifecycleResult) {
          finishedCalls.push(run.runId);
          return run.runId === "hangs" ? hang : undefined;
        },
      },
    });
    void registry.runAgentTool("Echo", { input: "first", runId: "hangs" });
    await settle();
    expect(await store.getRun("hangs")).toMatchObject({ status: "completed" });
    // The slot is free: the next run is admitted and finishes.
    const other = await settledWithin(registry.runAgentTool("Echo", { input: "second", runId: "other" }));
    expect(other).toMatchObject({ done: true, value: { ok: true } });
    expect(finishedCalls).toEqual(["hangs", "other"]);
  });

  // Found by this suite and fixed: the finish hook used to be awaited before the caller was answered.
  it("a hanging onAgentToolFinish does not block the caller awaiting that run", async () => {
    const { registry, store } = setup({
      hooks: { onAgentToolFinish: () => new Promise<void>(() => {}) },
    });
    const awaited = registry.runAgentTool("Echo", { input: "x", runId: "hangs" });
    const outcome = await settledWithin(awaited, 60);
    expect(await store.getRun("hangs")).toMatchObject({ status: "completed" });
    expect(outcome).toMatchObject({ done: true, value: { ok: true } });
  });

  // Found by this suite and fixed: the start hook used to be awaited before the run was driven.
  it("a hanging onAgentToolStart does not keep its own run from starting and finishing", async () => {
    const { registry, store } = setup({
      hooks: { onAgentToolStart: (run) => (run.runId === "hangs" ? new Promise<void>(() => {}) : undefined) },
    });
    const awaited = registry.runAgentTool("Echo", { input: "x", runId: "hangs" });
    const outcome = await settledWithin(awaited, 60);
    expect(await store.getRun("hangs")).toMatchObject({ status: "completed" });
    expect(outcome).toMatchObject({ done: true, value: { ok: true } });
  });

  it("a hanging onAgentToolStart of one run does not block other runs (no cap)", async () => {
    const { registry } = setup({
      hooks: { onAgentToolStart: (run) => (run.runId === "hangs" ? new Promise<void>(() => {}) : undefined) },
    });
    void registry.runAgentTool("Echo", { input: "x", runId: "hangs" });
    const other = await settledWithin(registry.runAgentTool("Echo", { input: "y", runId: "other" }));
    expect(other).toMatchObject({ done: true, value: { ok: true } });
  });
});

describe("abuse: children that fail or never end", CPU_HEAVY, () => {
  it("a child whose stream errors ends as error; a concurrent run is not affected", async () => {
    const { registry, scripted, store } = setup();
    const failing = registry.runAgentTool("Scripted", { input: "a", runId: "fails" });
    const healthy = registry.runAgentTool("Scripted", { input: "b", runId: "healthy" });
    await settle();
    scripted.run("healthy").emit({ type: "start" }, { type: "text-start", id: "t" });
    scripted.run("fails").emit({ type: "start" });
    scripted.run("fails").fail(new Error("socket hang up"));
    await settle();
    scripted.run("healthy").emit({ type: "text-delta", id: "t", delta: "fine" }, { type: "text-end", id: "t" });
    scripted.run("healthy").complete();
    expect(await failing).toMatchObject({ ok: false, status: "error", retryable: false });
    expect(await healthy).toMatchObject({ ok: true, summary: "fine" });
    expect(await store.getRun("fails")).toMatchObject({ status: "error" });
    expect(scripted.turns.sort()).toEqual(["fails", "healthy"]);
  });

  it("an in-band error chunk ends the run as error", async () => {
    const { registry, scripted } = setup();
    const run = registry.runAgentTool("Scripted", { input: "a", runId: "inband" });
    await settle();
    scripted.run("inband").emit({ type: "start" }, { type: "error", errorText: "model overloaded" });
    scripted.run("inband").complete();
    const result = await run;
    expect(result).toMatchObject({ ok: false, status: "error" });
  });

  it("a child whose turn throws at once ends as error", async () => {
    const { registry, store } = setup();
    const result = await registry.runAgentTool("Throwing", { input: "a", runId: "throws" });
    expect(result).toMatchObject({ ok: false, status: "error" });
    expect(await store.getRun("throws")).toMatchObject({ status: "error" });
  });

  it("a child that never ends is ended by cancel; other runs are unaffected", async () => {
    const { registry, scripted, store } = setup({ maxConcurrentAgentTools: 2 });
    const forever = registry.runAgentTool("Scripted", { input: "a", runId: "forever" });
    await settle();
    scripted.run("forever").emit({ type: "start" });
    const other = await registry.runAgentTool("Echo", { input: "b", runId: "other" });
    expect(other.ok).toBe(true);
    expect(await registry.cancelAgentTool("forever", "user pressed stop")).toBe(true);
    expect(await forever).toMatchObject({ ok: false, status: "aborted" });
    expect(await store.listRuns({ status: ["starting", "running"] })).toEqual([]);
    // Cancel is idempotent.
    expect(await registry.cancelAgentTool("forever")).toBe(false);
  });

  it("a child whose stream ignores cancellation (cancel never resolves) still ends aborted on cancel", async () => {
    const { registry, store, stubborn } = setup({ maxConcurrentAgentTools: 1 });
    const stuck = registry.runAgentTool("Stubborn", { input: "a", runId: "stubborn" });
    await settle();
    expect(stubborn.turns).toEqual(["stubborn"]);
    const cancelled = await settledWithin(registry.cancelAgentTool("stubborn"));
    expect(cancelled).toMatchObject({ done: true, value: true });
    const outcome = await settledWithin(stuck);
    expect(outcome).toMatchObject({ done: true, value: { ok: false, status: "aborted" } });
    expect(await store.getRun("stubborn")).toMatchObject({ status: "aborted" });
    // The slot is free again.
    const next = await settledWithin(registry.runAgentTool("Echo", { input: "b", runId: "next" }));
    expect(next).toMatchObject({ done: true, value: { ok: true } });
  });

  it("clear while a child never ends: the caller gets a typed failure, the slot is freed, clients get cleared", async () => {
    const { registry, frames, store } = setup({ maxConcurrentAgentTools: 1 });
    const stuck = registry.runAgentTool("Stubborn", { input: "a", runId: "stubborn" });
    await settle();
    const cleared = await settledWithin(registry.clearAgentToolRuns());
    expect(cleared).toMatchObject({ done: true, value: { runIds: ["stubborn"] } });
    expect(await settledWithin(stuck)).toMatchObject({ done: true, value: { ok: false } });
    expect(await store.listRuns()).toEqual([]);
    expect(frames.at(-1)).toMatchObject({ event: { kind: "cleared", runIds: ["stubborn"] } });
    expect(runIdsOf(frames)).toEqual(new Set(["stubborn"]));
    const next = await settledWithin(registry.runAgentTool("Echo", { input: "b", runId: "next" }));
    expect(next).toMatchObject({ done: true, value: { ok: true } });
  });
});
