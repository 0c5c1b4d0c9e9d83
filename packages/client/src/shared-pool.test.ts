import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { createSharedPool } from "./shared-pool.js";

function setup(graceMs = 100) {
  const clock = new ManualClock(0);
  const created: string[] = [];
  const disposed: string[] = [];
  let serial = 0;
  const pool = createSharedPool<string>({
    create: (key) => {
      serial += 1;
      const value = `${key}#${serial}`;
      created.push(value);
      return value;
    },
    dispose: (value) => disposed.push(value),
    graceMs,
    clock,
  });
  return { pool, clock, created, disposed };
}

describe("createSharedPool", () => {
  it("creates one value per key and shares it among its holders", () => {
    const { pool, created } = setup();
    const a = pool.acquire("x");
    const b = pool.acquire("x");
    const c = pool.acquire("y");
    expect([a.value, b.value, c.value]).toEqual(["x#1", "x#1", "y#2"]);
    expect(created).toEqual(["x#1", "y#2"]);
    expect(pool.peek("x")).toBe("x#1");
    expect(pool.peek("z")).toBeUndefined();
  });

  it("disposes a value the grace period after its last holder left, not before", async () => {
    const { pool, clock, disposed } = setup();
    const a = pool.acquire("x");
    const b = pool.acquire("x");
    a.release();
    a.release(); // idempotent: b still holds it
    await clock.advanceBy(1_000);
    expect(disposed).toEqual([]);
    b.release();
    await clock.advanceBy(99);
    expect(pool.peek("x")).toBe("x#1");
    await clock.advanceBy(1);
    expect(disposed).toEqual(["x#1"]);
    expect(pool.peek("x")).toBeUndefined();
  });

  it("keeps the value when it is acquired again within the grace period (StrictMode's unmount and mount)", async () => {
    const { pool, clock, created, disposed } = setup();
    pool.acquire("x").release();
    const again = pool.acquire("x");
    await clock.advanceBy(1_000);
    expect(again.value).toBe("x#1");
    expect(created).toEqual(["x#1"]);
    expect(disposed).toEqual([]);
    again.release();
    await clock.advanceBy(100);
    expect(disposed).toEqual(["x#1"]);
    expect(pool.acquire("x").value).toBe("x#2");
  });

  it("disposeAll disposes every value at once; a stale lease's release then does nothing", async () => {
    const { pool, clock, disposed } = setup();
    const a = pool.acquire("x");
    pool.acquire("y");
    pool.disposeAll();
    expect(disposed).toEqual(["x#1", "y#2"]);
    const fresh = pool.acquire("x");
    a.release();
    await clock.advanceBy(1_000);
    expect(pool.peek("x")).toBe(fresh.value);
    expect(disposed).toEqual(["x#1", "y#2"]);
  });
});
