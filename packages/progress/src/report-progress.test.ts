import {
  type AgentToolChildDefinition,
  AgentToolChildRunner,
  type AgentToolEventFrame,
  type AgentToolProgressSnapshot,
  type AgentToolRunInfo,
  AgentToolsError,
  type AgentToolTailItem,
  type RunStore,
  tailItemEntries,
} from "@agent-tools/core-runs";
import {
  flushMicrotasks,
  InMemoryRunStore,
  inMemoryRegistry,
  ManualClock,
  ScriptedChild,
  textChunks,
} from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { createProgressReporter, type ProgressTarget } from "./report-progress.js";

type Published = { body: UIMessageChunk; snapshot: AgentToolProgressSnapshot | undefined; sentAt: number };
type Appended = { body: UIMessageChunk; name: string | undefined; sequence: number };

/** A turn context that records what the reporter sends, and can be ended like a finished run. */
function recordingTarget(clock: ManualClock) {
  const published: Published[] = [];
  const appended: Appended[] = [];
  let isEnded = false;
  let sequence = 0;
  const target: ProgressTarget = {
    clock,
    publishEphemeral(body, snapshot) {
      if (isEnded) return false;
      published.push({ body, snapshot, sentAt: clock.now() });
      return true;
    },
    appendChunk(body, milestone) {
      if (isEnded) return null;
      sequence += 1;
      appended.push({ body, name: milestone?.name, sequence });
      return sequence;
    },
  };
  return {
    target,
    published,
    appended,
    end() {
      isEnded = true;
    },
  };
}

const fractions = (published: Published[]) =>
  published.map((item) => (item.body as { data: { fraction?: number } }).data.fraction);
const sentAt = (published: Published[]) => published.map((item) => item.sentAt);

async function collectInto(stream: ReadableStream<AgentToolTailItem>, items: AgentToolTailItem[]): Promise<void> {
  for await (const item of stream as unknown as AsyncIterable<AgentToolTailItem>) items.push(item);
}

