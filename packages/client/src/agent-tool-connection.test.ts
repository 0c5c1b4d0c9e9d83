import { ManualClock } from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import {
  type AgentToolConnectionOptions,
  createAgentToolConnection,
  DEFAULT_AGENT_TOOL_PAGE,
} from "./agent-tool-connection.js";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import { withAgentToolBatches, withAgentToolPage } from "./connect-url.js";
import {
  chunk,
  cursorsOf,
  fakeWebSockets,
  finished,
  milestone,
  progress,
  sequenced,
  started,
  textChunks,
} from "./test-support.test-utils.js";

const URL_ = "wss://example.com/agents/assistant/default";
/** The connect URL as the connection opens it: asking for paged replay (the default page). */
const paged = (url: string) => withAgentToolPage(withAgentToolBatches(url), DEFAULT_AGENT_TOOL_PAGE);
const answer: UIMessageChunk[] = [{ type: "start-step" }, ...textChunks("t1", "Cats sleep sixteen hours a day.")];

/** A connection on fake sockets and a manual clock; `random` 0 takes no jitter off (delays 500, 1000, 2000, …). */
function setup(options: Partial<AgentToolConnectionOptions> = {}) {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const connection = createAgentToolConnection({
    url: URL_,
    WebSocket: sockets.WebSocket,
    clock,
    random: () => 0,
    ...options,
  });
  const statuses: string[] = [];
  connection.subscribe(() => {
    const { status } = connection.getSnapshot();
    if (statuses.at(-1) !== status) statuses.push(status);
  });
  const textOf = (runId: string) =>
    (connection.getSnapshot().timeline.runsById[runId]?.parts ?? [])
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("");
  return { connection, sockets, clock, statuses, textOf };
}

