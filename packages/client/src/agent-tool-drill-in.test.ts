import type { AgentToolDrillInFrame, AgentToolRunInspection } from "@agent-tools/core-runs/protocol";
import { ManualClock } from "@agent-tools/core-runs/testing";
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import { type AgentToolDrillInOptions, createAgentToolDrillIn } from "./agent-tool-drill-in.js";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import { fakeWebSockets, textChunks } from "./test-support.test-utils.js";

const DRILL_IN_URL = "wss://example.com/agents/assistant/default/sub/Researcher/r1";
const log: UIMessageChunk[] = [{ type: "start-step" }, ...textChunks("t", "Cats sleep sixteen hours a day.")];
const input: UIMessage = { id: "in", role: "user", parts: [{ type: "text", text: "cats" }] };
const run = (lastSequence: number, status: AgentToolRunInspection["status"] = "running"): AgentToolRunInspection => ({
  runId: "r1",
  status,
  milestones: [],
  lastSequence,
  startedAt: 1,
});

/** The child's frames when its log holds `held` entries, then the entries from `held` to `to`. */
function childFrames(held: number, to = held): AgentToolDrillInFrame[] {
  const assistant: UIMessage = { id: "out", role: "assistant", parts: assembleUIMessageParts(log.slice(0, held)) };
  return [
    { type: "child-messages", runId: "r1", messages: held > 0 ? [input, assistant] : [input], run: run(held) },
    ...log.slice(held, to).map(
      (body, index): AgentToolDrillInFrame => ({
        type: "child-chunk",
        runId: "r1",
        item: { type: "entries", entries: [{ sequence: held + index + 1, body, at: 1 }] },
      }),
    ),
  ];
}

function setup(options: Partial<AgentToolDrillInOptions> = {}) {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const drillIn = createAgentToolDrillIn({
    runId: "r1",
    url: DRILL_IN_URL,
    WebSocket: sockets.WebSocket,
    clock,
    random: () => 0,
    ...options,
  });
  const text = () =>
    (drillIn.getSnapshot().messages.at(-1)?.parts ?? [])
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("");
  return { drillIn, sockets, clock, text };
}

describe("createAgentToolDrillIn", () => {
  it("shows the child's messages, live", () => {
    const { drillIn, sockets, text } = setup();
    expect(sockets.last().url).toBe(DRILL_IN_URL);
    sockets.last().open();
    for (const frame of childFrames(0, 4)) sockets.last().send(frame);
    expect(drillIn.getSnapshot()).toMatchObject({ status: "open", isLoaded: true, runId: "r1" });
    expect(drillIn.getSnapshot().messages[0]).toEqual(input);
    expect(text()).toBe("Cats sleep ");
  });

  it("reopens after a drop while the run is live, and the messages sent again replace the view: nothing doubled", async () => {
    const { drillIn, sockets, clock, text } = setup();
    sockets.last().open();
    for (const frame of childFrames(0, 5)) sockets.last().send(frame);
    sockets.last().drop();
    expect(drillIn.getSnapshot().status).toBe("reconnecting");
    await clock.advanceBy(500);
    expect(sockets.sockets).toHaveLength(2);
    sockets.last().open();
    for (const frame of childFrames(7, log.length)) sockets.last().send(frame);
    expect(text()).toBe("Cats sleep sixteen hours a day.");
    expect(drillIn.getSnapshot().messages.at(-1)?.parts).toEqual(assembleUIMessageParts(log));
  });

  it("does not reopen once the run is complete, and close() stops it", async () => {
    const done = setup();
    done.sockets.last().open();
    done.sockets.last().send({ type: "child-messages", runId: "r1", messages: [input], run: run(0, "completed") });
    done.sockets.last().drop();
    await done.clock.advanceBy(60_000);
    expect(done.sockets.sockets).toHaveLength(1);
    expect(done.drillIn.getSnapshot()).toMatchObject({ status: "closed", isComplete: true });

    const live = setup();
    live.drillIn.close();
    expect(live.sockets.last().closedByClient).toBe(true);
    expect(live.drillIn.getSnapshot().status).toBe("closed");
    await live.clock.advanceBy(60_000);
    expect(live.sockets.sockets).toHaveLength(1);
  });

  it("reads a URL function on every open, and waits while it gives null", () => {
    let address: string | null = null;
    let version = 0;
    const { drillIn, sockets } = setup({
      url: () => (address === null ? null : `${address}?token=${++version}`),
    });
    expect(sockets.sockets).toHaveLength(0);
    expect(drillIn.getSnapshot().status).toBe("connecting");
    address = DRILL_IN_URL;
    drillIn.reconnect();
    drillIn.reconnect();
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([`${DRILL_IN_URL}?token=1`, `${DRILL_IN_URL}?token=2`]);
  });

  it("treats a URL function that throws as a failed attempt, and backs off", async () => {
    let calls = 0;
    const { sockets, clock, drillIn } = setup({
      url: () => {
        calls += 1;
        if (calls === 1) throw new Error("no token yet");
        return DRILL_IN_URL;
      },
    });
    expect(sockets.sockets).toHaveLength(0);
    expect(drillIn.getSnapshot().status).toBe("reconnecting");
    await clock.advanceBy(500);
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([DRILL_IN_URL]);
  });

  it("ignores malformed frames and other traffic without throwing, and notifies only on change", () => {
    const { drillIn, sockets } = setup();
    sockets.last().open();
    const listener = vi.fn();
    drillIn.subscribe(listener);
    for (const junk of ["{", "null", 7, { type: "child-chunk", runId: "r1", item: { type: "rewind" } }]) {
      expect(() => sockets.last().send(junk)).not.toThrow();
    }
    const [messages] = childFrames(0);
    sockets.last().send({ ...messages, runId: "r2" }); // another run's frame: well-formed, but not this view's
    expect(listener).not.toHaveBeenCalled();
    expect(drillIn.getSnapshot().isLoaded).toBe(false);
  });
});