function gate() {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A real child runner on an in-memory store, its scripted turn, and a tail from sequence 0. */
async function startChildRun() {
  const clock = new ManualClock(1_000);
  const store: RunStore = new InMemoryRunStore();
  const child = new ScriptedChild("Importer");
  const runner = new AgentToolChildRunner({ definition: child.definition, store, clock });
  await runner.start("r1", { batches: 3 });
  const run = child.run("r1");
  const context = await run.context;
  const items: AgentToolTailItem[] = [];
  const tailed = collectInto(runner.tail("r1", { afterSequence: 0 }), items);
  await flushMicrotasks();
  return { clock, store, runner, run, context, items, tailed };
}

describe("createProgressReporter: coalescing ephemeral progress", () => {
  it("sends the first value of a burst at once, holds the middle, and flushes the last at the window's end", async () => {
    const clock = new ManualClock(1_000);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    expect(fractions(published)).toEqual([0.1]);
    for (const fraction of [0.2, 0.3, 0.4]) {
      await clock.advanceBy(40);
      await reportProgress({ fraction, message: `at ${fraction}` });
    }
    expect(fractions(published)).toEqual([0.1]);
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceBy(79); // t = 1199: still inside the window
    expect(fractions(published)).toEqual([0.1]);
    await clock.advanceBy(1); // t = 1200: the trailing flush, latest wins
    expect(fractions(published)).toEqual([0.1, 0.4]);
    expect(sentAt(published)).toEqual([1_000, 1_200]);
    // `at` is when the value was reported, not when the window let it out.
    expect(published[1]?.body).toEqual({
      type: "data-agent-progress",
      data: { fraction: 0.4, message: "at 0.4", at: 1_120 },
      transient: true,
    });
    expect(clock.pendingTimers).toBe(0);
  });

  it("starts the next window at the trailing flush, and sends at once after a quiet window", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target, { progressThrottleMs: 100 });
    await reportProgress({ fraction: 0.1 }); // t = 0, sent
    await clock.advanceBy(50);
    await reportProgress({ fraction: 0.2 }); // held until 100
    await clock.advanceBy(60); // t = 110: flushed at 100
    await reportProgress({ fraction: 0.3 }); // inside the window opened at 100: held until 200
    await clock.advanceBy(90);
    expect(sentAt(published)).toEqual([0, 100, 200]);
    await clock.advanceBy(500);
    await reportProgress({ fraction: 0.5 }); // quiet for longer than a window: at once
    expect(sentAt(published)).toEqual([0, 100, 200, 700]);
    expect(fractions(published)).toEqual([0.1, 0.2, 0.3, 0.5]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("sends every value at once with progressThrottleMs 0", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target, { progressThrottleMs: 0 });
    for (const fraction of [0.1, 0.2, 0.3]) await reportProgress({ fraction });
    expect(fractions(published)).toEqual([0.1, 0.2, 0.3]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("sends fraction 1 at once, dropping an older held value and its timer", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.5 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.9 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 1, message: "done" });
    expect(fractions(published)).toEqual([0.5, 1]);
    expect(sentAt(published)).toEqual([0, 20]);
    expect(clock.pendingTimers).toBe(0);
    await clock.advanceBy(1_000);
    expect(fractions(published)).toEqual([0.5, 1]);
  });

  it("resolves at once, without waiting for the window", async () => {
    const clock = new ManualClock(0);
    const { target } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    let isResolved = false;
    void reportProgress({ fraction: 0.2 }).then(() => {
      isResolved = true;
    });
    await flushMicrotasks();
    expect(isResolved).toBe(true);
    expect(clock.pendingTimers).toBe(1);
  });

  it("keeps data in live frames, and in the row's snapshot only with persist", async () => {
    const clock = new ManualClock(5);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target, { progressThrottleMs: 0 });
    await reportProgress({ fraction: 0.2, phase: "rows", data: { rows: 200 } });
    await reportProgress({ fraction: 0.4, phase: "rows", data: { rows: 400 } }, { persist: true });
    expect(published.map((item) => item.body)).toEqual([
      {
        type: "data-agent-progress",
        data: { fraction: 0.2, phase: "rows", data: { rows: 200 }, at: 5 },
        transient: true,
      },
      {
        type: "data-agent-progress",
        data: { fraction: 0.4, phase: "rows", data: { rows: 400 }, at: 5 },
        transient: true,
      },
    ]);
    expect(published.map((item) => item.snapshot)).toEqual([
      { fraction: 0.2, phase: "rows", at: 5 },
      { fraction: 0.4, phase: "rows", data: { rows: 400 }, at: 5 },
    ]);
  });
});

describe("createProgressReporter: milestones", () => {
  it("appends every milestone at once, never coalesced, after what was held", async () => {
    const clock = new ManualClock(0);
    const { target, published, appended } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.2 }); // held
    await reportProgress({ milestone: "schema-checked", phase: "schema" });
    await reportProgress({ milestone: "half-way", fraction: 0.5, data: { rows: 250 } });
    // The held value was older: it went out first, and no timer is left for it.
    expect(fractions(published)).toEqual([0.1, 0.2]);
    expect(clock.pendingTimers).toBe(0);
    expect(appended).toEqual([
      {
        body: { type: "data-agent-milestone", data: { milestone: "schema-checked", phase: "schema", at: 10 } },
        name: "schema-checked",
        sequence: 1,
      },
      {
        body: {
          type: "data-agent-milestone",
          data: { milestone: "half-way", fraction: 0.5, data: { rows: 250 }, at: 10 },
        },
        name: "half-way",
        sequence: 2,
      },
    ]);
  });
});

