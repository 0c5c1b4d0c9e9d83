import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { createAgentToolConnectionPool } from "./agent-tool-connection-pool.js";
import { fakeWebSockets, started } from "./test-support.test-utils.js";

const A = "wss://example.com/agents/assistant/a";
const B = "wss://example.com/agents/assistant/b";

function setup() {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const pool = createAgentToolConnectionPool({ WebSocket: sockets.WebSocket, clock, random: () => 0, graceMs: 50 });
  return { pool, sockets, clock };
}

describe("createAgentToolConnectionPool", () => {
  it("opens one socket per parent URL, however many users", () => {
    const { pool, sockets } = setup();
    const leases = [pool.acquire(A), pool.acquire(A), pool.acquire(B), pool.acquire(A)];
    // Each asks for batches and paged replay (the default page).
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([
      `${A}?agentToolBatch=1&agentToolPage=50`,
      `${B}?agentToolBatch=1&agentToolPage=50`,
    ]);
    expect(leases[0]?.connection).toBe(leases[1]?.connection);
    expect(leases[2]?.connection).not.toBe(leases[0]?.connection);
    // One store per parent: what one user's socket receives, every user of that URL sees.
    sockets.sockets[0]?.open();
    sockets.sockets[0]?.send(started("r1"));
    expect(Object.keys(leases[3]?.connection.getSnapshot().timeline.runsById ?? {})).toEqual(["r1"]);
    expect(pool.peek(A)).toBe(leases[0]?.connection);
  });

  it("keeps the socket through a release and a re-acquire within the grace (StrictMode), closes it after", async () => {
    const { pool, sockets, clock } = setup();
    pool.acquire(A).release();
    const again = pool.acquire(A);
    await clock.advanceBy(1_000);
    expect(sockets.sockets).toHaveLength(1);
    expect(sockets.last().closedByClient).toBe(false);
    again.release();
    await clock.advanceBy(50);
    expect(sockets.last().closedByClient).toBe(true);
    expect(again.connection.getSnapshot().status).toBe("closed");
    expect(pool.peek(A)).toBeUndefined();
    pool.acquire(A);
    expect(sockets.sockets).toHaveLength(2);
  });

  it("closeAll closes every connection at once", () => {
    const { pool, sockets } = setup();
    pool.acquire(A);
    pool.acquire(B);
    pool.closeAll();
    expect(sockets.sockets.every((socket) => socket.closedByClient)).toBe(true);
  });
});
