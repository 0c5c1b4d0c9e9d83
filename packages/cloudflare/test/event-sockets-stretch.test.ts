// The order of what ParentEventSockets sends (SPEC §6, batches), on a fake object state in Node: a stretch's frames go
// out at its end, as one batch to a socket that asked and one per message to one that did not; a socket accepted
// while a stretch is pending gets none of what was broadcast before it and all of what came after, once, behind its
// replay.
import type { AgentToolRegistry } from "@agent-tools/core-runs";
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { flushMicrotasks, ManualClock } from "@agent-tools/core-runs/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ParentEventSockets } from "../src/parent/event-sockets.js";

class FakeSocket {
  readonly sent: string[] = [];
  send(message: string) {
    this.sent.push(message);
  }
}

/** The parts of a `DurableObjectState` the event sockets use. */
function fakeState() {
  const tags = new Map<FakeSocket, string[]>();
  return {
    acceptWebSocket(ws: FakeSocket, with_: string[]) {
      tags.set(ws, with_);
    },
    getWebSockets(tag: string) {
      return [...tags].filter(([, of]) => of.includes(tag)).map(([ws]) => ws);
    },
    getTags(ws: FakeSocket) {
      return tags.get(ws) ?? [];
    },
  };
}

/** A registry whose replay sends `frames` at once (the stretch of the caller). */
const replaying = (frames: AgentToolEventFrame[]) =>
  ({
    replayAgentToolRuns(send: (frame: AgentToolEventFrame) => void) {
      for (const frame of frames) send(frame);
      return Promise.resolve({ runs: 1, frames: frames.length });
    },
  }) as unknown as AgentToolRegistry;

const chunk = (runId: string, sequence: number, replay = false): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  sequence,
  ...(replay ? { replay: true as const } : {}),
  event: { kind: "chunk", runId, body: { type: "text-delta", id: "t", delta: `${sequence}` } },
});
const text = (frame: AgentToolEventFrame) => JSON.stringify(frame);

/** Connect a socket (the next `WebSocketPair`'s server side); resolves its fake socket once connected. */
function connect(sockets: ParentEventSockets, query: string, registry: AgentToolRegistry) {
  const server = new FakeSocket();
  vi.stubGlobal(
    "WebSocketPair",
    class {
      0 = new FakeSocket();
      1 = server;
    },
  );
  const connected = sockets.connect(new Request(`https://parent/${query}`), registry);
  return { server, connected };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("ParentEventSockets' stretches", () => {
  it("sends a stretch at its end: one batch to a socket that asked, one frame per message to one that did not", async () => {
    vi.stubGlobal("Response", class {});
    const state = fakeState();
    const sockets = new ParentEventSockets(state as unknown as DurableObjectState, { clock: new ManualClock() });
    const nothing = replaying([]);
    const batched = connect(sockets, "?agentToolBatch=1", nothing);
    await batched.connected;
    const plain = connect(sockets, "", nothing);
    await plain.connected;

    const frames = [chunk("r1", 1), chunk("r2", 1), chunk("r1", 2)];
    for (const frame of frames) sockets.broadcastRunFrame(frame);
    sockets.announce({ kind: "history" });
    expect([batched.server.sent, plain.server.sent]).toEqual([[], []]);
    await flushMicrotasks();

    const texts = [...frames.map(text), JSON.stringify({ type: "agent-chat-event", event: { kind: "history" } })];
    expect(batched.server.sent).toEqual([`[${texts.join(",")}]`]);
    expect(plain.server.sent).toEqual(texts);

    // One frame alone is a plain message to both.
    sockets.broadcastRunFrame(chunk("r1", 3));
    await flushMicrotasks();
    expect(batched.server.sent.at(-1)).toBe(text(chunk("r1", 3)));
    expect(plain.server.sent.at(-1)).toBe(text(chunk("r1", 3)));
  });

  it("gives a socket accepted in the middle of a stretch its replay and what came after, never what came before", async () => {
    vi.stubGlobal("Response", class {});
    const state = fakeState();
    const sockets = new ParentEventSockets(state as unknown as DurableObjectState, { clock: new ManualClock() });
    const first = connect(sockets, "?agentToolBatch=1", replaying([]));
    await first.connected;

    // One synchronous stretch: two frames, a socket connects (its replay is read at once), one more frame.
    sockets.broadcastRunFrame(chunk("r1", 1));
    sockets.broadcastRunFrame(chunk("r1", 2));
    const replay = [chunk("r0", 1, true), chunk("r0", 2, true)];
    const late = connect(sockets, "?agentToolBatch=1", replaying(replay));
    sockets.broadcastRunFrame(chunk("r1", 3));
    await late.connected;
    await flushMicrotasks();

    expect(first.server.sent).toEqual([`[${text(chunk("r1", 1))},${text(chunk("r1", 2))}]`, text(chunk("r1", 3))]);
    expect(late.server.sent).toEqual([`[${replay.map(text).join(",")}]`, text(chunk("r1", 3))]);
  });
});