describe("createProgressReporter: misuse and the end of a run", () => {
  it("is a no-op with exactly one warning outside a run", async () => {
    const warnings: string[] = [];
    const reportProgress = createProgressReporter(null, { warn: (message) => warnings.push(message) });
    await reportProgress({ fraction: 0.1 });
    await reportProgress({ milestone: "half-way" });
    await reportProgress({ fraction: 1 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/outside an agent-tool run/);
    // A second reporter warns once too.
    await createProgressReporter(null, { warn: (message) => warnings.push(message) })({ fraction: 0.5 });
    expect(warnings).toHaveLength(2);
  });

  it.each([
    [{ fraction: 1.5 }, /fraction must be from 0 to 1, got 1.5/],
    [{ fraction: -0.1 }, /fraction must be from 0 to 1/],
    [{ fraction: Number.NaN }, /fraction must be a finite number from 0 to 1, got NaN/],
    [{ fraction: Number.POSITIVE_INFINITY }, /fraction must be a finite number/],
    [{ fraction: "0.5" }, /fraction must be a finite number from 0 to 1, got "0.5"/],
    [{ milestone: "" }, /milestone must be a non-empty string/],
    [{ milestone: "  " }, /milestone must be a non-empty string/],
    [{ milestone: 3 }, /milestone must be a non-empty string, got 3/],
    [{ message: 3 }, /message must be a string/],
    [{ data: { big: 1n } }, /data must be encodable as JSON/],
    [null, /the update must be an object, got null/],
  ])("rejects %o with INVALID_ARGUMENT", async (update, message) => {
    const clock = new ManualClock(0);
    const { target, published, appended } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    const error = await reportProgress(update as never).catch((caught: unknown) => caught);
    expect(AgentToolsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(message) });
    expect(published).toEqual([]);
    expect(appended).toEqual([]);
  });

  it("rejects bad input without losing a held value or its timer", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.3 });
    await expect(reportProgress({ fraction: 2 })).rejects.toThrow(/fraction must be from 0 to 1/);
    await expect(reportProgress({ fraction: 0.5 }, { persist: "yes" } as never)).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceBy(190);
    expect(fractions(published)).toEqual([0.1, 0.3]);
  });

  it("rejects a bad throttle when created", () => {
    const clock = new ManualClock(0);
    const { target } = recordingTarget(clock);
    expect(() => createProgressReporter(target, { progressThrottleMs: -1 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  it("becomes a no-op once the run refuses a chunk, leaving no timer", async () => {
    const clock = new ManualClock(0);
    const { target, published, appended, end } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.2 }); // held
    end();
    await clock.advanceBy(190); // the trailing flush finds the run ended
    expect(clock.pendingTimers).toBe(0);
    await reportProgress({ fraction: 0.3 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.4 });
    await reportProgress({ milestone: "late" });
    expect(clock.pendingTimers).toBe(0);
    expect(fractions(published)).toEqual([0.1]);
    expect(appended).toEqual([]);
  });

  it("clears its timer on dispose() and on the run's abort signal", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.2 });
    expect(clock.pendingTimers).toBe(1);
    reportProgress.dispose();
    reportProgress.dispose();
    expect(clock.pendingTimers).toBe(0);
    await reportProgress({ fraction: 0.3 });
    expect(fractions(published)).toEqual([0.1]);

    const controller = new AbortController();
    const aborted = recordingTarget(clock);
    const { reportProgress: report } = createProgressReporter({ ...aborted.target, abortSignal: controller.signal });
    await report({ fraction: 0.1 });
    await clock.advanceBy(10);
    await report({ fraction: 0.2 });
    expect(clock.pendingTimers).toBe(1);
    controller.abort("Cancelled");
    expect(clock.pendingTimers).toBe(0);
    await clock.advanceBy(1_000);
    expect(fractions(aborted.published)).toEqual([0.1]);
  });

  it("flush() sends a held value now and keeps the reporter usable", async () => {
    const clock = new ManualClock(0);
    const { target, published } = recordingTarget(clock);
    const reportProgress = createProgressReporter(target);
    await reportProgress({ fraction: 0.1 });
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.2 });
    reportProgress.flush();
    expect(sentAt(published)).toEqual([0, 10]);
    expect(clock.pendingTimers).toBe(0);
    await reportProgress({ fraction: 0.3 }); // inside the window the flush opened
    expect(clock.pendingTimers).toBe(1);
    await clock.advanceBy(200);
    expect(sentAt(published)).toEqual([0, 10, 210]);
  });
});

