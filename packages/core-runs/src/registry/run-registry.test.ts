import { describe, expect, it } from "vitest";
import { AgentToolsError } from "../errors.js";
import type { RunEvent } from "../events/run-events.js";
import type { ChildTransport } from "../ports/child-transport.js";
import type { AgentToolEventFrame, AgentToolRunInfo } from "../protocol/index.js";
import { inMemoryRegistry } from "../testing/in-memory-registry.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { InProcessChildTransport } from "../testing/in-process-child-transport.js";
import { ManualClock } from "../testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "../testing/scripted-child.js";
import type { AgentToolHooks, AgentToolRegistryOptions } from "./registry-options.js";
import { AgentToolRegistry } from "./run-registry.js";

type Setup = {
  registry: AgentToolRegistry;
  store: InMemoryRunStore;
  transport: InProcessChildTransport;
  frames: AgentToolEventFrame[];
  events: RunEvent[];
  clock: ManualClock;
  echo: ReturnType<typeof echoChild>;
  scripted: ScriptedChild;
};

function setup(options: Partial<AgentToolRegistryOptions> & { hooks?: AgentToolHooks } = {}): Setup {
  const clock = new ManualClock(10_000);
  const echo = echoChild("Echo", { chunks: (input) => textChunks([`echo ${String(input)}`]) });
  const scripted = new ScriptedChild("Scripted");
  const { registry, store, transport, frames, sink } = inMemoryRegistry([echo, scripted.definition], clock, options);
  const events: RunEvent[] = [];
  sink.subscribe((event) => events.push(event));
  return { registry, store, transport, frames, events, clock, echo, scripted };
}

const kinds = (frames: AgentToolEventFrame[]) => frames.map((frame) => frame.event.kind);
/** The registry's extension seam, as a test package sees it (its state: any object). */
const extensionOf = (registry: AgentToolRegistry) =>
  registry.extension<Record<string, unknown>>({
    key: "test",
    read: (value) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null),
  });
const settle = async () => {
  for (let index = 0; index < 50; index += 1) await Promise.resolve();
};

