// `singleInstance: true`: a host that is the only one able to hold claims (a Durable Object) takes back, at start-up,
// a delivery that an earlier incarnation claimed and never marked — not a lease later — and delivers it once.
import { flushMicrotasks, makeRunRecord } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import type { DetachedRunState } from "./detached-state.js";
import { readDetachedState } from "./detached-state.js";
import { nextDeliveryStep } from "./finish-delivery.js";
import { createWorld, type ParentProcess, type World } from "./test-harness.test-utils.js";

const LEASE = 60_000;

/** A first process whose handler never returns: it dies inside the delivery, the claim left in the row. */
async function crashInsideHandler(world: World, runId: string): Promise<ParentProcess> {
  const first = world.parent;
  first.host.gate = new Promise(() => {});
  await first.detached.runAgentToolDetached("Worker", { input: 1, runId, detached: { onFinish: "onDone" } });
  await world.settle(first);
  world.worker.run(runId).complete();
  await flushMicrotasks(200);
  expect(first.host.calls).toHaveLength(1);
  first.crash();
  first.host.gate = null;
  return first;
}

async function claimOf(world: World, runId: string) {
  const record = await world.store.getRun(runId);
  return record ? readDetachedState(record)?.delivery.claim : undefined;
}

describe("claims orphaned by a restart (singleInstance)", () => {
  it("takes a delivery claimed by an earlier incarnation back at start-up, and delivers it once", async () => {
    const world = createWorld();
    await crashInsideHandler(world, "cut");
    const claim = await claimOf(world, "cut");
    expect(claim).toMatchObject({ attempts: 1, notBefore: world.clock.now() + LEASE, holder: expect.any(String) });

    const second = world.boot({ singleInstance: true });
    await second.detached.start();
    // Armed for now, not for the lease's end.
    expect(second.scheduler.pendingAt).toBe(world.clock.now());
    await world.advance(0, second);
    expect(second.host.calls).toHaveLength(2);
    expect(world.eventsOf("agent_tool:detached:delivered")).toEqual([
      expect.objectContaining({ runId: "cut", attempts: 2, at: claim ? claim.notBefore - LEASE : -1 }),
    ]);
    const record = await world.store.getRun("cut");
    expect(record && readDetachedState(record)?.delivery).toEqual({
      settledRevision: record?.revision,
      deliveredStatus: "completed",
    });
    // Delivered once: nothing more, however long the host stays up.
    await world.advance(100 * LEASE, second);
    expect(second.host.calls).toHaveLength(2);
  });

  it("without singleInstance, waits for the lease as before (another instance may still hold the claim)", async () => {
    const world = createWorld();
    await crashInsideHandler(world, "shared");
    const second = world.boot();
    await second.detached.start();
    expect(second.scheduler.pendingAt).toBe(world.clock.now() + LEASE);
    await world.advance(LEASE - 1, second);
    expect(second.host.calls).toHaveLength(1);
    await world.advance(1, second);
    expect(second.host.calls).toHaveLength(2);
  });

  it("never takes back a claim this incarnation holds, even when start() runs after it claimed", async () => {
    const world = createWorld({ detached: { singleInstance: true } });
    const first = world.parent;
    first.host.gate = new Promise(() => {});
    await first.detached.runAgentToolDetached("Worker", { input: 1, runId: "mine", detached: { onFinish: "onDone" } });
    await world.settle(first);
    world.worker.run("mine").complete();
    await flushMicrotasks(200);
    expect(first.host.calls).toHaveLength(1);
    // The start-up pass comes late (after the live path claimed), then ticks: the claim is ours, in flight.
    await first.detached.start();
    await first.detached.tick();
    await flushMicrotasks(200);
    // (Not `world.advance`: it waits for background work, and this handler never returns.)
    for (let step = 0; step < 10; step += 1) {
      await world.clock.advanceBy(LEASE);
      await first.scheduler.fireIfDue(world.clock.now());
      await flushMicrotasks(200);
    }
    expect(first.host.calls).toHaveLength(1);
  });

  it("keeps the backoff of a failed attempt across a restart (that claim holds off a retry, nobody delivers it)", async () => {
    const world = createWorld({ detached: { singleInstance: true } });
    const first = world.parent;
    first.host.failures = 1;
    await first.detached.runAgentToolDetached("Worker", { input: 1, runId: "flaky", detached: { onFinish: "onDone" } });
    await world.settle(first);
    await world.complete("flaky");
    await world.settle(first);
    expect(first.host.calls).toHaveLength(1);
    const retryAt = world.clock.now() + LEASE;
    expect(await claimOf(world, "flaky")).toEqual({ revision: expect.any(Number), attempts: 1, notBefore: retryAt });
    first.crash();

    const second = world.boot();
    await second.detached.start();
    expect(second.scheduler.pendingAt).toBe(retryAt);
    await world.advance(LEASE - 1, second);
    expect(second.host.calls).toHaveLength(1);
    await world.advance(1, second);
    expect(second.host.calls).toHaveLength(2);
  });
});

describe("nextDeliveryStep with an orphan rule (pure)", () => {
  const state = (claim: NonNullable<DetachedRunState["delivery"]["claim"]>): DetachedRunState => ({
    version: 1,
    onFinish: "onDone",
    maxBudgetMs: 1,
    noProgressBudgetMs: 0,
    budgetDeadline: 1,
    delivery: { settledRevision: 0, claim },
  });
  const done = makeRunRecord({ runId: "r", status: "completed", revision: 3 });
  const isOrphaned = (claim: { holder?: string }) => claim.holder !== undefined && claim.holder !== "me";

  it("claims at once a claim held by another incarnation; waits for ours, for a backoff, and for one without a holder", () => {
    const held = (holder?: string) => ({ revision: 3, attempts: 1, notBefore: 100, ...(holder ? { holder } : {}) });
    expect(nextDeliveryStep(done, state(held("gone")), 0, { isOrphaned })).toEqual({ kind: "claim", attempt: 2 });
    expect(nextDeliveryStep(done, state(held("me")), 0, { isOrphaned })).toEqual({ kind: "wait", until: 100 });
    expect(nextDeliveryStep(done, state(held()), 0, { isOrphaned })).toEqual({ kind: "wait", until: 100 });
    expect(nextDeliveryStep(done, state(held("gone")), 0)).toEqual({ kind: "wait", until: 100 });
  });
});
