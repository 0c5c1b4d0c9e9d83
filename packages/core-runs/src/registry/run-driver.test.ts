// The driver of one run (start, the start acknowledgement, following the child's tail, retries), through the
// registry's public surface: abort signals, tails that break, and a parent that restarts while it follows.
import type { UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import type { ChildRef, ChildTransport } from "../ports/child-transport.js";
import { AGENT_PROGRESS_PART, type AgentToolEventFrame, type AgentToolProgressSnapshot } from "../protocol/index.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { InProcessChildTransport } from "../testing/in-process-child-transport.js";
import { flushMicrotasks, ManualClock } from "../testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "../testing/scripted-child.js";
import type { AgentToolHooks, AgentToolRegistryOptions } from "./registry-options.js";
import { AgentToolRegistry } from "./run-registry.js";

const settle = async (turns = 10) => {
  for (let turn = 0; turn < turns; turn += 1) await flushMicrotasks(50);
};

/** Whether a promise has settled once the microtask queue drained (no real time passes). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await settle();
  return settled;
}

function world(options: Partial<AgentToolRegistryOptions> = {}) {
  const clock = new ManualClock(50_000);
  const scripted = new ScriptedChild("Scripted");
  const echo = echoChild("Echo", { chunks: (input) => textChunks([`echo ${String(input)}`]) });
  const transport = new InProcessChildTransport({ children: [scripted.definition, echo], clock });
  const store = new InMemoryRunStore();
  const frames: AgentToolEventFrame[] = [];
  const registry = new AgentToolRegistry({
    store,
    transport,
    clock,
    broadcast: (frame) => frames.push(frame),
    ...options,
  });
  return { clock, scripted, transport, store, frames, registry };
}

const progressChunk = (snapshot: AgentToolProgressSnapshot) =>
  ({ type: AGENT_PROGRESS_PART, data: snapshot, transient: true }) as unknown as UIMessageChunk;

describe("run driver: the caller's abort signal", () => {
  it("removes its abort listener when each run ends: twelve runs on one signal leave none behind", async () => {
    const { registry } = world();
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, "addEventListener");
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    for (let index = 0; index < 12; index += 1) {
      const result = await registry.runAgentTool("Echo", {
        input: index,
        runId: `r${index}`,
        signal: controller.signal,
      });
      expect(result.ok).toBe(true);
    }
    const abortListeners = (calls: unknown[][]) =>
      calls.filter(([type]) => type === "abort").map(([, listener]) => listener);
    const still = abortListeners(added.mock.calls).filter(
      (listener) => !abortListeners(removed.mock.calls).includes(listener),
    );
    expect(abortListeners(added.mock.calls).length).toBeGreaterThan(0);
    expect(still).toEqual([]);
  });

  it("ends the run with the caller's abort reason", async () => {
    const { registry, scripted } = world();
    const controller = new AbortController();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1", signal: controller.signal });
    await scripted.run("r1").context;
    await settle();
    controller.abort("The user pressed stop");
    expect(await running).toMatchObject({ ok: false, status: "aborted", error: "The user pressed stop" });
  });

  it("says the caller aborted when the signal was aborted with no reason of its own", async () => {
    const { registry, scripted } = world();
    const controller = new AbortController();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1", signal: controller.signal });
    await scripted.run("r1").context;
    await settle();
    controller.abort();
    expect(await running).toMatchObject({ ok: false, status: "aborted", error: "Aborted by the caller" });
  });
});

/** A transport whose tail closes at once (no terminal) and whose inspect answers `null` for the first calls. */
function flakyTransport(inner: ChildTransport, failures: { tails: number; nullInspections: number }) {
  const calls = { tail: 0, inspect: 0 };
  const transport: ChildTransport = {
    start: (ref, input) => inner.start(ref, input),
    cancel: (ref, reason) => inner.cancel(ref, reason),
    destroy: (ref) => inner.destroy(ref),
    inspect: async (ref: ChildRef) => {
      calls.inspect += 1;
      return calls.inspect <= failures.nullInspections ? null : inner.inspect(ref);
    },
    tail: (ref, options) => {
      calls.tail += 1;
      if (calls.tail <= failures.tails) {
        options.onOpen?.();
        return new ReadableStream({ start: (controller) => controller.close() });
      }
      return inner.tail(ref, options);
    },
  };
  return { transport, calls };
}

describe("run driver: a tail that ends early (SPEC §4: null is not failure)", () => {
  it("keeps waiting, with clock-driven pauses, while inspect answers null, and collects the real result", async () => {
    const base = world();
    const { transport, calls } = flakyTransport(base.transport, { tails: 3, nullInspections: 3 });
    const registry = new AgentToolRegistry({ store: new InMemoryRunStore(), transport, clock: base.clock });
    const result = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = base.scripted.run("r1");
    await run.context;
    // Three broken tails, three null inspections: no time has passed, so nothing is given up yet.
    expect(await isSettled(result)).toBe(false);
    const tailsBeforeTime = calls.tail;
    await base.clock.advanceBy(30_000);
    expect(calls.tail).toBeGreaterThan(tailsBeforeTime);
    run.emit(...textChunks(["late but fine"]));
    run.complete();
    expect(await result).toMatchObject({ ok: true, status: "completed", summary: "late but fine" });
  });

  it("gives up as interrupted / not-tailable only once its retry budget is spent, the child maybe running", async () => {
    const base = world();
    const { transport } = flakyTransport(base.transport, { tails: Number.POSITIVE_INFINITY, nullInspections: 0 });
    const registry = new AgentToolRegistry({
      store: new InMemoryRunStore(),
      transport,
      clock: base.clock,
      tailRetry: { budgetMs: 60_000 },
    } as AgentToolRegistryOptions);
    const result = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    await base.scripted.run("r1").context;
    await base.clock.advanceBy(59_000);
    expect(await isSettled(result)).toBe(false);
    await base.clock.advanceBy(2_000);
    expect(await result).toMatchObject({
      ok: false,
      status: "interrupted",
      reason: "not-tailable",
      childStillRunning: true,
    });
  });
});

describe("run driver: a parent restarted while it follows a run (SPEC §9)", () => {
  it("re-attaches from the position it persisted: chunks clients hold are not sent again", async () => {
    const before = world();
    const running = before.registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = before.scripted.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "start-step" }, { type: "text-start", id: "t" });
    run.emit({ type: "text-delta", id: "t", delta: "one " }, { type: "text-delta", id: "t", delta: "two " });
    await settle();
    // Let the parent persist what it followed (writes are bounded in time, not per chunk).
    await before.clock.advanceBy(5_000);
    const sentBefore = before.frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []));
    expect(sentBefore).toEqual([1, 2, 3, 4, 5]);

    // A new parent instance over the same storage (the old one's memory is gone), re-attaching.
    const frames: AgentToolEventFrame[] = [];
    const restarted = new AgentToolRegistry({
      store: before.store,
      transport: before.transport,
      clock: before.clock,
      broadcast: (frame) => frames.push(frame),
    });
    const collected = restarted.waitForAgentToolRun("r1");
    await settle();
    run.emit({ type: "text-delta", id: "t", delta: "three" }, { type: "text-end", id: "t" });
    run.emit({ type: "finish-step" }, { type: "finish" });
    run.complete();
    expect(await collected).toMatchObject({ ok: true, summary: "one two three" });
    const resent = frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []));
    expect(resent).toEqual([6, 7, 8, 9]);
    await running;
  });

  /**
   * A parent following run `r1` of the scripted child, its `onProgress` calls in `seen`; `restart()` is the crash: a
   * new registry on the same store, whose calls go to `seenAfter`. (The old instance stays in this process: a test
   * cannot kill it; only the restarted one's hook counts.)
   */
  async function followedRun() {
    const seen: string[] = [];
    const seenAfter: string[] = [];
    const hooksOf = (into: string[]): AgentToolHooks => ({
      onProgress: (run, snapshot) => void into.push(`${run.runId}:${snapshot.milestone ?? snapshot.message}`),
    });
    const before = world({ hooks: hooksOf(seen) });
    void before.registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = before.scripted.run("r1");
    const context = await run.context;
    const restart = () =>
      new AgentToolRegistry({
        store: before.store,
        transport: before.transport,
        clock: before.clock,
        hooks: hooksOf(seenAfter),
      });
    return { ...before, seen, seenAfter, run, context, restart };
  }

  it("does not fire onProgress again for a milestone reported less than a position write before the crash", async () => {
    const { clock, store, seen, seenAfter, run, context, restart } = await followedRun();
    // The parent's first write copies the log (not the row's position) one write interval (500 ms) after the first
    // chunks; the next one waits for the interval again.
    run.emit({ type: "start" });
    await settle();
    await clock.advanceBy(500);
    await settle();
    expect(await store.readLog("r1")).toHaveLength(1);
    const at = clock.now();
    context.appendChunk({ type: "data-agent-milestone", data: { milestone: "parsed", at } } as UIMessageChunk, {
      name: "parsed",
    });
    await clock.advanceBy(0);
    await settle();
    expect(seen).toEqual(["r1:parsed"]);

    // The parent crashes now, before the interval's timer fires: a new registry on the same store takes over.
    const restarted = restart();
    const collected = restarted.waitForAgentToolRun("r1");
    await settle();
    run.emit({ type: "finish" });
    run.complete();
    await clock.advanceBy(0);
    await collected;
    await restarted.whenIdle();
    expect(seenAfter).toEqual([]);
  });

  it("does not fire onProgress again for a snapshot reported before the restart", async () => {
    const { clock, seen, seenAfter, run, context, restart } = await followedRun();
    await settle();
    const report = (message: string, fraction: number) =>
      context.publishEphemeral(progressChunk({ message, fraction, at: clock.now() }), {
        message,
        fraction,
        at: clock.now(),
      });
    report("half", 0.5);
    await settle();
    await clock.advanceBy(5_000);
    expect(seen).toEqual(["r1:half"]);

    const restarted = restart();
    const collected = restarted.waitForAgentToolRun("r1");
    await settle();
    report("almost", 0.9);
    await settle();
    run.complete();
    await collected;
    await restarted.whenIdle();
    expect(seenAfter).toEqual(["r1:almost"]);
  });
});

