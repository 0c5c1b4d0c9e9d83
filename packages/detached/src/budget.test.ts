import { describe, expect, it } from "vitest";
import {
  evaluateBudget,
  MAX_TEARDOWN_ATTEMPTS,
  nextTeardownStep,
  noProgressDeadline,
  resolveBudgets,
  watchDeadline,
} from "./budget.js";
import { createWorld, DAY, HOUR } from "./test-harness.test-utils.js";

describe("budgets as pure functions of (run, now)", () => {
  const defaults = { maxBudgetMs: DAY, noProgressBudgetMs: HOUR };

  it("validates and normalizes budgets at dispatch", () => {
    expect(resolveBudgets({}, defaults)).toEqual({ ok: true, maxBudgetMs: DAY, noProgressBudgetMs: HOUR });
    expect(resolveBudgets({ noProgressBudgetMs: Number.POSITIVE_INFINITY }, defaults)).toMatchObject({
      noProgressBudgetMs: 0,
    });
    expect(resolveBudgets({ noProgressBudgetMs: 0 }, defaults)).toMatchObject({ noProgressBudgetMs: 0 });
    for (const maxBudgetMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(resolveBudgets({ maxBudgetMs }, defaults).ok).toBe(false);
    }
    expect(resolveBudgets({ noProgressBudgetMs: -1 }, defaults).ok).toBe(false);
  });

  it("gives up past the absolute budget first, then past the no-progress budget once armed", () => {
    const run = { budgetDeadline: DAY, noProgressBudgetMs: HOUR };
    expect(evaluateBudget(run, 0)).toEqual({ action: "none", nextWakeAt: DAY });
    expect(evaluateBudget(run, DAY - 1)).toEqual({ action: "none", nextWakeAt: DAY });
    expect(evaluateBudget(run, DAY)).toEqual({ action: "give-up", reason: "budget-exceeded", nextWakeAt: null });
    // Not armed before the first signal: slow is not dead.
    expect(noProgressDeadline(run)).toBeNull();
    const signalled = { ...run, lastSignalAt: 10 * HOUR };
    expect(evaluateBudget(signalled, 10 * HOUR)).toEqual({ action: "none", nextWakeAt: 11 * HOUR });
    expect(evaluateBudget(signalled, 11 * HOUR)).toMatchObject({ action: "give-up", reason: "no-progress" });
    expect(evaluateBudget({ ...signalled, lastSignalAt: 23.5 * HOUR }, DAY)).toMatchObject({
      reason: "budget-exceeded",
    });
    expect(evaluateBudget({ ...signalled, noProgressBudgetMs: 0 }, 20 * HOUR)).toEqual({
      action: "none",
      nextWakeAt: DAY,
    });
  });

  it("spaces attempts to tear an unreachable child down, then stops watching", () => {
    expect(nextTeardownStep(undefined, 0, 60_000)).toEqual({ kind: "attempt" });
    expect(nextTeardownStep({ attempts: 1, lastAt: 0 }, 59_999, 60_000)).toEqual({ kind: "wait", until: 60_000 });
    expect(nextTeardownStep({ attempts: 1, lastAt: 0 }, 60_000, 60_000)).toEqual({ kind: "attempt" });
    expect(nextTeardownStep({ attempts: MAX_TEARDOWN_ATTEMPTS, lastAt: 0 }, HOUR, 60_000)).toEqual({
      kind: "stop-watching",
    });
  });

  it("bounds the watch after a give-up by the absolute budget", () => {
    expect(watchDeadline({ budgetDeadline: DAY, interruptedAt: HOUR }, HOUR)).toBe(2 * HOUR);
    expect(watchDeadline({ budgetDeadline: DAY, interruptedAt: 23.5 * HOUR }, HOUR)).toBe(DAY);
  });
});

