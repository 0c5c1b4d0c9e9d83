import { flushMicrotasks, makeRunRecord } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { type DetachedRunState, readDetachedState } from "./detached-state.js";
import { nextDeliveryStep, retryDelayMs } from "./finish-delivery.js";
import { createWorld } from "./test-harness.test-utils.js";

const LEASE = 60_000;

describe("nextDeliveryStep (pure)", () => {
  const state = (delivery: DetachedRunState["delivery"], extra: Partial<DetachedRunState> = {}): DetachedRunState => ({
    version: 1,
    onFinish: "onDone",
    maxBudgetMs: 1,
    noProgressBudgetMs: 0,
    budgetDeadline: 1,
    delivery,
    ...extra,
  });
  const done = makeRunRecord({ runId: "r", status: "completed", revision: 3 });

  it("claims the latest terminal revision, waits for a held claim, and settles nothing twice", () => {
    expect(nextDeliveryStep(makeRunRecord({ status: "running" }), state({ settledRevision: 0 }), 0)).toEqual({
      kind: "none",
    });
    expect(nextDeliveryStep(done, state({ settledRevision: 0 }), 0)).toEqual({ kind: "claim", attempt: 1 });
    const held = state({ settledRevision: 0, claim: { revision: 3, attempts: 1, notBefore: 100 } });
    expect(nextDeliveryStep(done, held, 99)).toEqual({ kind: "wait", until: 100 });
    expect(nextDeliveryStep(done, held, 100)).toEqual({ kind: "claim", attempt: 2 });
    expect(nextDeliveryStep(done, state({ settledRevision: 3 }), 0)).toEqual({ kind: "none" });
    expect(nextDeliveryStep(done, state({ settledRevision: 0, failedRevision: 3 }), 0)).toEqual({ kind: "none" });
    // A claim for an older revision does not count against a newer one.
    const older = state({ settledRevision: 0, claim: { revision: 2, attempts: 4, notBefore: 1e9 } });
    expect(nextDeliveryStep(done, older, 0)).toEqual({ kind: "claim", attempt: 1 });
  });

  it("skips our own teardown's abort and a second interrupted; nothing to deliver without a target", () => {
    const aborted = makeRunRecord({ status: "aborted", revision: 5 });
    expect(nextDeliveryStep(aborted, state({ settledRevision: 4 }, { tornDown: true }), 0)).toEqual({ kind: "skip" });
    expect(nextDeliveryStep(aborted, state({ settledRevision: 4 }), 0)).toEqual({ kind: "claim", attempt: 1 });
    const again = makeRunRecord({ status: "interrupted", revision: 5 });
    expect(nextDeliveryStep(again, state({ settledRevision: 4, deliveredStatus: "interrupted" }), 0)).toEqual({
      kind: "skip",
    });
    const { onFinish: _onFinish, ...silent } = state({ settledRevision: 0 });
    expect(nextDeliveryStep(done, silent, 0)).toEqual({ kind: "none" });
  });

  it("backs off from the lease, doubling per failure", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(LEASE, attempts))).toEqual([60_000, 120_000, 240_000, 480_000]);
  });
});

