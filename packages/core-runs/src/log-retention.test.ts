import { describe, expect, it } from "vitest";
import { AgentToolsError } from "./errors.js";
import { createLogRetention, planPass, type RetainLogsPolicy } from "./log-retention.js";
import type { AgentToolEventFrame, AgentToolLogEntry, RunStatus } from "./protocol/index.js";
import type { RunEvent } from "./run-events.js";
import type { RunRecord } from "./run-record.js";
import { inMemoryRegistry } from "./testing/in-memory-registry.js";
import { ManualClock } from "./testing/manual-clock.js";
import { ManualWakeupScheduler } from "./testing/manual-wakeup-scheduler.js";
import { makeRunRecord } from "./testing/run-store-contract-cases.js";
import { echoChild, textChunks } from "./testing/scripted-child.js";

const SETTLE = 30_000;

/** A text answer streamed in `deltas` pieces: start, the deltas, end (what compaction shortens). */
function textLog(deltas: number): AgentToolLogEntry[] {
  const bodies = [
    { type: "text-start", id: "t" },
    ...Array.from({ length: deltas }, (_, index) => ({ type: "text-delta", id: "t", delta: `w${index} ` })),
    { type: "text-end", id: "t" },
  ];
  return bodies.map((body, index) => ({ sequence: index + 1, body, at: 1_000 + index }) as AgentToolLogEntry);
}

function finished(runId: string, startedAt: number, completedAt: number, status: RunStatus = "completed"): RunRecord {
  return makeRunRecord({ runId, startedAt, completedAt, updatedAt: completedAt, status, revision: 3, lastSequence: 7 });
}

async function world(policy: RetainLogsPolicy, records: RunRecord[], options: { batchSize?: number } = {}) {
  const clock = new ManualClock(100_000);
  const events: RunEvent[] = [];
  const { registry, store } = inMemoryRegistry(
    [echoChild("Echo", { chunks: () => textChunks(["a ", "b ", "c"]) })],
    clock,
    {
      sink: { emit: (event) => events.push(event) },
    },
  );
  for (const record of records) {
    await store.insertRun(record);
    await store.appendLog(record.runId, textLog(5));
  }
  const scheduler = new ManualWakeupScheduler();
  const retention = createLogRetention(registry, { policy: { settleMs: SETTLE, ...policy }, scheduler, ...options });
  scheduler.onWake(async () => {
    await retention.tick();
  });
  const ids = async (log: "full" | "compacted") => (await store.listRuns({ log })).map((run) => run.runId);
  return { clock, registry, store, scheduler, retention, events, ids };
}

describe("planPass", () => {
  const runs = [finished("a", 1, 1_000), finished("b", 2, 5_000), finished("c", 3, 2_000), finished("d", 4, 9_000)];

  it("compacts the oldest runs past maxRuns", () => {
    expect(planPass(runs, { maxRuns: 1 }, 10_000).compactable.map((run) => run.runId)).toEqual(["a", "b", "c"]);
    expect(planPass(runs, { maxRuns: 4 }, 10_000)).toEqual({ compactable: [], nextExpiry: null });
    expect(planPass(runs, { maxRuns: 0 }, 10_000).compactable).toHaveLength(4);
  });

  it("compacts the runs that finished maxAgeMs ago, and says when the next one does", () => {
    expect(planPass(runs, { maxAgeMs: 6_000 }, 10_000)).toEqual({
      compactable: [runs[0], runs[2]],
      nextExpiry: 11_000,
    });
    // Either bound: past the count or past the age.
    expect(planPass(runs, { maxAgeMs: 6_000, maxRuns: 2 }, 10_000).compactable.map((run) => run.runId)).toEqual([
      "a",
      "b",
      "c",
    ]);
  });
});