describe("budgets on detached runs", () => {
  it("past a 24 h budget: interrupted / budget-exceeded, the child torn down, no second delivery", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "slow", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.advance(DAY - 1);
    expect(host.calls).toEqual([]);
    await world.advance(1);
    expect(host.statuses()).toEqual(["interrupted"]);
    expect(host.calls[0]?.result).toMatchObject({ reason: "budget-exceeded", childStillRunning: false });
    expect((await world.children.inspect({ agentType: "Worker", runId: "slow" }))?.status).toBe("aborted");
    for (let step = 0; step < 5; step += 1) await world.advance(HOUR);
    expect(host.statuses()).toEqual(["interrupted"]);
    expect(await world.store.getRun("slow")).toMatchObject({
      status: "interrupted",
      reason: "budget-exceeded",
      childStillRunning: false,
    });
    expect(world.eventsOf("agent_tool:detached:budget_exceeded")).toEqual([
      expect.objectContaining({ runId: "slow", reason: "budget-exceeded", budgetMs: DAY, tornDown: true }),
    ]);
    expect(world.parent.scheduler.pendingAt).toBeNull();
    // A re-dispatch returns the stored failure and starts no second turn.
    expect(await detached.runAgentToolDetached("Worker", { input: 1, runId: "slow", detached: true })).toMatchObject({
      status: "interrupted",
    });
    expect(world.worker.turns).toEqual(["slow"]);
  });

  it("the no-progress budget arms at the first signal and resets on each", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "quiet", detached: { onFinish: "onDone" } });
    await world.settle();
    // No signal yet: silence is fine (only the absolute budget applies).
    await world.advance(3 * HOUR);
    expect(host.calls).toEqual([]);
    await world.signal("quiet");
    await world.advance(HOUR - 60_000);
    expect(host.calls).toEqual([]);
    await world.milestone("quiet", "half-way");
    await world.advance(HOUR - 60_000);
    expect(host.calls).toEqual([]);
    // Plain text is not a signal.
    world.worker.run("quiet").emit({ type: "text-start", id: "x" }, { type: "text-delta", id: "x", delta: "…" });
    await world.advance(2 * 60_000);
    expect(host.statuses()).toEqual(["interrupted"]);
    expect(host.calls[0]?.result).toMatchObject({ reason: "no-progress", childStillRunning: true });
    // The child was not torn down: slow is not dead.
    expect((await world.children.inspect({ agentType: "Worker", runId: "quiet" }))?.status).toBe("running");
    expect(world.eventsOf("agent_tool:detached:budget_exceeded")).toEqual([
      expect.objectContaining({ reason: "no-progress", budgetMs: HOUR, tornDown: false }),
    ]);
  });

  it("a late real result after a no-progress give-up is delivered again with its real status", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "late", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.signal("late");
    await world.advance(HOUR);
    expect(host.statuses()).toEqual(["interrupted"]);
    await world.advance(10 * 60_000);
    await world.complete("late", "finished anyway");
    await world.settle();
    expect(host.statuses()).toEqual(["interrupted", "completed"]);
    expect(host.calls[1]?.result.summary).toBe("finished anyway");
    expect(await world.store.getRun("late")).toMatchObject({ status: "completed" });
    await world.advance(DAY);
    expect(host.calls).toHaveLength(2);
    expect(world.parent.scheduler.pendingAt).toBeNull();
  });

  it("a budget give-up that cannot reach the child records childStillRunning: true and delivers its late result", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "far",
      detached: { onFinish: "onDone", maxBudgetMs: HOUR },
    });
    await world.settle();
    const cancel = world.children.cancel.bind(world.children);
    world.children.cancel = async () => {
      throw new Error("child unreachable");
    };
    try {
      await world.advance(HOUR);
      expect(host.calls[0]?.result).toMatchObject({
        status: "interrupted",
        reason: "budget-exceeded",
        childStillRunning: true,
      });
      expect(await world.store.getRun("far")).toMatchObject({ status: "interrupted", childStillRunning: true });
      // Nobody could stop the child, and it finishes: its real result is delivered and repairs the run.
      await world.complete("far", "finished anyway");
      await world.settle();
      expect(host.statuses()).toEqual(["interrupted", "completed"]);
      expect(await world.store.getRun("far")).toMatchObject({ status: "completed", summary: "finished anyway" });
      // A re-dispatch returns that real result, not the stored failure.
      expect(
        await detached.runAgentToolDetached("Worker", { input: 1, runId: "far", detached: { onFinish: "onDone" } }),
      ).toMatchObject({ status: "completed" });
    } finally {
      world.children.cancel = cancel;
    }
  });

  it("a child that cannot be torn down is watched only a bounded while longer, and left childStillRunning: true", async () => {
    const world = createWorld();
    const { detached, host, scheduler } = world.parent;
    await detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "ghost",
      detached: { onFinish: "onDone", maxBudgetMs: HOUR },
    });
    await world.settle();
    const cancel = world.children.cancel.bind(world.children);
    let cancels = 0;
    world.children.cancel = async () => {
      cancels += 1;
      throw new Error("child unreachable");
    };
    try {
      let wakeups = 0;
      await world.advance(HOUR);
      while (scheduler.pendingAt !== null && wakeups < 1_000) {
        await world.advance(Math.max(0, scheduler.pendingAt - world.clock.now()));
        wakeups += 1;
      }
      expect(scheduler.pendingAt).toBeNull();
      expect(cancels).toBe(MAX_TEARDOWN_ATTEMPTS);
      expect(world.clock.now()).toBeLessThanOrEqual(1_000_000 + HOUR + MAX_TEARDOWN_ATTEMPTS * 60_000);
      expect(host.statuses()).toEqual(["interrupted"]);
      expect(await world.store.getRun("ghost")).toMatchObject({ status: "interrupted", childStillRunning: true });
      expect(world.eventsOf("agent_tool:detached:watch_ended")).toMatchObject([{ tornDown: false }]);
      expect(world.clock.pendingTimers).toBe(0);
    } finally {
      world.children.cancel = cancel;
    }
  });

  it("watching a given-up run stops after a bound: the child is torn down and its abort is not delivered", async () => {
    const world = createWorld({ detached: { watchAfterGiveUpMs: 2 * HOUR } });
    const { detached, host, scheduler } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "stuck", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.signal("stuck");
    await world.advance(HOUR);
    expect(host.statuses()).toEqual(["interrupted"]);
    let wakeups = 0;
    while (scheduler.pendingAt !== null && wakeups < 1_000) {
      await world.advance(Math.max(0, scheduler.pendingAt - world.clock.now()));
      wakeups += 1;
    }
    expect(world.clock.now()).toBeLessThanOrEqual(1_000_000 + 3 * HOUR + 60_000);
    expect(scheduler.pendingAt).toBeNull();
    expect(host.statuses()).toEqual(["interrupted"]);
    expect((await world.children.inspect({ agentType: "Worker", runId: "stuck" }))?.status).toBe("aborted");
    expect(await world.store.getRun("stuck")).toMatchObject({ status: "interrupted", childStillRunning: false });
    expect(world.eventsOf("agent_tool:detached:watch_ended")).toHaveLength(1);
    expect(world.clock.pendingTimers).toBe(0);
  });

  it("Infinity disables the no-progress budget", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "patient",
      detached: { onFinish: "onDone", noProgressBudgetMs: Number.POSITIVE_INFINITY },
    });
    await world.settle();
    await world.signal("patient");
    await world.advance(20 * HOUR);
    expect(host.calls).toEqual([]);
    await world.complete("patient");
    await world.settle();
    expect(host.statuses()).toEqual(["completed"]);
  });

  it("budgets hold across a restart: deadlines are data on the row", async () => {
    const world = createWorld();
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "durable",
      detached: { onFinish: "onDone", maxBudgetMs: 2 * HOUR },
    });
    await world.settle();
    first.crash();
    await world.clock.advanceBy(HOUR);
    const second = world.boot();
    await second.detached.start();
    await world.settle(second);
    await world.advance(HOUR - 1, second);
    expect(second.host.calls).toEqual([]);
    await world.advance(60_000, second);
    expect(second.host.statuses()).toEqual(["interrupted"]);
    expect((await world.children.inspect({ agentType: "Worker", runId: "durable" }))?.status).toBe("aborted");
  });
});
