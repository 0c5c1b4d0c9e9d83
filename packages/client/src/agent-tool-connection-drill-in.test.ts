import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { type AgentToolConnectionOptions, createAgentToolConnection } from "./agent-tool-connection.js";
import { chunk, fakeWebSockets, started } from "./test-support.test-utils.js";

const PARENT_URL = "wss://example.com/agents/assistant/default";
const RUN_URL = `${PARENT_URL}/sub/Researcher/r1`;

function setup(options: Partial<AgentToolConnectionOptions> = {}) {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const connection = createAgentToolConnection({
    url: PARENT_URL,
    WebSocket: sockets.WebSocket,
    clock,
    random: () => 0,
    drillInGraceMs: 100,
    ...options,
  });
  const parent = sockets.last();
  parent.open();
  const drillInSockets = () => sockets.sockets.filter((socket) => socket !== parent);
  return { connection, sockets, clock, parent, drillInSockets };
}

describe("AgentToolConnection.drillIn", () => {
  it("opens the run's drill-in socket under the parent's URL, once for any number of views", () => {
    const { connection, parent, drillInSockets } = setup();
    parent.send(started("r1"));
    const a = connection.drillIn("r1");
    const b = connection.drillIn("r1");
    expect(drillInSockets().map((socket) => socket.url)).toEqual([RUN_URL]);
    drillInSockets()[0]?.open();
    drillInSockets()[0]?.send({ type: "child-messages", runId: "r1", messages: [], run: null });
    expect(a.getSnapshot()).toBe(b.getSnapshot());
    expect(a.getSnapshot()).toMatchObject({ status: "open", isLoaded: true });
  });

  it("waits for the run's started frame (its agent type makes the address), then connects", () => {
    const { connection, parent, drillInSockets } = setup();
    parent.send(chunk("r1", 1, { type: "start-step" })); // a placeholder: no address yet
    const view = connection.drillIn("r1");
    expect(drillInSockets()).toHaveLength(0);
    expect(view.getSnapshot().status).toBe("connecting");
    parent.send(started("r1"));
    expect(drillInSockets().map((socket) => socket.url)).toEqual([RUN_URL]);
  });

  it("closes the socket the grace period after the last view closed, unless a view comes back first", async () => {
    const { connection, parent, clock, drillInSockets } = setup();
    parent.send(started("r1"));
    const a = connection.drillIn("r1");
    const b = connection.drillIn("r1");
    a.close();
    b.close();
    b.close(); // idempotent
    const remount = connection.drillIn("r1");
    await clock.advanceBy(1_000);
    expect(drillInSockets()).toHaveLength(1);
    expect(drillInSockets()[0]?.closedByClient).toBe(false);
    remount.close();
    await clock.advanceBy(99);
    expect(drillInSockets()[0]?.closedByClient).toBe(false);
    await clock.advanceBy(1);
    expect(drillInSockets()[0]?.closedByClient).toBe(true);
    expect(remount.getSnapshot().status).toBe("closed");
  });

  it("takes the address from drillInUrl (per run, e.g. with a read token) or from the first view's override", () => {
    const tokens: Record<string, string> = { r1: "t-1", r2: "t-2" };
    const { connection, parent, drillInSockets } = setup({
      drillInUrl: (run) => (run.agentType ? `sub/${run.agentType}/${run.runId}?token=${tokens[run.runId]}` : null),
    });
    parent.send(started("r1"));
    connection.drillIn("r1");
    connection.drillIn("r2", { url: "wss://other.example.com/r2" });
    connection.drillIn("r2", { url: "ignored: the first view's address holds" });
    expect(drillInSockets().map((socket) => socket.url)).toEqual([
      `${RUN_URL}?token=t-1`,
      "wss://other.example.com/r2",
    ]);
    expect(connection.getSnapshot().timeline.runsById["r1"]?.drillInUrl).toBe("sub/Researcher/r1?token=t-1");
  });

  it("close() closes the drill-in sockets too", () => {
    const { connection, parent, drillInSockets } = setup();
    parent.send(started("r1"));
    const view = connection.drillIn("r1");
    connection.close();
    expect(drillInSockets()[0]?.closedByClient).toBe(true);
    expect(view.getSnapshot().status).toBe("closed");
    expect(parent.closedByClient).toBe(true);
  });
});