describe("createLogRetention", () => {
  it("compacts the oldest finished runs past maxRuns, a batch per wake-up, and no live or interrupted run", async () => {
    const records = [
      finished("r1", 1_000, 2_000),
      finished("r2", 1_100, 2_100, "error"),
      finished("r3", 1_200, 2_200, "aborted"),
      finished("r4", 1_300, 2_300),
      finished("r5", 1_400, 2_400),
      makeRunRecord({ runId: "live", startedAt: 900, status: "running" }),
      finished("cut", 950, 2_000, "interrupted"),
    ];
    const { clock, scheduler, retention, events, ids } = await world({ maxRuns: 2 }, records, { batchSize: 2 });
    await retention.start();
    expect(scheduler.pendingAt).toBe(clock.now() + SETTLE);
    // Woken early (the alarm is shared): no pass, and the pass's time is asked for again.
    await scheduler.cancel();
    expect(await retention.tick()).toMatchObject({ ran: false, compacted: 0 });
    expect(scheduler.pendingAt).toBe(clock.now() + SETTLE);
    expect(await ids("compacted")).toEqual([]);

    await clock.advanceBy(SETTLE);
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["r1", "r2"]);
    // Runs were left: the next pass is asked for at once.
    expect(scheduler.pendingAt).toBe(clock.now());
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["r1", "r2", "r3"]);
    expect(await ids("full")).toEqual(["live", "cut", "r4", "r5"]);
    // Nothing more is due: no wake-up asked for, and a wake-up changes nothing.
    expect(scheduler.pendingAt).toBeNull();
    expect(await retention.tick()).toMatchObject({ ran: false });
    expect(events.filter((event) => event.type === "agent_tool:logs:compact")).toEqual([
      { type: "agent_tool:logs:compact", compacted: 2, remaining: 1, failed: 0, at: clock.now() },
      { type: "agent_tool:logs:compact", compacted: 1, remaining: 0, failed: 0, at: clock.now() },
    ]);
  });

  it("compacts a run maxAgeMs after it finished, and sleeps until the next one is due", async () => {
    const { clock, scheduler, retention, ids } = await world({ maxAgeMs: 60_000 }, [
      finished("old", 1_000, 30_000),
      finished("new", 2_000, 90_000),
    ]);
    await retention.start();
    await clock.advanceBy(SETTLE);
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["old"]);
    expect(scheduler.pendingAt).toBe(150_000);
    await clock.setTime(150_000);
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["old", "new"]);
    expect(scheduler.pendingAt).toBeNull();
  });

  it("asks for a pass settleMs after runs finish, once for runs that finish close together", async () => {
    const { clock, registry, scheduler, retention, ids } = await world({ maxRuns: 1 }, []);
    const frames: AgentToolEventFrame[] = [];
    await registry.runAgentTool("Echo", { input: "x", runId: "first" });
    const asked = clock.now() + SETTLE;
    expect(scheduler.pendingAt).toBe(asked);
    await clock.advanceBy(1_000);
    await registry.runAgentTool("Echo", { input: "y", runId: "second" });
    expect(scheduler.requests).toBe(1);
    expect(await ids("full")).toEqual(["first", "second"]);
    await clock.setTime(asked);
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["first"]);
    // The compacted run still replays to its end.
    await registry.replayAgentToolRuns((frame) => frames.push(frame));
    const ofFirst = frames.filter((frame) => "runId" in frame.event && frame.event.runId === "first");
    expect(ofFirst.at(-1)?.event.kind).toBe("finished");
    retention.stop();
  });

  it("lists the full logs once; later passes hear of finished runs and read only what they compact", async () => {
    const { clock, registry, store, scheduler, retention, ids } = await world({ maxRuns: 1 }, [finished("old", 1, 2)]);
    let listed = 0;
    const listRuns = store.listRuns.bind(store);
    store.listRuns = (filter) => {
      if (filter?.log !== undefined) listed += 1;
      return listRuns(filter);
    };
    await retention.start();
    await clock.advanceBy(SETTLE);
    await scheduler.fireIfDue(clock.now());
    expect(listed).toBe(1);
    await registry.runAgentTool("Echo", { input: "x", runId: "new" });
    await registry.runAgentTool("Echo", { input: "y", runId: "newer" });
    await clock.advanceBy(SETTLE);
    await scheduler.fireIfDue(clock.now());
    expect(listed).toBe(1);
    expect(await ids("compacted")).toEqual(["old", "new"]);
    expect(await ids("full")).toEqual(["newer"]);
  });

  it("survives a store that fails a compaction: the pass reports it and asks to try again", async () => {
    const { clock, store, scheduler, retention, events, ids } = await world({ maxRuns: 0 }, [finished("r1", 1, 2)]);
    const compactLog = store.compactLog.bind(store);
    let failures = 1;
    store.compactLog = async (runId, entries) => {
      if (failures-- > 0) throw new Error("disk full");
      return compactLog(runId, entries);
    };
    await retention.start();
    await clock.advanceBy(SETTLE);
    await scheduler.fireIfDue(clock.now());
    expect(events.at(-1)).toMatchObject({ type: "agent_tool:logs:compact", compacted: 0, failed: 1 });
    expect(scheduler.pendingAt).toBe(clock.now());
    await scheduler.fireIfDue(clock.now());
    expect(await ids("compacted")).toEqual(["r1"]);
  });

  it("does nothing without a bound, and refuses a bound that is not one", async () => {
    const { clock, scheduler, retention, ids } = await world({}, [finished("r1", 1, 2)]);
    await retention.start();
    expect(scheduler.requests).toBe(0);
    await clock.advanceBy(10 * SETTLE);
    expect(await retention.tick()).toMatchObject({ ran: false });
    expect(await ids("full")).toEqual(["r1"]);
    const { registry } = inMemoryRegistry([], clock);
    const scheduled = { scheduler };
    const invalid = [{ maxRuns: -1 }, { maxRuns: 1.5 }, { maxAgeMs: Number.NaN }, { maxAgeMs: -1 }, { settleMs: -1 }];
    for (const policy of invalid) {
      expect(() => createLogRetention(registry, { policy, ...scheduled })).toThrow(AgentToolsError);
    }
    expect(() => createLogRetention(registry, { policy: {}, batchSize: 0, ...scheduled })).toThrow(/batchSize/);
  });
});