describe("AgentToolRegistry: awaited runs", () => {
  it("runs a child to completion, forwarding chunks with the child's sequences and lifecycle revisions", async () => {
    const { registry, frames, echo } = setup();
    const result = await registry.runAgentTool("Echo", { input: "hi", runId: "r1", parentToolCallId: "call-1" });
    expect(result).toEqual({ ok: true, runId: "r1", agentType: "Echo", status: "completed", summary: "echo hi" });
    expect(echo.turns).toEqual(["r1"]);
    expect(kinds(frames)).toEqual(["started", ...Array(7).fill("chunk"), "finished"]);
    expect(frames[0]).toMatchObject({ revision: 1, parentToolCallId: "call-1", event: { agentType: "Echo" } });
    expect(frames.slice(1, 8).map((frame) => frame.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(frames.at(-1)).toMatchObject({ revision: 3, event: { kind: "finished", summary: "echo hi" } });
    expect(frames.every((frame) => frame.replay === undefined)).toBe(true);
    const info = await registry.getAgentToolRun("r1");
    expect(info).toMatchObject({ status: "completed", revision: 3, startedAt: 10_000, completedAt: 10_000 });
  });

  it("is idempotent by runId: concurrent and later dispatches never start a second turn", async () => {
    const { registry, scripted, transport } = setup();
    const first = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const second = registry.runAgentTool("Scripted", { input: "b", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit(...textChunks(["done"]));
    run.complete();
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(b);
    expect(a.ok).toBe(true);
    const later = await registry.runAgentTool("Scripted", { input: "c", runId: "r1" });
    expect(later).toEqual(a);
    expect(scripted.turns).toEqual(["r1"]);
    expect(transport.calls.filter((call) => call.method === "start" || call.method === "startTail")).toHaveLength(1);
  });

  it("re-attaches a live run on re-dispatch and returns its real result", async () => {
    const { registry, scripted } = setup();
    const first = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit({ type: "start" });
    await settle();
    const again = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    run.emit(...textChunks(["late"]).slice(1));
    run.complete();
    expect((await again).ok).toBe(true);
    expect(await first).toEqual(await again);
  });

  it("refuses a runId re-dispatched with another agentType", async () => {
    const { registry } = setup();
    await registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    const result = await registry.runAgentTool("Scripted", { input: "x", runId: "r1" });
    expect(result).toMatchObject({ ok: false, status: "error", retryable: false });
    expect((await registry.getAgentToolRun("r1"))?.agentType).toBe("Echo");
  });

  it("records a dispatch that throws as error: no row left starting, no slot held", async () => {
    const { registry, store, frames } = setup({ maxConcurrentAgentTools: 1 });
    const result = await registry.runAgentTool("Unknown", { input: "x", runId: "r1" });
    expect(result).toMatchObject({ ok: false, status: "error" });
    expect(result.ok ? "" : result.error).toContain("Could not start the child");
    expect((await store.getRun("r1"))?.status).toBe("error");
    expect(kinds(frames)).toEqual(["started", "error"]);
    // the slot was released: the next run goes through under a cap of 1
    expect((await registry.runAgentTool("Echo", { input: "y", runId: "r2" })).ok).toBe(true);
  });

  it("enforces maxConcurrentAgentTools: over the cap is recorded as error and not started", async () => {
    const { registry, scripted, transport, frames } = setup({ maxConcurrentAgentTools: 1 });
    const first = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    const refused = await registry.runAgentTool("Echo", { input: "b", runId: "r2" });
    expect(refused).toMatchObject({
      ok: false,
      status: "error",
      error: "maxConcurrentAgentTools (1) exceeded",
      rejection: "max-concurrency",
    });
    expect(transport.calls.some((call) => call.ref.runId === "r2")).toBe(false);
    expect(
      frames.filter((frame) => "runId" in frame.event && frame.event.runId === "r2").map((frame) => frame.revision),
    ).toEqual([1, 2]);
    scripted.run("r1").complete();
    await first;
    expect((await registry.runAgentTool("Echo", { input: "c", runId: "r3" })).ok).toBe(true);
  });

  it("types an over-cap refusal recorded as error: rejection max-concurrency, and the runId is spent", async () => {
    const { registry, scripted, store } = setup({ maxConcurrentAgentTools: 1 });
    const first = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    const refused = await extensionOf(registry).admit("Echo", { input: "b", runId: "r2" });
    expect(refused).toMatchObject({
      ok: true,
      created: true,
      rejection: "max-concurrency",
      record: { status: "error" },
    });
    scripted.run("r1").complete();
    await first;
    // SPEC §3: a re-dispatch of the refused runId returns its stored error and starts nothing.
    expect(await registry.runAgentTool("Echo", { input: "b", runId: "r2" })).toMatchObject({ ok: false });
    expect((await store.getRun("r2"))?.status).toBe("error");
  });

  it("with overCap: refuse, refuses over the cap like oversized input: no row, frame or hook; the runId can retry", async () => {
    const started: string[] = [];
    const { registry, scripted, store, frames, events, transport } = setup({
      maxConcurrentAgentTools: 1,
      overCap: "refuse",
      hooks: { onAgentToolStart: (run) => void started.push(run.runId) },
    });
    const first = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    const refused = await extensionOf(registry).admit("Echo", { input: "b", runId: "r2" });
    expect(refused).toMatchObject({
      ok: false,
      rejection: "max-concurrency",
      failure: { ok: false, status: "error", error: "maxConcurrentAgentTools (1) exceeded" },
    });
    expect(await registry.runAgentTool("Echo", { input: "b", runId: "r2" })).toMatchObject({
      ok: false,
      error: "maxConcurrentAgentTools (1) exceeded",
      rejection: "max-concurrency",
    });
    await registry.whenIdle();
    expect(await store.getRun("r2")).toBeNull();
    expect(frames.some((frame) => "runId" in frame.event && frame.event.runId === "r2")).toBe(false);
    expect(started).toEqual(["r1"]);
    expect(transport.calls.some((call) => call.ref.runId === "r2")).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "agent_tool:run:rejected", runId: "r2", rejection: "max-concurrency" }),
    );
    // The slot frees when r1 ends; the same runId is then admitted and runs.
    scripted.run("r1").complete();
    await first;
    expect(await registry.runAgentTool("Echo", { input: "b", runId: "r2" })).toMatchObject({
      ok: true,
      status: "completed",
    });
  });

  it("starts and tails a run in one call to the child (startTail); the acknowledgement rides on the terminal write", async () => {
    const { registry, scripted, store, transport, events } = setup();
    const writes: string[] = [];
    const updateRun = store.updateRun.bind(store);
    store.updateRun = (runId, patch, condition) => {
      writes.push(`${patch.status ?? "-"}${patch.startAcknowledged ? " +acknowledged" : ""}`);
      return updateRun(runId, patch, condition);
    };
    const startTail = transport.startTail.bind(transport);
    transport.startTail = async (ref, input, options, tail) => {
      writes.push("startTail");
      const stream = await startTail(ref, input, options, tail);
      writes.push("answered");
      return stream;
    };
    const result = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    await settle();
    // Answered, and not written yet: the row keeps the input (a restart now starts the child again, idempotently);
    // the registry shows the run as it will be written.
    expect(writes).toEqual(["startTail", "answered"]);
    expect(await store.getRun("r1")).toMatchObject({ status: "starting", revision: 1, input: "a" });
    expect(await registry.getAgentToolRun("r1")).toMatchObject({ status: "running", revision: 2 });
    expect((await registry.listAgentToolRuns({ status: ["running"] })).map((info) => info.runId)).toEqual(["r1"]);
    run.emit(...textChunks(["done"]));
    run.complete();
    expect(await result).toMatchObject({ ok: true });
    // One write of the row after the insert: the terminal, with the acknowledgement (the revisions as before).
    expect(writes).toEqual(["startTail", "answered", "completed +acknowledged"]);
    const stored = await store.getRun("r1");
    expect(stored).toMatchObject({
      status: "completed",
      revision: 3,
      startAcknowledged: true,
      lastSequence: textChunks(["done"]).length,
    });
    expect(stored?.input).toBeUndefined();
    const lifecycle = events.filter(
      (event) => event.type === "agent_tool:run:start" || event.type === "agent_tool:run:finish",
    );
    expect(lifecycle.map((event) => event.type)).toEqual(["agent_tool:run:start", "agent_tool:run:finish"]);
    expect(lifecycle[1]).toMatchObject({ previousStatus: "running" });
    expect(transport.calls.map((call) => call.method)).toEqual(["startTail"]);
  });

  it("writes a short run's row twice, its insert and its terminal, and its log copy between", async () => {
    const { registry, echo, store } = setup();
    const writes: string[] = [];
    for (const method of ["insertRun", "updateRun", "appendLog"] as const) {
      const original = store[method].bind(store) as (...args: unknown[]) => Promise<never>;
      Object.assign(store, {
        [method]: (...args: unknown[]) => {
          writes.push(method);
          return original(...args);
        },
      });
    }
    expect(await registry.runAgentTool("Echo", { input: "a", runId: "r1" })).toMatchObject({ ok: true });
    expect(echo.turns).toEqual(["r1"]);
    expect(writes[0]).toBe("insertRun");
    expect(writes.at(-1)).toBe("updateRun");
    expect(writes.slice(1, -1).every((method) => method === "appendLog")).toBe(true);
    expect(await store.getRun("r1")).toMatchObject({ status: "completed", revision: 3, startAcknowledged: true });
  });

  it("writes the acknowledgement with the first position write of a longer run (a transport without startTail)", async () => {
    const { registry, scripted, store, transport, clock } = setup();
    Object.assign(transport, { startTail: undefined });
    const order: string[] = [];
    const updateRun = store.updateRun.bind(store);
    store.updateRun = (runId, patch, condition) => {
      order.push(patch.startAcknowledged ? "acknowledge" : `position ${patch.lastSequence ?? "-"}`);
      return updateRun(runId, patch, condition);
    };
    const result = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit({ type: "start" });
    await settle();
    // The first write, an interval after the first chunks, copies the log alone.
    await clock.advanceBy(500);
    expect(order).toEqual([]);
    expect(await store.readLog("r1")).toHaveLength(1);
    run.emit({ type: "start-step" });
    await clock.advanceBy(500);
    expect(order).toEqual(["acknowledge", "position 2"]);
    expect(await store.getRun("r1")).toMatchObject({ status: "running", startAcknowledged: true, lastSequence: 2 });
    expect((await store.getRun("r1"))?.input).toBeUndefined();
    run.complete();
    expect(await result).toMatchObject({ ok: true });
  });

  it("starts the child again, idempotently, after a restart between its answer and the acknowledgement's write", async () => {
    const { registry, scripted, store, transport, clock } = setup();
    void registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "text-start", id: "t" });
    await settle();
    await clock.advanceBy(500);
    // The kill point: the child runs the turn; the parent's row says only that it asked, its copy of the log holds
    // what it forwarded (one write interval after its first chunks).
    expect(await store.getRun("r1")).toMatchObject({ status: "starting", startAcknowledged: false, input: "a" });
    expect((await store.readLog("r1")).map((entry) => entry.sequence)).toEqual([1, 2]);

    const frames: AgentToolEventFrame[] = [];
    const restarted = new AgentToolRegistry({ store, transport, clock, broadcast: (frame) => frames.push(frame) });
    const collected = restarted.waitForAgentToolRun("r1");
    await settle();
    run.emit({ type: "text-delta", id: "t", delta: "once" }, { type: "text-end", id: "t" }, { type: "finish" });
    run.complete();
    expect(await collected).toMatchObject({ ok: true, summary: "once" });
    expect(scripted.turns).toEqual(["r1"]);
    expect(transport.calls.map((call) => call.method)).toEqual(["startTail", "startTail"]);
    // Clients are not sent again what the parent had stored.
    expect(frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []))).toEqual([3, 4, 5]);
    const stored = await store.getRun("r1");
    expect(stored).toMatchObject({ status: "completed", startAcknowledged: true, lastSequence: 5 });
    expect(stored?.input).toBeUndefined();
  });

  it("takes slots atomically when many dispatch at once", async () => {
    const { registry, scripted } = setup({ maxConcurrentAgentTools: 3 });
    const runs = Array.from({ length: 10 }, (_, index) =>
      registry.runAgentTool("Scripted", { input: index, runId: `r${index}` }),
    );
    await settle();
    expect(scripted.turns).toHaveLength(3);
    for (const runId of scripted.turns) scripted.run(runId).complete();
    const results = await Promise.all(runs);
    expect(results.filter((result) => result.ok)).toHaveLength(3);
    expect(results.filter((result) => !result.ok)).toHaveLength(7);
  });

  it("refuses input over maxAgentToolInputBytes before any run exists", async () => {
    const { registry, store, frames, events } = setup({ maxAgentToolInputBytes: 10 });
    const result = await registry.runAgentTool("Echo", { input: "x".repeat(11), runId: "big" });
    expect(result).toMatchObject({ ok: false, status: "error", rejection: "input-too-large" });
    expect(await store.listRuns()).toEqual([]);
    expect(frames).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "agent_tool:run:rejected", rejection: "input-too-large" }),
    );
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(await registry.runAgentTool("Echo", { input: cyclic, runId: "cyclic" })).toMatchObject({ ok: false });
    expect(await store.listRuns()).toEqual([]);
  });

  it("keeps the full input until the child acknowledges start, then only a preview", async () => {
    const { registry, store, transport } = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const startTail = transport.startTail.bind(transport);
    transport.startTail = async (ref, input, options, tail) => {
      await gate;
      return startTail(ref, input, options, tail);
    };
    const input = { text: "y".repeat(600) };
    const running = registry.runAgentTool("Echo", { input, runId: "r1" });
    await settle();
    const before = await store.getRun("r1");
    expect(before).toMatchObject({ status: "starting", input, startAcknowledged: false });
    expect(before?.inputPreview).toHaveLength(500);
    release();
    await running;
    const after = await store.getRun("r1");
    expect(after?.input).toBeUndefined();
    expect(after?.inputPreview).toBe(JSON.stringify(input).slice(0, 500));
  });

  it("cancels the child when the signal aborts: the run ends aborted", async () => {
    const { registry, scripted } = setup();
    const controller = new AbortController();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1", signal: controller.signal });
    const run = scripted.run("r1");
    await run.context;
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ ok: false, status: "aborted", retryable: false });
    expect((await run.context).abortSignal.aborted).toBe(true);
  });

  it("does not start the child when the signal aborted before dispatch", async () => {
    const { registry, scripted, events } = setup();
    const controller = new AbortController();
    controller.abort();
    const result = await registry.runAgentTool("Scripted", { input: "a", runId: "r1", signal: controller.signal });
    expect(result).toMatchObject({ ok: false, status: "aborted" });
    expect(scripted.turns).toEqual([]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "agent_tool:run:finish", status: "aborted", cause: "cancelled-before-start" }),
    );
  });

  it("ends a run whose cancel cannot reach the child as aborted, caused child-unreachable", async () => {
    const { registry, scripted, transport, events, store } = setup();
    const result = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    transport.cancel = async () => {
      throw new Error("network down");
    };
    expect(await registry.cancelAgentTool("r1")).toBe(true);
    expect(await result).toMatchObject({ ok: false, status: "aborted" });
    expect(await store.getRun("r1")).toMatchObject({ status: "aborted", endCause: "child-unreachable" });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "agent_tool:run:finish", status: "aborted", cause: "child-unreachable" }),
    );
  });

  it("fires onAgentToolStart once and onAgentToolFinish once per run, isolating throwing hooks", async () => {
    const started: string[] = [];
    const finished: Array<[AgentToolRunInfo, unknown]> = [];
    const { registry, store, events } = setup({
      hooks: {
        onAgentToolStart(run) {
          started.push(run.runId);
          throw new Error("start hook bug");
        },
        async onAgentToolFinish(run, result) {
          finished.push([run, result]);
          throw new Error("finish hook bug");
        },
      },
    });
    const result = await registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    await registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    expect(result.ok).toBe(true);
    expect(started).toEqual(["r1"]);
    expect(finished).toHaveLength(1);
    expect(finished[0]?.[1]).toEqual({ status: "completed", summary: "echo x" });
    expect(
      events.filter((event) => event.type === "agent_tool:hook:error").map((event) => event["hook" as never]),
    ).toEqual(["onAgentToolStart", "onAgentToolFinish"]);
    expect((await store.getRun("r1"))?.finishNotifiedRevision).toBe(3);
  });

  it("delivers a finish hook the ledger says was never called (a crash between recording and the hook)", async () => {
    const finished: string[] = [];
    const { registry, store } = setup({ hooks: { onAgentToolFinish: (run) => void finished.push(run.runId) } });
    await registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    await registry.whenIdle();
    expect((await store.getRun("r1"))?.attention).toBeUndefined(); // the ledger was written: nothing left to do
    // The row as a crash between recording the terminal and calling the hook leaves it: ledger behind, marked.
    await store.updateRun("r1", { finishNotifiedRevision: undefined, attention: { finish: true } });
    const restarted = new AgentToolRegistry({
      store,
      transport: new InProcessChildTransport({ children: [] }),
      hooks: { onAgentToolFinish: (run) => void finished.push(`again:${run.runId}`) },
    });
    expect(await restarted.deliverPendingFinishHooks()).toBe(1);
    expect(await restarted.deliverPendingFinishHooks()).toBe(0);
    expect(finished).toEqual(["r1", "again:r1"]);
    expect((await store.getRun("r1"))?.attention).toBeUndefined();
  });

  it("marks a finished run for start-up until its finish hook was called, and start-up reads only marked rows", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { registry, store } = setup({ hooks: { onAgentToolFinish: () => held } });
    for (const runId of ["a", "b", "c"]) await registry.runAgentTool("Echo", { input: "x", runId });
    // Every hook still runs: each row says the registry has work on it.
    expect((await store.listRuns({ attention: true })).map((record) => record.runId)).toEqual(["a", "b", "c"]);
    release();
    await registry.whenIdle();
    expect(await store.listRuns({ attention: true })).toEqual([]);
    // A start-up over these rows reads none of them.
    store.resetStats();
    const restarted = new AgentToolRegistry({
      store,
      transport: new InProcessChildTransport({ children: [] }),
      hooks: { onAgentToolFinish: () => undefined },
    });
    expect(await restarted.deliverPendingFinishHooks()).toBe(0);
    expect(store.stats).toEqual({ reads: 1, writes: 0 });
  });

  it("scopes runIds to their parent: two parents with one runId get two children", async () => {
    const a = setup();
    const b = setup();
    await a.registry.runAgentTool("Echo", { input: "from a", runId: "same" });
    await b.registry.runAgentTool("Echo", { input: "from b", runId: "same" });
    expect(await a.registry.runAgentTool("Echo", { input: "?", runId: "same" })).toMatchObject({
      summary: "echo from a",
    });
    expect(await b.registry.runAgentTool("Echo", { input: "?", runId: "same" })).toMatchObject({
      summary: "echo from b",
    });
  });

  it("finalizes as interrupted (not-tailable) once its retry budget is spent on a tail that keeps breaking", async () => {
    const { transport, clock } = setup();
    const brokenTransport: ChildTransport = {
      start: (ref, input) => transport.start(ref, input),
      inspect: (ref) => transport.inspect(ref),
      cancel: (ref, reason) => transport.cancel(ref, reason),
      destroy: (ref) => transport.destroy(ref),
      tail: () =>
        new ReadableStream({
          start(controller) {
            controller.error(new Error("connection reset"));
          },
        }),
    };
    const broken = new AgentToolRegistry({
      store: new InMemoryRunStore(),
      transport: brokenTransport,
      clock,
      tailRetry: { budgetMs: 5_000 },
    });
    const result = broken.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await clock.advanceBy(5_000);
    expect(await result).toMatchObject({
      ok: false,
      status: "interrupted",
      retryable: true,
      reason: "not-tailable",
      childStillRunning: true,
    });
  });
});