describe("run driver: the parent's copy of a burst", () => {
  /**
   * A transport whose child answers `startTail` with its whole run at once: one item of `count` entries, its end;
   * `cancel` is what the tail's stream does when the parent lets go of it.
   */
  function burstTransport(count: number, cancel?: () => Promise<void>): ChildTransport {
    const entries = Array.from({ length: count }, (_, index) => ({
      sequence: index + 1,
      body: { type: "text-delta", id: "t", delta: `${index}` } as UIMessageChunk,
      at: 1,
    }));
    const inspection = { runId: "r1", status: "completed" as const, milestones: [], lastSequence: count, startedAt: 1 };
    const unused = () => Promise.reject(new Error("not used"));
    return {
      start: unused,
      inspect: () => Promise.resolve(inspection),
      tail: () => new ReadableStream({ start: (controller) => controller.error(new Error("not used")) }),
      startTail: async () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue({ type: "entries", entries });
            controller.enqueue({ type: "terminal", inspection });
            if (!cancel) controller.close();
          },
          ...(cancel ? { cancel } : {}),
        }),
      cancel: () => Promise.resolve(),
      destroy: () => Promise.resolve(),
    };
  }

  it("copies the entries of one tail item with one append (none left for the terminal), and leaves no timer", async () => {
    const clock = new ManualClock(50_000);
    const store = new InMemoryRunStore();
    const appended: number[][] = [];
    const appendLog = store.appendLog.bind(store);
    store.appendLog = (runId, entries) => {
      appended.push(entries.map((entry) => entry.sequence));
      return appendLog(runId, entries);
    };
    const registry = new AgentToolRegistry({ store, transport: burstTransport(10), clock });
    const result = await registry.runAgentTool("Burst", { input: "go", runId: "r1" });
    expect(result.ok).toBe(true);
    expect(appended).toEqual([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]);
    expect(await store.readLog("r1")).toHaveLength(10);
    expect(await store.getRun("r1")).toMatchObject({ status: "completed", lastSequence: 10, startAcknowledged: true });
    // No timer left behind for a write that had nothing left to write.
    expect(clock.pendingTimers).toBe(0);
  });

  it("records the terminal without waiting for the tail's cancellation to reach the child", async () => {
    const clock = new ManualClock(50_000);
    const store = new InMemoryRunStore();
    let cancelled = 0;
    // The child's stream stays open after its terminal, and letting go of it never completes (a slow hop to the child).
    const transport = burstTransport(3, () => {
      cancelled += 1;
      return new Promise<void>(() => {});
    });
    const registry = new AgentToolRegistry({ store, transport, clock });
    const result = registry.runAgentTool("Burst", { input: "go", runId: "r1" });
    expect(await isSettled(result)).toBe(true);
    expect(await result).toMatchObject({ ok: true });
    expect(cancelled).toBe(1);
    expect(await store.getRun("r1")).toMatchObject({ status: "completed", lastSequence: 3 });
  });
});
