import type { RunRecord } from "@agent-tools/core-runs/internal";
import { makeRunRecord } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import type { DetachedRunState } from "./detached-state.js";
import { DueIndex } from "./due-index.js";
import { createWorld, DAY, HOUR, type World } from "./test-harness.test-utils.js";

describe("DueIndex", () => {
  it("keeps the earliest due time per run and hands out only what is due, earliest first", () => {
    const index = new DueIndex();
    index.schedule("a", 50);
    index.schedule("b", 10);
    expect(index.schedule("a", 80)).toBe(false);
    expect(index.schedule("a", 5)).toBe(true);
    index.schedule("c", 30);
    expect(index.peek()).toBe(5);
    expect(index.takeDue(20)).toEqual(["a", "b"]);
    expect(index.peek()).toBe(30);
    index.forget("c");
    expect(index.peek()).toBeNull();
    expect(index.takeDue(1_000)).toEqual([]);
    for (let step = 0; step < 500; step += 1) index.schedule(`r${step % 7}`, 1_000 - step);
    expect(index.size).toBe(7);
    expect(index.takeDue(Number.POSITIVE_INFINITY)).toEqual(["r2", "r1", "r0", "r6", "r5", "r4", "r3"]);
  });
});

function finishedRow(runId: string, now: number, delivered: boolean): RunRecord {
  const state: DetachedRunState = {
    version: 1,
    onFinish: "onDone",
    maxBudgetMs: DAY,
    noProgressBudgetMs: HOUR,
    budgetDeadline: now + DAY,
    delivery: delivered ? { settledRevision: 3, deliveredStatus: "completed" } : { settledRevision: 0 },
  };
  return makeRunRecord({
    runId,
    agentType: "Worker",
    status: "completed",
    revision: 3,
    startedAt: now - 1_000,
    completedAt: now - 10,
    summary: "ok",
    detached: true,
    startAcknowledged: true,
    meta: { detached: state },
    // As the terminal write leaves it: marked for this package until its result is delivered.
    ...(delivered ? {} : { attention: { detached: true } }),
  });
}

/** A world whose parent retains `retained` delivered runs and has `due` results still to deliver. */
async function retainedWorld(retained: number, due: number): Promise<World> {
  const world = createWorld();
  const now = world.clock.now();
  for (let index = 0; index < retained; index += 1) {
    await world.store.insertRun(finishedRow(`old-${index}`, now, true));
  }
  for (let index = 0; index < due; index += 1) await world.store.insertRun(finishedRow(`due-${index}`, now, false));
  return world;
}

describe("the reconcile tick", () => {
  it("costs store calls per due run, not per retained run (1 000 retained + 10 due)", async () => {
    const measure = async (retained: number) => {
      const world = await retainedWorld(retained, 10);
      const { detached, host } = world.parent;
      await detached.start();
      world.store.resetStats();
      const report = await detached.tick();
      await world.settle();
      const stats = world.store.stats;
      expect(report).toMatchObject({ due: 10, claimed: 10 });
      expect(host.calls).toHaveLength(10);
      // A tick with nothing due touches the store not at all.
      world.store.resetStats();
      const idle = await detached.tick();
      expect(idle.due).toBe(0);
      expect(world.store.stats).toEqual({ reads: 0, writes: 0 });
      return stats;
    };
    const small = await measure(100);
    const large = await measure(1_000);
    expect(large).toEqual(small);
    expect(large.reads + large.writes).toBeLessThanOrEqual(6 * 10);
  });

  it("starts up from the live runs and the ones it still has work on, not from every retained run", async () => {
    const rowsRead = async (retained: number) => {
      const world = await retainedWorld(retained, 10);
      const listRuns = world.store.listRuns.bind(world.store);
      let rows = 0;
      world.store.listRuns = async (filter) => {
        const found = await listRuns(filter);
        rows += found.length;
        return found;
      };
      await world.parent.detached.start();
      // The due runs are found; delivering them clears their mark.
      expect(await world.parent.detached.tick()).toMatchObject({ due: 10, claimed: 10 });
      await world.settle();
      expect(await listRuns({ attention: true })).toEqual([]);
      return rows;
    };
    expect(await rowsRead(100)).toBe(10);
    expect(await rowsRead(1_000)).toBe(10);
  });

  it("clears a mark it finds on a row it has nothing more to do for (a mark an earlier version's rows get)", async () => {
    const world = await retainedWorld(3, 0);
    await world.store.updateRun("old-1", { attention: { detached: true, finish: true } });
    await world.parent.detached.start();
    expect((await world.store.getRun("old-1"))?.attention).toEqual({ finish: true });
  });

  it("goes quiet when nothing is outstanding", async () => {
    const world = createWorld();
    const { detached, host, scheduler } = world.parent;
    expect((await detached.tick()).nextWakeAt).toBeNull();
    expect(scheduler.requests).toBe(0);
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "q", detached: { onFinish: "onDone" } });
    await world.settle();
    expect(scheduler.pendingAt).not.toBeNull();
    await world.complete("q");
    await world.settle();
    expect(host.statuses()).toEqual(["completed"]);
    // At most the one wake-up armed while the run was live is left; it finds nothing and arms none.
    await world.advance(DAY);
    expect(scheduler.pendingAt).toBeNull();
    const requests = scheduler.requests;
    const report = await detached.tick();
    expect(report).toEqual({ due: 0, claimed: 0, gaveUp: 0, milestones: 0, nextWakeAt: null });
    expect(scheduler.requests).toBe(requests);
  });

  it("concurrent arming collapses to one wake-up at the earliest due time", async () => {
    const world = createWorld({ detached: { watchIntervalMs: HOUR } });
    const { detached, host, scheduler } = world.parent;
    const start = world.clock.now();
    await Promise.all(
      [5, 3, 9, 3, 7].map((minutes, index) =>
        detached.runAgentToolDetached("Worker", {
          input: index,
          runId: `c-${index}`,
          detached: { onFinish: "onDone", maxBudgetMs: minutes * 60_000 },
        }),
      ),
    );
    await world.settle();
    expect(scheduler.pendingAt).toBe(start + 3 * 60_000);
    await world.advance(3 * 60_000);
    expect(scheduler.wakeups).toBe(1);
    expect(host.calls.map((call) => call.run.runId).sort()).toEqual(["c-1", "c-3"]);
    expect(scheduler.pendingAt).toBe(start + 5 * 60_000);
  });

  it("before giving up for no progress, asks the child: signals it sent while no parent watched count", async () => {
    const world = createWorld();
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", { input: 1, runId: "s", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.signal("s");
    await world.settle();
    first.crash();
    await world.clock.advanceBy(50 * 60_000);
    await world.signal("s"); // nobody is following: the child keeps it as its latest progress
    await world.clock.advanceBy(5 * 60_000);
    const second = world.boot();
    await second.detached.start();
    await world.settle(second);
    await world.advance(5 * 60_000, second);
    expect(second.host.calls).toEqual([]);
    await world.advance(50 * 60_000 - 1, second);
    expect(second.host.calls).toEqual([]);
    await world.advance(1, second);
    expect(second.host.statuses()).toEqual(["interrupted"]);
    expect(second.host.calls[0]?.result.reason).toBe("no-progress");
  });
});