describe("AgentToolRegistry: onFrame (a caller following its own run)", () => {
  it("hands the caller every frame of its new run, the same its clients get, and nothing of other runs", async () => {
    const { registry, frames } = setup();
    const seen: AgentToolEventFrame[] = [];
    await registry.runAgentTool("Echo", { input: "other", runId: "r0" });
    await registry.runAgentTool("Echo", { input: "hi", runId: "r1", onFrame: (frame) => seen.push(frame) });
    expect(seen).toEqual(frames.filter((frame) => frame.event.kind !== "cleared" && frame.event.runId === "r1"));
    expect(kinds(seen)).toEqual(["started", ...textChunks(["x"]).map(() => "chunk"), "finished"]);
  });

  it("replays what the parent holds of a run that existed, then goes on live; stops when the call returns", async () => {
    const { registry, scripted, clock } = setup();
    const first = registry.runAgentTool("Scripted", { input: 1, runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit(...textChunks(["a"]).slice(0, 3));
    await settle();
    await clock.advanceBy(0); // the child writes the burst when the event loop turns
    await settle();
    const seen: AgentToolEventFrame[] = [];
    const second = registry.runAgentTool("Scripted", { input: 1, runId: "r1", onFrame: (frame) => seen.push(frame) });
    await settle();
    expect(seen.slice(0, 4).map((frame) => [frame.event.kind, frame.sequence, frame.replay])).toEqual([
      ["started", undefined, true],
      ["chunk", 1, true],
      ["chunk", 2, true],
      ["chunk", 3, true],
    ]);
    run.emit(...textChunks(["a"]).slice(3));
    run.complete();
    await Promise.all([first, second]);
    const count = seen.length;
    expect(kinds(seen).at(-1)).toBe("finished");
    await registry.runAgentTool("Scripted", { input: 1, runId: "r1" });
    await registry.clearAgentToolRuns();
    expect(seen).toHaveLength(count);
  });

  it("a throwing onFrame changes nothing for the run or its clients", async () => {
    const { registry, frames } = setup();
    const result = await registry.runAgentTool("Echo", {
      input: "hi",
      runId: "r1",
      onFrame: () => {
        throw new Error("listener bug");
      },
    });
    expect(result).toMatchObject({ ok: true, summary: "echo hi" });
    expect(kinds(frames).at(-1)).toBe("finished");
  });
});

describe("AgentToolRegistry: replay, clear, access", () => {
  async function withFinishedRuns(count: number) {
    const context = setup();
    for (let index = 0; index < count; index += 1) {
      await context.registry.runAgentTool("Echo", { input: `n${index}`, runId: `r${index}`, displayOrder: index });
    }
    return context;
  }

  it("replays every retained run to one connection, from the parent's copy, without waking children", async () => {
    const { registry, transport, frames } = await withFinishedRuns(2);
    const live = frames.slice();
    const callsBefore = transport.calls.length;
    const replayed: AgentToolEventFrame[] = [];
    const { runs, frames: count } = await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(transport.calls.length).toBe(callsBefore);
    expect(runs).toBe(2);
    expect(count).toBe(replayed.length);
    expect(replayed.every((frame) => frame.replay === true)).toBe(true);
    expect(replayed.map(({ replay: _replay, ...frame }) => frame)).toEqual(live);
  });

  it("replays only what is newer than the client's cursors, and cleared for runs it names that are gone", async () => {
    const { registry } = await withFinishedRuns(2);
    const upToDate: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => upToDate.push(frame), {
      cursors: { r0: { sequence: 7, revision: 3 }, r1: { sequence: 7, revision: 3 } },
    });
    expect(upToDate).toEqual([]);

    const missed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => missed.push(frame), {
      cursors: {
        r0: { sequence: 7, revision: 3 },
        r1: { sequence: 5, revision: 1 },
        gone: { sequence: 2, revision: 1 },
      },
    });
    expect(missed.map((frame) => [frame.event.kind, frame.sequence ?? frame.revision])).toEqual([
      ["chunk", 6],
      ["chunk", 7],
      ["finished", 3],
      ["cleared", undefined],
    ]);
    expect(missed.at(-1)?.event).toEqual({ kind: "cleared", runIds: ["gone"] });
  });

  it("sends started to a client that knows a run only from its chunks (cursor revision 0)", async () => {
    const { registry } = await withFinishedRuns(1);
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame), {
      cursors: { r0: { sequence: 7, revision: 0 } },
    });
    expect(replayed.map((frame) => frame.event.kind)).toEqual(["started", "finished"]);
    expect(replayed[1]?.event).toMatchObject({ kind: "finished", completedAt: 10_000 });
  });

  it("replays a live run's chunks seen so far", async () => {
    const { registry, scripted, clock } = setup();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "text-start", id: "t" });
    // The child writes a burst's first chunk at once, the rest when the event loop turns (here: the clock moves).
    await clock.advanceBy(0);
    await settle();
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(replayed.map((frame) => frame.event.kind)).toEqual(["started", "chunk", "chunk"]);
    run.complete();
    await running;
  });

  it("clears runs: cancels live children first, deletes their storage, tells clients", async () => {
    const finished: string[] = [];
    const { registry, scripted, transport, frames, store } = setup({
      hooks: { onAgentToolFinish: (run, result) => void finished.push(`${run.runId}:${result.status}`) },
    });
    await registry.runAgentTool("Echo", { input: "x", runId: "done" });
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "live" });
    const run = scripted.run("live");
    await run.context;
    const { runIds } = await registry.clearAgentToolRuns();
    expect(runIds.sort()).toEqual(["done", "live"]);
    expect((await run.context).abortSignal.aborted).toBe(true);
    expect(await running).toMatchObject({ ok: false, status: "aborted" });
    expect(transport.hasChild({ agentType: "Echo", runId: "done" })).toBe(false);
    expect(transport.hasChild({ agentType: "Scripted", runId: "live" })).toBe(false);
    expect(await store.listRuns()).toEqual([]);
    expect(await registry.hasAgentToolRun("Echo", "done")).toBe(false);
    expect(frames.at(-1)?.event).toEqual({ kind: "cleared", runIds: ["done", "live"] });
    expect(frames.filter((frame) => frame.event.kind === "aborted")).toEqual([]);
    expect(finished).toEqual(["done:completed", "live:aborted"]);
  });

  it("clears by status and age", async () => {
    const { registry, clock } = setup();
    await registry.runAgentTool("Echo", { input: "x", runId: "old" });
    await clock.advanceBy(1_000);
    await registry.runAgentTool("Echo", { input: "x", runId: "new" });
    await registry.runAgentTool("Unknown", { input: "x", runId: "failed" });
    expect((await registry.clearAgentToolRuns({ status: ["error"] })).runIds).toEqual(["failed"]);
    expect((await registry.clearAgentToolRuns({ olderThan: 10_500 })).runIds).toEqual(["old"]);
    expect((await registry.listAgentToolRuns()).map((run) => run.runId)).toEqual(["new"]);
    expect((await registry.clearAgentToolRuns({ olderThan: 0 })).runIds).toEqual([]);
  });

  it("answers hasAgentToolRun only for runs it created, of that agentType", async () => {
    const { registry } = await withFinishedRuns(1);
    expect(await registry.hasAgentToolRun("Echo", "r0")).toBe(true);
    expect(await registry.hasAgentToolRun("Scripted", "r0")).toBe(false);
    expect(await registry.hasAgentToolRun("Echo", "guessed")).toBe(false);
  });

  it("cancelAgentTool ends a live run aborted and is idempotent", async () => {
    const { registry, scripted } = setup();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    await settle();
    expect(await registry.cancelAgentTool("r1")).toBe(true);
    expect(await running).toMatchObject({ status: "aborted" });
    expect(await registry.cancelAgentTool("r1")).toBe(false);
    expect(await registry.cancelAgentTool("unknown")).toBe(false);
  });
});