describe("createAgentToolConnection", () => {
  it("connects without cursors, feeds the store, and shows its status", () => {
    const { connection, sockets, statuses, textOf } = setup();
    expect(connection.getSnapshot().status).toBe("connecting");
    expect(sockets.sockets.map((socket) => socket.url)).toEqual([paged(URL_)]);
    sockets.last().open();
    for (const frame of [started("r1"), ...sequenced("r1", answer), finished("r1", 2)]) sockets.last().send(frame);
    expect(statuses).toEqual(["open"]);
    expect(textOf("r1")).toBe("Cats sleep sixteen hours a day.");
    expect(connection.getSnapshot().timeline).toBe(connection.store.getSnapshot());
  });

  it("reads a batch (SPEC §6) in order: its run frames at once, a conversation event and a page frame in place", () => {
    const { connection, sockets, textOf } = setup();
    const full = "Cats sleep sixteen hours a day.";
    const toldAt: string[] = [];
    connection.onChatEvent(() => toldAt.push(textOf("r1")));
    let changes = 0;
    connection.store.subscribe(() => {
      changes += 1;
    });
    sockets.last().open();
    const frames = [started("r1"), ...sequenced("r1", answer), finished("r1", 2)];
    const half = Math.ceil(frames.length / 2);
    sockets
      .last()
      .send([
        ...frames.slice(0, half),
        { type: "agent-chat-event", event: { kind: "history" } },
        { type: "agent-tool-event", event: 42 },
        ...frames.slice(half),
        { type: "agent-tool-page", runs: 1, hasOlder: true, before: "4:r0" },
      ]);
    expect(textOf("r1")).toBe(full);
    expect(connection.getSnapshot().timeline.runsById["r1"]?.status).toBe("completed");
    // The conversation event was told with the frames before it applied and none after it.
    expect(toldAt).toHaveLength(1);
    expect(full.startsWith(toldAt[0] ?? "")).toBe(true);
    expect(toldAt[0]).not.toBe(full);
    // One change for the frames before the event, one for those after (the malformed one among them changed nothing).
    expect(changes).toBe(2);
    expect(connection.getSnapshot().olderRuns).toEqual({ hasOlder: true, loading: false });
  });

  it("loses and doubles nothing when the socket drops mid-run: the reconnect URL carries gap-free cursors", async () => {
    const { connection, sockets, clock, textOf } = setup();
    const frames = [started("r1", { parentToolCallId: "c1" }), ...sequenced("r1", answer)];
    const first = sockets.last();
    first.open();
    // Frames 1–3 arrive, frame 5 overtakes frame 4 (a replay/live race), then the socket drops.
    for (const frame of [frames[0], frames[1], frames[2], frames[3], frames[5]]) first.send(frame);
    first.drop();
    expect(connection.getSnapshot().status).toBe("reconnecting");
    await clock.advanceBy(499);
    expect(sockets.sockets).toHaveLength(1); // still waiting out the back-off
    await clock.advanceBy(1);
    const second = sockets.last();
    // Sequence 4 is missing, so the cursor says 3 (not 5): the server sends 4 again.
    expect(cursorsOf(second.url)).toEqual({ r1: { sequence: 3, revision: 1 } });
    second.open();
    // A late message of the dropped socket is not applied (the cursor still says 3).
    first.send(frames[4]);
    expect(connection.store.cursors()).toEqual({ r1: { sequence: 3, revision: 1 } });
    // What a server sends for that cursor: everything after 3 (5 again too, deduped), then the terminal frame.
    for (const frame of [...frames.slice(4), finished("r1", 2)]) second.send({ ...frame, replay: true });
    expect(textOf("r1")).toBe("Cats sleep sixteen hours a day.");
    expect(connection.getSnapshot().timeline.runsById["r1"]?.parts).toEqual(assembleUIMessageParts(answer));
    expect(connection.store.cursors()).toEqual({ r1: { sequence: answer.length, revision: 2 } });
  });

  it("backs off exponentially with jitter, up to the cap, and starts over after an open", async () => {
    let draw = 0.5;
    const { sockets, clock, statuses } = setup({
      random: () => draw,
      reconnect: { initialDelayMs: 100, maxDelayMs: 700, jitter: 0.5 },
    });
    const reopenTimes: number[] = [];
    let seen = 1;
    const failUntil = async (count: number) => {
      while (seen < count) {
        sockets.last().fail();
        while (sockets.sockets.length === seen) await clock.advanceBy(1);
        seen = sockets.sockets.length;
        reopenTimes.push(clock.now());
      }
    };
    await failUntil(5);
    // Waits of 100·2^n less a quarter (jitter 0.5 × draw 0.5): 75, 150, 300, then capped at 700 → 525.
    expect(reopenTimes).toEqual([75, 225, 525, 1050]);
    sockets.last().open();
    draw = 0;
    sockets.last().drop();
    await clock.advanceBy(99);
    expect(sockets.sockets).toHaveLength(5);
    await clock.advanceBy(1);
    expect(sockets.sockets).toHaveLength(6); // back to the initial delay
    expect(statuses).toEqual(["reconnecting", "open", "reconnecting"]);
  });

  it("retries when the constructor throws, and ignores junk without throwing", async () => {
    const sockets = fakeWebSockets();
    let refusals = 1;
    class FlakyWebSocket extends sockets.WebSocket {
      constructor(url: string) {
        if (refusals > 0) {
          refusals -= 1;
          throw new SyntaxError("refused");
        }
        super(url);
      }
    }
    const clock = new ManualClock(0);
    const connection = createAgentToolConnection({ url: URL_, WebSocket: FlakyWebSocket, clock, random: () => 0 });
    expect(connection.getSnapshot().status).toBe("reconnecting");
    await clock.advanceBy(500);
    sockets.last().open();
    const listener = vi.fn();
    connection.subscribe(listener);
    for (const junk of [
      "not json",
      '{"type":"cf_agent_chat"}',
      42,
      null,
      new ArrayBuffer(2),
      '{"type":"agent-tool-event"}',
    ]) {
      expect(() => sockets.last().send(junk)).not.toThrow();
    }
    expect(listener).not.toHaveBeenCalled();
    sockets.last().send(started("r1"));
    expect(Object.keys(connection.getSnapshot().timeline.runsById)).toEqual(["r1"]);
  });

  it("close() stops for good; reconnect() opens again at once, with the cursors held", async () => {
    const { connection, sockets, clock, statuses } = setup();
    sockets.last().open();
    for (const frame of [started("r1"), ...sequenced("r1", answer.slice(0, 3))]) sockets.last().send(frame);
    connection.close();
    expect(sockets.last().closedByClient).toBe(true);
    await clock.advanceBy(60_000);
    expect(sockets.sockets).toHaveLength(1);
    connection.reconnect();
    expect(sockets.sockets).toHaveLength(2);
    expect(cursorsOf(sockets.last().url)).toEqual({ r1: { sequence: 3, revision: 1 } });
    expect(statuses).toEqual(["open", "closed", "reconnecting"]);
    // reconnect() on an open connection replaces its socket.
    sockets.last().open();
    connection.reconnect();
    expect(sockets.sockets[1]?.closedByClient).toBe(true);
    expect(sockets.sockets).toHaveLength(3);
  });

  it("resetLocalState() forgets every run and reconnects without cursors, for a full replay", () => {
    const { connection, sockets } = setup();
    sockets.last().open();
    for (const frame of [started("r1"), ...sequenced("r1", answer)]) sockets.last().send(frame);
    connection.resetLocalState();
    expect(connection.getSnapshot().timeline.runsById).toEqual({});
    expect(sockets.last().url).toBe(paged(URL_));
    expect(cursorsOf(sockets.last().url)).toBeNull();
  });

  it("keeps progress and milestones across a drop, and replaces a cursors parameter already on the URL", async () => {
    const { connection, sockets, clock } = setup({ url: `${URL_}?agentToolCursors=stale&room=a#x` });
    sockets.last().open();
    for (const frame of [
      started("r1"),
      milestone("r1", 1, "fetched", 10, 0.5),
      progress("r1", { fraction: 0.6, at: 11 }),
    ]) {
      sockets.last().send(frame);
    }
    sockets.last().drop();
    await clock.advanceBy(500);
    expect(sockets.last().url).toBe(
      `${URL_}?room=a&agentToolBatch=1&agentToolPage=50&agentToolCursors=${encodeURIComponent('[["r1",1,1]]')}#x`,
    );
    expect(connection.getSnapshot().timeline.runsById["r1"]).toMatchObject({
      progress: { fraction: 0.6, at: 11 },
      milestones: [{ sequence: 1, name: "fetched" }],
    });
  });

  it("leaves a run known only from its chunks out of the cursors, so the server replays it with its start", async () => {
    const { sockets, clock } = setup();
    sockets.last().open();
    sockets.last().send(chunk("r1", 1, { type: "start-step" }));
    sockets.last().drop();
    await clock.advanceBy(500);
    expect(cursorsOf(sockets.last().url)).toBeNull();
  });

  it("pages the parent's runs: the newest on connect, older ones on request, one page at a time (SPEC §6)", async () => {
    const { connection, sockets, clock } = setup({ page: 2 });
    expect(sockets.last().url).toBe(`${URL_}?agentToolBatch=1&agentToolPage=2`);
    const first = sockets.last();
    first.open();
    expect(connection.loadOlderRuns()).toBe(false); // nothing known of older runs yet
    for (const frame of [started("r5"), finished("r5", 2), started("r4"), finished("r4", 2)]) first.send(frame);
    first.send({ type: "agent-tool-page", runs: 2, hasOlder: true, before: "4:r4" });
    expect(connection.getSnapshot().olderRuns).toEqual({ hasOlder: true, loading: false });
    expect(connection.loadOlderRuns()).toBe(true);
    expect(connection.getSnapshot().olderRuns).toEqual({ hasOlder: true, loading: true });
    expect(connection.loadOlderRuns()).toBe(false); // one page at a time
    expect(first.fromClient).toEqual([{ type: "agent-tool-page-request", before: "4:r4", limit: 2 }]);
    // The socket drops before the page comes: no page is on its way any more; the reconnect's page frame says more.
    first.drop();
    expect(connection.getSnapshot().olderRuns).toEqual({ hasOlder: true, loading: false });
    await clock.advanceBy(500);
    const second = sockets.last();
    expect(cursorsOf(second.url)).toEqual({ r4: { sequence: 0, revision: 2 }, r5: { sequence: 0, revision: 2 } });
    second.open();
    second.send({ type: "agent-tool-page", runs: 0, hasOlder: true, before: "4:r4" });
    expect(connection.loadOlderRuns(10)).toBe(true);
    expect(second.fromClient).toEqual([{ type: "agent-tool-page-request", before: "4:r4", limit: 10 }]);
    for (const frame of [started("r1"), finished("r1", 2)]) second.send(frame);
    second.send({ type: "agent-tool-page", runs: 1, hasOlder: false });
    expect(connection.getSnapshot().olderRuns).toEqual({ hasOlder: false, loading: false });
    expect(Object.keys(connection.getSnapshot().timeline.runsById).sort()).toEqual(["r1", "r4", "r5"]);
    expect(connection.loadOlderRuns()).toBe(false);
  });

  it("asks for every run at once with page: false, and never for older ones", () => {
    const { connection, sockets } = setup({ page: false });
    expect(sockets.last().url).toBe(`${URL_}?agentToolBatch=1`);
    sockets.last().open();
    sockets.last().send({ type: "agent-tool-page", runs: 1, hasOlder: true, before: "4:r4" });
    expect(connection.loadOlderRuns()).toBe(false);
    expect(sockets.last().fromClient).toEqual([]);
  });

  it("refuses to start without a WebSocket", () => {
    const original = (globalThis as { WebSocket?: unknown }).WebSocket;
    (globalThis as { WebSocket?: unknown }).WebSocket = undefined;
    try {
      expect(() => createAgentToolConnection({ url: URL_ })).toThrow(/pass options.WebSocket/);
    } finally {
      (globalThis as { WebSocket?: unknown }).WebSocket = original;
    }
  });
});
