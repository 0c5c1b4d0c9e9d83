import { describe, expect, it } from "vitest";
import { readDetachedState } from "./detached-state.js";
import { createWorld, DAY } from "./test-harness.test-utils.js";

describe("runAgentToolDetached", () => {
  it("returns at once with status running, and delivers the result to onFinish once the child finishes", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    const result = await detached.runAgentToolDetached("Worker", {
      input: "import everything",
      runId: "bg-1",
      detached: { onFinish: "onDone" },
    });
    expect(result).toEqual({ runId: "bg-1", agentType: "Worker", status: "running" });
    await world.settle();
    expect(world.worker.turns).toEqual(["bg-1"]);
    expect(host.calls).toEqual([]);
    await world.complete("bg-1", "imported 500 rows");
    await world.settle();
    expect(host.statuses()).toEqual(["completed"]);
    expect(host.calls[0]?.result.summary).toBe("imported 500 rows");
    expect(host.calls[0]?.run).toMatchObject({ runId: "bg-1", agentType: "Worker", status: "completed" });
    expect(world.eventsOf("agent_tool:detached:dispatch")).toEqual([
      expect.objectContaining({ runId: "bg-1", target: "onFinish", maxBudgetMs: DAY, noProgressBudgetMs: 3_600_000 }),
    ]);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "bg-1", status: "completed", attempts: 1, target: "onFinish" }),
    ]);
  });

  it("a re-dispatch returns the run's real status and starts nothing", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "again", detached: { onFinish: "onDone" } });
    await world.settle();
    const live = await detached.runAgentToolDetached("Worker", { input: 2, runId: "again", detached: true });
    expect(live.status).toBe("running");
    await world.complete("again");
    await world.settle();
    const finished = await detached.runAgentToolDetached("Worker", { input: 3, runId: "again", detached: true });
    expect(finished).toEqual({ runId: "again", agentType: "Worker", status: "completed" });
    await world.settle();
    expect(world.worker.turns).toEqual(["again"]);
    expect(host.statuses()).toEqual(["completed"]);

    await detached.runAgentToolDetached("Worker", { input: 1, runId: "broken", detached: true });
    await world.settle();
    world.worker.run("broken").fail(new Error("disk full"));
    await world.settle();
    expect(await detached.runAgentToolDetached("Worker", { input: 1, runId: "broken", detached: true })).toEqual({
      runId: "broken",
      agentType: "Worker",
      status: "error",
      error: "disk full",
    });
  });

  it("rejects an onFinish that is not a method of the host, with no run", async () => {
    const world = createWorld();
    const { detached } = world.parent;
    for (const onFinish of ["onMissing", "notAMethod"]) {
      const result = await detached.runAgentToolDetached("Worker", {
        input: 1,
        runId: `bad-${onFinish}`,
        detached: { onFinish: onFinish as "onDone" },
      });
      expect(result.status).toBe("error");
      expect(result.error).toContain(`onFinish names "${onFinish}"`);
      expect(await world.store.getRun(`bad-${onFinish}`)).toBeNull();
    }
    expect(world.worker.turns).toEqual([]);
    expect(world.eventsOf("agent_tool:detached:rejected")).toHaveLength(2);
  });

  it("rejects a budget that is not finite and positive, and notify without a chat host", async () => {
    const world = createWorld();
    const { detached } = world.parent;
    for (const maxBudgetMs of [0, -1, Number.POSITIVE_INFINITY, Number.NaN]) {
      const result = await detached.runAgentToolDetached("Worker", { input: 1, detached: { maxBudgetMs } });
      expect(result.status).toBe("error");
      expect(result.error).toContain("maxBudgetMs");
    }
    const noisy = await detached.runAgentToolDetached("Worker", { input: 1, detached: { noProgressBudgetMs: -5 } });
    expect(noisy.error).toContain("noProgressBudgetMs");
    const notify = await detached.runAgentToolDetached("Worker", { input: 1, detached: { notify: true } });
    expect(notify.error).toContain("chatHost");
    expect(await world.store.listRuns()).toEqual([]);
  });

  it("keeps its state as JSON under meta.detached, with the budget deadline as data", async () => {
    const world = createWorld();
    await world.parent.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "meta",
      detached: { onFinish: "onDone", maxBudgetMs: 5_000, noProgressBudgetMs: Number.POSITIVE_INFINITY },
    });
    const record = await world.store.getRun("meta");
    expect(record?.detached).toBe(true);
    expect(readDetachedState(record as never)).toEqual({
      version: 1,
      onFinish: "onDone",
      maxBudgetMs: 5_000,
      noProgressBudgetMs: 0,
      budgetDeadline: world.clock.now() + 5_000,
      delivery: { settledRevision: 0 },
    });
    expect(JSON.parse(JSON.stringify(record?.meta))).toEqual(record?.meta);
  });
});

describe("signal", () => {
  it("is ignored by detached runs, with a warning event", async () => {
    const world = createWorld();
    const controller = new AbortController();
    await world.parent.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "sig",
      detached: { onFinish: "onDone" },
      ...({ signal: controller.signal } as object),
    });
    controller.abort();
    await world.settle();
    expect((await world.parent.registry.getAgentToolRun("sig"))?.status).toBe("running");
    expect(world.eventsOf("agent_tool:detached:signal_ignored")).toHaveLength(1);
  });
});

describe("cancelAgentTool", () => {
  it("is idempotent and delivers aborted once", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "stop-me", detached: { onFinish: "onDone" } });
    await world.settle();
    const [first, second] = await Promise.all([
      detached.cancelAgentTool("stop-me"),
      detached.cancelAgentTool("stop-me"),
    ]);
    expect(first).toBe(true);
    expect(typeof second).toBe("boolean");
    await world.settle();
    expect(await detached.cancelAgentTool("stop-me")).toBe(false);
    await world.advance(DAY);
    expect(host.statuses()).toEqual(["aborted"]);
    expect((await world.store.getRun("stop-me"))?.status).toBe("aborted");
    expect(await detached.cancelAgentTool("unknown")).toBe(false);
  });
});