describe("createProgressReporter in a real child run", () => {
  it("persists the latest snapshot on the child's row: data only with persist; live frames always carry it", async () => {
    const { clock, store, runner, run, context, items, tailed } = await startChildRun();
    const reportProgress = createProgressReporter(context, { clock: context.clock });
    run.emit({ type: "start" });
    await reportProgress({ fraction: 0.25, message: "batch 1", data: { rows: 100 } });
    await flushMicrotasks();
    expect((await store.getRun("r1"))?.progress).toEqual({ fraction: 0.25, message: "batch 1", at: 1_000 });
    expect((await runner.inspect("r1"))?.progress).toEqual({ fraction: 0.25, message: "batch 1", at: 1_000 });

    await clock.advanceBy(300);
    await reportProgress({ fraction: 0.5, message: "batch 2", data: { rows: 200 } }, { persist: true });
    await flushMicrotasks();
    expect((await runner.inspect("r1"))?.progress).toEqual({
      fraction: 0.5,
      message: "batch 2",
      data: { rows: 200 },
      at: 1_300,
    });

    const progress = items.flatMap((item) => (item.type === "progress" ? [item.body] : []));
    expect(progress).toEqual([
      {
        type: "data-agent-progress",
        data: { fraction: 0.25, message: "batch 1", data: { rows: 100 }, at: 1_000 },
        transient: true,
      },
      {
        type: "data-agent-progress",
        data: { fraction: 0.5, message: "batch 2", data: { rows: 200 }, at: 1_300 },
        transient: true,
      },
    ]);
    run.emit({ type: "finish" });
    run.complete();
    await tailed;
    // Ephemeral progress never enters the durable log.
    expect((await store.readLog("r1")).map((entry) => entry.body.type)).toEqual(["start", "finish"]);
    expect((await runner.inspect("r1"))?.progress).toMatchObject({ fraction: 0.5, data: { rows: 200 } });
  });

  it("interleaves milestones with the turn's chunks in one contiguous sequence space", async () => {
    const { store, runner, run, context, items, tailed } = await startChildRun();
    const reportProgress = createProgressReporter(context);
    const [start, startStep, textStart, , , textEnd, finishStep, finish] = textChunks(["a", "b"], "log") as [
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
      UIMessageChunk,
    ];
    run.emit(start, startStep, textStart);
    await flushMicrotasks();
    await reportProgress({ milestone: "schema-checked", phase: "schema" });
    run.emit({ type: "text-delta", id: "log", delta: "Imported batch 1. " });
    await flushMicrotasks();
    // Two milestones at the same instant: neither is coalesced.
    await reportProgress({ milestone: "half-way", fraction: 0.5 });
    await reportProgress({ milestone: "imported", fraction: 1, data: { rows: 300 } });
    run.emit({ type: "text-delta", id: "log", delta: "Imported batch 2." }, textEnd, finishStep, finish);
    run.complete({ rows: 300 });
    await tailed;

    const log = await store.readLog("r1");
    expect(log.map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(log.map((entry) => entry.body.type)).toEqual([
      "start",
      "start-step",
      "text-start",
      "data-agent-milestone",
      "text-delta",
      "data-agent-milestone",
      "data-agent-milestone",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
    const tailedSequences = tailItemEntries(items).map((entry) => entry.sequence);
    expect(tailedSequences).toEqual(log.map((entry) => entry.sequence));
    const inspection = await runner.inspect("r1");
    expect(inspection?.status).toBe("completed");
    expect(inspection?.lastSequence).toBe(11);
    expect(inspection?.milestones).toEqual([
      { name: "schema-checked", phase: "schema", sequence: 4, at: 1_000 },
      { name: "half-way", fraction: 0.5, sequence: 6, at: 1_000 },
      { name: "imported", fraction: 1, data: { rows: 300 }, sequence: 7, at: 1_000 },
    ]);
    // The milestones' text stays out of the summary.
    expect(inspection?.summary).toBe("Imported batch 1. Imported batch 2.");
  });

  it("delivers the last value of a burst before the turn ends when the stream is wrapped, leaving no timer", async () => {
    const clock = new ManualClock(0);
    const store = new InMemoryRunStore();
    const ready = gate();
    const released = gate();
    const definition: AgentToolChildDefinition = {
      agentType: "Importer",
      turn(context) {
        const reportProgress = createProgressReporter(context, { clock: context.clock });
        const stream = new ReadableStream<UIMessageChunk>({
          async start(controller) {
            controller.enqueue({ type: "start" });
            await ready.promise;
            await reportProgress({ fraction: 0.1 });
            await reportProgress({ fraction: 0.6 }); // held: same instant
            await released.promise;
            controller.enqueue({ type: "finish" });
            controller.close();
          },
        });
        return reportProgress.wrapTurnStream(stream);
      },
    };
    const runner = new AgentToolChildRunner({ definition, store, clock });
    await runner.start("r1", {});
    const items: AgentToolTailItem[] = [];
    const tailed = collectInto(runner.tail("r1", { afterSequence: 0 }), items);
    await flushMicrotasks();
    await clock.advanceBy(0); // the burst of `start` ends (the log's own 0 ms timer), before any progress is reported
    ready.open();
    await flushMicrotasks();
    expect(clock.pendingTimers).toBe(1); // the progress window's
    released.open();
    await tailed;
    // The turn ended inside the window, and the held value still went out while the run was live.
    expect(
      items.flatMap((item) =>
        item.type === "progress" ? [(item.body as { data: { fraction: number } }).data.fraction] : [],
      ),
    ).toEqual([0.1, 0.6]);
    expect(tailItemEntries(items).map((entry) => entry.body.type)).toEqual(["start", "finish"]);
    expect(items.at(-1)?.type).toBe("terminal");
    expect((await runner.inspect("r1"))?.progress).toEqual({ fraction: 0.6, at: 0 });
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("createProgressReporter through a parent registry", () => {
  async function parentWithChild() {
    const clock = new ManualClock(10_000);
    const child = new ScriptedChild("Importer");
    const progressCalls: Array<{ run: AgentToolRunInfo; snapshot: AgentToolProgressSnapshot }> = [];
    const { registry, transport, frames } = inMemoryRegistry([child.definition], clock, {
      hooks: { onProgress: (run, snapshot) => void progressCalls.push({ run, snapshot }) },
    });
    const result = registry.runAgentTool("Importer", { input: { batches: 2 }, runId: "r1" });
    const run = child.run("r1");
    const context = await run.context;
    await flushMicrotasks(100);
    return { clock, registry, transport, frames, progressCalls, result, run, context };
  }

  async function finishedRun() {
    const setup = await parentWithChild();
    const { clock, run, context } = setup;
    const reportProgress = createProgressReporter(context);
    run.emit({ type: "start" }, { type: "start-step" }, { type: "text-start", id: "log" });
    await flushMicrotasks();
    await reportProgress({ milestone: "schema-checked", phase: "schema" });
    // A durable chunk reaches tails after its group-commit write, an ephemeral one at once: let the write land.
    await flushMicrotasks();
    await reportProgress({ fraction: 0.5, message: "batch 1 of 2", data: { rows: 100 } });
    run.emit({ type: "text-delta", id: "log", delta: "Imported batch 1. " });
    await flushMicrotasks();
    await clock.advanceBy(10);
    await reportProgress({ fraction: 0.75, message: "batch 1.5 of 2" }); // held, then flushed at 10_200
    await reportProgress({ milestone: "half-way", fraction: 0.5 }); // flushes the held value first
    await clock.advanceBy(300);
    await reportProgress({ fraction: 1, message: "done" });
    await reportProgress({ milestone: "imported", data: { rows: 200 } });
    run.emit({ type: "text-end", id: "log" }, { type: "finish-step" }, { type: "finish" });
    run.complete({ rows: 200 });
    const result = await setup.result;
    await flushMicrotasks(100);
    expect(clock.pendingTimers).toBe(0);
    return { ...setup, result };
  }

  const milestoneFrames = (frames: AgentToolEventFrame[]) =>
    frames.filter((frame) => frame.event.kind === "chunk" && frame.event.body.type === "data-agent-milestone");

  it("forwards progress frames without a sequence and milestone chunks with the child's sequences", async () => {
    const { frames, result } = await finishedRun();
    expect(result.ok).toBe(true);
    const chunks = frames.filter((frame) => frame.event.kind === "chunk");
    const durable = chunks.filter((frame) => frame.sequence !== undefined);
    expect(durable.map((frame) => frame.sequence)).toEqual(durable.map((_, index) => index + 1));
    const ephemeral = chunks.filter((frame) => frame.sequence === undefined);
    expect(
      ephemeral.map((frame) =>
        frame.event.kind === "chunk" ? (frame.event.body as { data: { fraction: number } }).data.fraction : null,
      ),
    ).toEqual([0.5, 0.75, 1]);
    expect(
      ephemeral.every((frame) => frame.event.kind === "chunk" && frame.event.body.type === "data-agent-progress"),
    ).toBe(true);
    expect(
      milestoneFrames(frames).map((frame) => [
        frame.sequence,
        (frame.event as { body: { data: { milestone: string } } }).body.data.milestone,
      ]),
    ).toEqual([
      [4, "schema-checked"],
      [6, "half-way"],
      [7, "imported"],
    ]);
  });

  it("calls onProgress for ephemeral values and for milestones, flagged by snapshot.milestone", async () => {
    const { progressCalls, registry } = await finishedRun();
    expect(progressCalls.map(({ snapshot }) => [snapshot.milestone ?? null, snapshot.fraction ?? null])).toEqual([
      ["schema-checked", null],
      [null, 0.5],
      [null, 0.75],
      ["half-way", 0.5],
      [null, 1],
      // A milestone's snapshot is the run's progress after it: it keeps the bar's fraction it does not bring.
      ["imported", 1],
    ]);
    expect(progressCalls[1]?.snapshot).toEqual({
      fraction: 0.5,
      message: "batch 1 of 2",
      data: { rows: 100 },
      at: 10_000,
    });
    expect(progressCalls[1]?.run).toMatchObject({ runId: "r1", agentType: "Importer", progress: { fraction: 0.5 } });
    // At the terminal the parent keeps the child's persisted snapshot (no data: persist was not asked for); the
    // last milestone moved it on, keeping the bar's fraction and message.
    expect((await registry.getAgentToolRun("r1"))?.progress).toEqual({
      fraction: 1,
      message: "done",
      milestone: "imported",
      at: 10_310,
    });
  });

  it("replays a finished run's milestones once each with their sequences, and none past a client's cursor", async () => {
    const { frames, registry, transport } = await finishedRun();
    const callsBefore = transport.calls.length;
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(transport.calls.length).toBe(callsBefore);
    const live = milestoneFrames(frames).map(({ replay: _replay, ...frame }) => frame);
    expect(milestoneFrames(replayed).map(({ replay: _replay, ...frame }) => frame)).toEqual(live);
    // Durable chunks once each, then the run's last progress (SPEC §6: progress replays too), then its terminal.
    const chunks = replayed.filter((frame) => frame.event.kind === "chunk");
    expect(chunks.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const lastProgress = chunks.filter((frame) => frame.sequence === undefined);
    expect(lastProgress).toHaveLength(1);
    expect(replayed.at(-2)).toBe(lastProgress[0]);
    expect(replayed.at(-1)?.event.kind).toBe("finished");

    const finished = frames.at(-1);
    const revision = finished?.revision ?? 0;
    const fromHalfWay: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => fromHalfWay.push(frame), {
      cursors: { r1: { sequence: 6, revision: 1 } },
    });
    expect(milestoneFrames(fromHalfWay).map((frame) => frame.sequence)).toEqual([7]);
    const upToDate: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => upToDate.push(frame), {
      cursors: { r1: { sequence: 10, revision } },
    });
    expect(upToDate).toEqual([]);
  });

  it("replays a live run's milestones and its latest progress to a new client", async () => {
    const { clock, registry, run, context, result } = await parentWithChild();
    const reportProgress = createProgressReporter(context);
    run.emit({ type: "start" });
    await flushMicrotasks();
    await reportProgress({ milestone: "schema-checked" });
    await reportProgress({ fraction: 0.4, message: "batch 2 of 5", data: { rows: 200 } });
    // The child writes its log per burst: the milestone goes when its event loop turns (here: when the clock moves).
    await clock.advanceBy(0);
    await flushMicrotasks(50);
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(replayed.map((frame) => [frame.event.kind, frame.sequence])).toEqual([
      ["started", undefined],
      ["chunk", 1],
      ["chunk", 2],
      ["chunk", undefined],
    ]);
    expect(replayed.at(-1)?.event).toMatchObject({
      body: { type: "data-agent-progress", data: { fraction: 0.4, data: { rows: 200 } }, transient: true },
    });
    reportProgress.dispose();
    run.emit({ type: "finish" });
    run.complete();
    await result;
    expect(clock.pendingTimers).toBe(0);
  });
});
