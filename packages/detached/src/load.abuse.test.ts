// Load (issue 10): hundreds of detached runs dispatched as fast as possible under a small maxConcurrentAgentTools.
// Over-cap dispatches are refused with a result; a dispatcher that retries gets every run done; every completion is
// delivered once; slots are released; a quiet reconcile tick over delivered rows rewrites none.
import { type AgentToolLifecycleResult, AgentToolRegistry, type AgentToolRunInfo } from "@agent-tools/core-runs";
import {
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  ManualWakeupScheduler,
  ScriptedChild,
} from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { createDetachedRuns } from "./detach-run.js";

/**
 * CPU-heavy (hundreds of runs, each through the registry and the reconcile tick): a time budget of its own. vitest's
 * five-second default is for unit tests, and a busy machine runs this several times slower than an idle one; the
 * budget still ends a test that hangs.
 */
const CPU_HEAVY = { timeout: 60_000 };

const CAP = 5;
const RUNS = 300;

class CountingHost {
  readonly calls = new Map<string, AgentToolLifecycleResult[]>();
  async onDone(run: AgentToolRunInfo, result: AgentToolLifecycleResult): Promise<void> {
    const list = this.calls.get(run.runId) ?? [];
    list.push(result);
    this.calls.set(run.runId, list);
  }
}

function setup(overCap: "record" | "refuse" = "record") {
  const clock = new ManualClock(1_000_000);
  const store = new InMemoryRunStore();
  const worker = new ScriptedChild("Worker");
  const transport = new InProcessChildTransport({ children: [worker.definition], clock });
  const registry = new AgentToolRegistry({
    store,
    transport,
    clock,
    sink: { emit: () => {} },
    maxConcurrentAgentTools: CAP,
    overCap,
  });
  const host = new CountingHost();
  const scheduler = new ManualWakeupScheduler();
  const detached = createDetachedRuns({ registry, host, scheduler });
  scheduler.onWake(async () => {
    await detached.tick();
  });
  const settle = async () => {
    await flushMicrotasks(200);
    await detached.whenIdle();
    await flushMicrotasks(200);
  };
  const finish = async (runId: string) => {
    const run = worker.run(runId);
    run.emit({ type: "start" }, { type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: runId });
    run.emit({ type: "text-end", id: "t" }, { type: "finish" });
    run.complete();
  };
  return { clock, store, worker, transport, registry, host, scheduler, detached, settle, finish };
}

const CAP_ERROR = `maxConcurrentAgentTools (${CAP}) exceeded`;