describe("durable delivery", () => {
  it("delivers exactly once when the live fast path and the tick race", async () => {
    const world = createWorld();
    const { detached, host, scheduler } = world.parent;
    for (const runId of ["race-1", "race-2"]) {
      await detached.runAgentToolDetached("Worker", { input: 1, runId, detached: { onFinish: "onDone" } });
    }
    await world.settle();
    // The tick fires while the terminal transition is being delivered by the fast path.
    const completing = world.complete("race-1");
    const ticks = [detached.tick(), detached.tick(), scheduler.fireIfDue(Number.POSITIVE_INFINITY)];
    await Promise.all([completing, ...ticks]);
    await world.settle();
    // And the other way round: the tick first, then the fast path.
    world.worker.run("race-2").complete();
    await Promise.all([detached.tick(), world.settle()]);
    await world.advance(3 * LEASE);
    await world.advance(10 * LEASE);
    expect(host.calls.map((call) => call.run.runId).sort()).toEqual(["race-1", "race-2"]);
    expect(world.eventsOf("agent_tool:detached:delivery_claimed")).toHaveLength(2);
  });

  it("a handler that throws once is retried after the lease and delivered once", async () => {
    const world = createWorld();
    const { detached, host } = world.parent;
    host.failures = 1;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "flaky", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.complete("flaky");
    await world.settle();
    expect(host.calls).toHaveLength(1);
    expect(world.eventsOf("agent_tool:detached:delivery_retry")).toEqual([
      expect.objectContaining({ runId: "flaky", attempts: 1, errorName: "Error" }),
    ]);
    await world.advance(LEASE - 1);
    expect(host.calls).toHaveLength(1);
    await world.advance(1);
    expect(host.calls).toHaveLength(2);
    await world.advance(100 * LEASE);
    expect(host.calls).toHaveLength(2);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "flaky", status: "completed", attempts: 2 }),
    ]);
    const record = await world.store.getRun("flaky");
    expect(record && readDetachedState(record)?.delivery).toEqual({
      settledRevision: record?.revision,
      deliveredStatus: "completed",
    });
  });

  it("a handler that always throws is tried maxDeliveryAttempts times, then delivery_failed, then quiet", async () => {
    const world = createWorld({ detached: { maxDeliveryAttempts: 3 } });
    const { detached, host, scheduler } = world.parent;
    host.failures = Number.POSITIVE_INFINITY;
    await detached.runAgentToolDetached("Worker", { input: 1, runId: "doomed", detached: { onFinish: "onDone" } });
    await world.settle();
    await world.complete("doomed");
    await world.settle();
    await world.advance(LEASE);
    await world.advance(2 * LEASE);
    expect(host.calls).toHaveLength(3);
    expect(world.eventsOf("agent_tool:detached:delivery_failed")).toEqual([
      expect.objectContaining({ runId: "doomed", attempts: 3, status: "completed" }),
    ]);
    for (let step = 0; step < 5; step += 1) await world.advance(10 * LEASE);
    expect(host.calls).toHaveLength(3);
    expect(scheduler.pendingAt).toBeNull();
    const requests = scheduler.requests;
    expect((await detached.tick()).nextWakeAt).toBeNull();
    expect(scheduler.requests).toBe(requests);
  });

  it("delivers at least once across a crash between claim and mark (after the lease)", async () => {
    const world = createWorld();
    const first = world.parent;
    first.host.gate = new Promise(() => {}); // the handler never returns: the process dies inside it
    await first.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "crashy",
      detached: { onFinish: "onDone" },
    });
    await world.settle(first);
    world.worker.run("crashy").complete();
    await flushMicrotasks(200);
    await first.detached.tick(); // a tick keeps out of a claim still in flight in the same process
    await flushMicrotasks(200);
    expect(first.host.calls).toHaveLength(1);
    expect(world.eventsOf("agent_tool:detached:delivery_claimed")).toHaveLength(1);
    first.crash();

    first.host.gate = null;
    const second = world.boot();
    await second.detached.start();
    expect(second.scheduler.pendingAt).toBe(world.clock.now() + LEASE);
    await world.advance(LEASE - 1, second);
    expect(second.host.calls).toHaveLength(1);
    await world.advance(1, second);
    expect(second.host.calls).toHaveLength(2);
    expect(second.host.statuses()).toEqual(["completed", "completed"]);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "crashy", attempts: 2 }),
    ]);
    await world.advance(100 * LEASE, second);
    expect(second.host.calls).toHaveLength(2);
  });

  it("delivers a result the previous process recorded but never delivered", async () => {
    const world = createWorld();
    const first = world.parent;
    await first.detached.runAgentToolDetached("Worker", {
      input: 1,
      runId: "orphan",
      detached: { onFinish: "onDone" },
    });
    await world.settle();
    first.crash();
    const second = world.boot();
    await second.detached.start();
    await world.settle(second);
    await world.complete("orphan");
    await world.settle(second);
    expect(second.host.statuses()).toEqual(["completed"]);
  });
});