describe("AgentToolRegistry: following and giving up (the building blocks of recovery)", () => {
  it("follows a live run, reporting activity, and records the outcome given when it stops waiting", async () => {
    const finished: string[] = [];
    const { registry, scripted, frames, store } = setup({
      hooks: { onAgentToolFinish: (run, result) => void finished.push(`${run.runId}:${result.status}`) },
    });
    const extension = extensionOf(registry);
    const { ok } = await extension.admit("Scripted", { input: "a", runId: "r1" });
    expect(ok).toBe(true);
    const run = scripted.run("r1");
    await run.context;
    const activity: string[] = [];
    const following = extension.follow("r1", { onActivity: (item) => activity.push(item.type) });
    await settle();
    run.emit({ type: "start" });
    await settle();
    expect(activity).toEqual(["entries"]);
    const record = await following.stop({
      status: "interrupted",
      reason: "no-progress",
      childStillRunning: true,
      error: "silent too long",
    });
    expect(await following.done).toEqual(record);
    expect(record).toMatchObject({
      status: "interrupted",
      reason: "no-progress",
      childStillRunning: true,
      endCause: "given-up",
    });
    expect(frames.at(-1)).toMatchObject({
      revision: 3,
      event: { kind: "interrupted", reason: "no-progress", childStillRunning: true, error: "silent too long" },
    });
    expect(finished).toEqual(["r1:interrupted"]);

    // Soft: a re-dispatch re-attaches and collects the real result, which repairs the run.
    const again = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await settle();
    run.emit({ type: "finish" });
    run.complete();
    expect(await again).toMatchObject({ ok: true, status: "completed" });
    const repaired = await store.getRun("r1");
    expect(repaired).toMatchObject({ status: "completed", revision: 4, endCause: "child" });
    expect(repaired?.reason).toBeUndefined();
    expect(repaired?.childStillRunning).toBeUndefined();
    expect(finished).toEqual(["r1:interrupted", "r1:completed"]);
    expect(scripted.turns).toEqual(["r1"]);
  });

  it("records a second soft outcome quietly: no new revision, frame or hook", async () => {
    const finished: string[] = [];
    const { registry, scripted, frames } = setup({
      hooks: { onAgentToolFinish: (run, result) => void finished.push(`${run.runId}:${result.status}`) },
    });
    const extension = extensionOf(registry);
    await extension.admit("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    await extension
      .follow("r1")
      .stop({ status: "interrupted", reason: "no-progress", childStillRunning: true, error: "silent" });
    const framesBefore = frames.length;
    const before = await registry.getAgentToolRun("r1");
    const quiet = await extension.finalize("r1", {
      status: "interrupted",
      reason: "no-progress",
      childStillRunning: false,
      error: "torn down",
    });
    await registry.whenIdle();
    expect(before?.status).toBe("interrupted");
    expect(quiet).toMatchObject({ status: "interrupted", revision: before?.revision, childStillRunning: false });
    expect(frames.length).toBe(framesBefore);
    expect(finished).toEqual(["r1:interrupted"]);
  });

  it("does not re-attach an interrupted run whose child was torn down", async () => {
    const { registry, scripted } = setup();
    const extension = extensionOf(registry);
    await extension.admit("Scripted", { input: "a", runId: "r1" });
    await scripted.run("r1").context;
    await extension
      .follow("r1")
      .stop({ status: "interrupted", reason: "window-exceeded", childStillRunning: false, error: "too long" });
    const result = await registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    expect(result).toMatchObject({
      ok: false,
      status: "interrupted",
      reason: "window-exceeded",
      childStillRunning: false,
    });
    expect(scripted.turns).toEqual(["r1"]);
  });

  it("finalizes a run it is not following, once; a hard terminal never changes", async () => {
    const { registry, frames } = setup();
    await registry.runAgentTool("Echo", { input: "x", runId: "done" });
    const unchanged = await extensionOf(registry).finalize("done", { status: "error", error: "late" });
    expect(unchanged?.status).toBe("completed");
    expect(frames.filter((frame) => frame.event.kind === "error")).toEqual([]);
    expect(await extensionOf(registry).finalize("unknown", { status: "error", error: "x" })).toBeNull();
  });
});

describe("AgentToolRegistry: finish listeners", () => {
  it("tells listeners of every terminal transition, isolating a throwing one", async () => {
    const { registry } = setup();
    const seen: string[] = [];
    const extension = extensionOf(registry);
    extension.onRunFinished(() => {
      throw new Error("listener bug");
    });
    const remove = extension.onRunFinished(
      (record, previous) => void seen.push(`${record.runId}:${previous}->${record.status}`),
    );
    expect((await registry.runAgentTool("Echo", { input: "x", runId: "r1" })).ok).toBe(true);
    await registry.runAgentTool("Unknown", { input: "x", runId: "r2" });
    remove();
    await registry.runAgentTool("Echo", { input: "x", runId: "r3" });
    expect(seen).toEqual(["r1:running->completed", "r2:starting->error"]);
  });
});

describe("AgentToolRegistry: porting hazards from the seed", () => {
  it("rejects runAgentTool({ detached: true }) from untyped code with a typed error naming the detached package", async () => {
    const { registry, store, transport } = setup();
    const untyped = registry.runAgentTool as (child: string, options: Record<string, unknown>) => Promise<unknown>;
    const rejection = await untyped.call(registry, "Echo", { input: "x", runId: "bg", detached: true }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(AgentToolsError.isInstance(rejection)).toBe(true);
    expect(rejection).toMatchObject({ code: "INVALID_ARGUMENT" });
    expect((rejection as Error).message).toContain("@agent-tools/detached");
    expect(await store.listRuns()).toEqual([]);
    expect(transport.calls).toEqual([]);
  });
});