describe(`load: ${RUNS} detached runs under maxConcurrentAgentTools: ${CAP}`, CPU_HEAVY, () => {
  it("refuses those over the cap with a result, never exceeds the cap, and a retrying dispatcher gets all done", async () => {
    const world = setup();
    const { detached, store, worker, host } = world;
    // Everything at once, as fast as possible.
    const first = await Promise.all(
      Array.from({ length: RUNS }, (_, index) =>
        detached.runAgentToolDetached("Worker", {
          input: { job: index },
          runId: `job-${index}-try-0`,
          detached: { onFinish: "onDone" },
        }),
      ),
    );
    const accepted = first.filter((result) => result.status === "running");
    const refused = first.filter((result) => result.status === "error");
    expect(accepted).toHaveLength(CAP);
    expect(refused).toHaveLength(RUNS - CAP);
    expect(refused.every((result) => result.error === CAP_ERROR && result.rejection === "max-concurrency")).toBe(true);
    await world.settle();
    expect(await store.listRuns({ status: ["starting", "running"] })).toHaveLength(CAP);
    expect(new Set(worker.turns).size).toBe(CAP);

    // A dispatcher: finish what runs, retry the refused with a new runId, until every job is done.
    const jobOf = (runId: string) => Number(runId.split("-")[1]);
    const pending = new Set(refused.map((result) => jobOf(result.runId)));
    const liveRunIds = new Set(accepted.map((result) => result.runId));
    const doneJobs = new Set<number>();
    let attempt = 0;
    let maxLive = 0;
    let dispatches = RUNS;
    while (doneJobs.size < RUNS) {
      attempt += 1;
      expect(attempt).toBeLessThan(RUNS * 2);
      for (const runId of [...liveRunIds]) {
        await world.finish(runId);
        liveRunIds.delete(runId);
        doneJobs.add(jobOf(runId));
      }
      await world.settle();
      const retries = await Promise.all(
        [...pending].map((job) =>
          detached.runAgentToolDetached("Worker", {
            input: { job },
            runId: `job-${job}-try-${attempt}`,
            detached: { onFinish: "onDone" },
          }),
        ),
      );
      dispatches += retries.length;
      for (const result of retries) {
        if (result.status === "running") {
          pending.delete(jobOf(result.runId));
          liveRunIds.add(result.runId);
        } else {
          expect(result).toMatchObject({ status: "error", error: CAP_ERROR });
        }
      }
      await world.settle();
      const live = await store.listRuns({ status: ["starting", "running"] });
      maxLive = Math.max(maxLive, live.length);
    }
    expect(maxLive).toBeLessThanOrEqual(CAP);
    // Slots released: nothing live, and a new dispatch is admitted at once.
    expect(await store.listRuns({ status: ["starting", "running"] })).toEqual([]);
    // Every job ran exactly one child turn (the refused attempts started none).
    const turnsPerJob = new Map<number, number>();
    for (const runId of worker.turns) turnsPerJob.set(jobOf(runId), (turnsPerJob.get(jobOf(runId)) ?? 0) + 1);
    expect(turnsPerJob.size).toBe(RUNS);
    expect([...turnsPerJob.values()].every((count) => count === 1)).toBe(true);
    // Every completion delivered exactly once.
    const completedDeliveries = [...host.calls.entries()].filter(([, results]) =>
      results.some((result) => result.status === "completed"),
    );
    expect(completedDeliveries).toHaveLength(RUNS);
    expect([...host.calls.values()].every((results) => results.length === 1)).toBe(true);
    // Each refused attempt stayed a row, recorded `error`, and got its one onFinish (it never started).
    const refusedDeliveries = [...host.calls.values()].filter((results) => results[0]?.status === "error").length;
    const rows = await store.listRuns();
    expect(rows.filter((row) => row.status === "error")).toHaveLength(dispatches - RUNS);
    expect(refusedDeliveries).toBe(dispatches - RUNS);
  });

  // SPEC §3 records a refused run as `error` (the default, `overCap: "record"`, above: refused attempts stay as rows,
  // get an onFinish of `error`, and spend their runId). Issue 10 asks for "no row left behind": `overCap: "refuse"`.
  it("with overCap: refuse, a refused dispatch leaves no row and no delivery, and the same runId is retried", async () => {
    const world = setup("refuse");
    const { detached, store, host, worker } = world;
    const first = await Promise.all(
      Array.from({ length: RUNS }, (_, index) =>
        detached.runAgentToolDetached("Worker", {
          input: { job: index },
          runId: `job-${index}`,
          detached: { onFinish: "onDone" },
        }),
      ),
    );
    const refused = first.filter((result) => result.status === "error");
    expect(refused).toHaveLength(RUNS - CAP);
    expect(refused.every((result) => result.rejection === "max-concurrency" && result.error === CAP_ERROR)).toBe(true);
    await world.settle();
    expect(await store.listRuns()).toHaveLength(CAP);

    // A dispatcher that retries the refused jobs under their own runIds until every one is admitted.
    const pending = new Set(refused.map((result) => result.runId));
    let live = first.filter((result) => result.status === "running").map((result) => result.runId);
    let rounds = 0;
    while (live.length > 0) {
      rounds += 1;
      expect(rounds).toBeLessThan(RUNS);
      for (const runId of live) await world.finish(runId);
      await world.settle();
      const retries = await Promise.all(
        [...pending].map((runId) =>
          detached.runAgentToolDetached("Worker", { input: runId, runId, detached: { onFinish: "onDone" } }),
        ),
      );
      live = retries.filter((result) => result.status === "running").map((result) => result.runId);
      for (const runId of live) pending.delete(runId);
      expect(
        retries.filter((result) => result.status === "error").every((result) => result.rejection === "max-concurrency"),
      ).toBe(true);
      await world.settle();
    }
    // Every job ran once and was delivered once; no row is left but the jobs' own, all completed; no slot held.
    const rows = await store.listRuns();
    expect(rows).toHaveLength(RUNS);
    expect(rows.every((row) => row.status === "completed")).toBe(true);
    expect(new Set(worker.turns).size).toBe(RUNS);
    expect(worker.turns).toHaveLength(RUNS);
    expect(host.calls.size).toBe(RUNS);
    expect(
      [...host.calls.values()].every((results) => results.length === 1 && results[0]?.status === "completed"),
    ).toBe(true);
  });

  it("keeps the reconcile tick cheap with many detached rows: a quiet tick over delivered rows rewrites none", async () => {
    const world = setup();
    const { detached, store, clock } = world;
    const report: Array<Record<string, number | string>> = [];
    const measure = async (label: string) => {
      store.resetStats();
      const tick = await detached.tick();
      await world.settle();
      const rows = (await store.listRuns()).length;
      const stats = store.stats;
      report.push({ label, rows, due: tick.due, claimed: tick.claimed, reads: stats.reads - 1, writes: stats.writes });
      return stats;
    };
    // Fill: RUNS rows, CAP live and the rest finished (refused ones count: they are rows too).
    await Promise.all(
      Array.from({ length: RUNS }, (_, index) =>
        detached.runAgentToolDetached("Worker", { input: index, runId: `t${index}`, detached: { onFinish: "onDone" } }),
      ),
    );
    await world.settle();
    await measure(`${RUNS} rows, ${CAP} live, nothing due`);
    for (let index = 0; index < CAP; index++) await world.finish(`t${index}`);
    await world.settle();
    await measure(`${RUNS} rows, 0 live, all delivered`);
    await clock.advanceBy(2 * 60 * 60 * 1000);
    const quiet = await measure(`${RUNS} rows, 0 live, 2 h later`);
    // A quiet tick over finished, delivered rows should not rewrite them (the figures of every tick, if it does).
    expect(quiet.writes, JSON.stringify(report)).toBeLessThanOrEqual(1);
  });
});
