// The connection against the real parent side: core-runs' registry broadcasts a live run and replays it to each
// (re)connecting socket with the cursors on its URL, as the demo's Assistant does. The socket drops mid-run.
import { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolEventFrame,
  encodeAgentToolFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import {
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  ScriptedChild,
} from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { createAgentToolConnection } from "./agent-tool-connection.js";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import { type FakeWebSocket, fakeWebSockets } from "./test-support.test-utils.js";

const PARENT_URL = "wss://example.com/agents/assistant/default";

/** The parent's side of its event sockets: live frames to every accepted socket, and replay on accept. */
function parentServer(clock: ManualClock) {
  const child = new ScriptedChild("Researcher");
  const accepted = new Set<FakeWebSocket>();
  /** Every frame each socket was sent, by socket. */
  const sent = new Map<FakeWebSocket, AgentToolEventFrame[]>();
  const deliver = (socket: FakeWebSocket, frame: AgentToolEventFrame) => {
    sent.get(socket)?.push(frame);
    socket.send(encodeAgentToolFrame(frame));
  };
  const registry = new AgentToolRegistry({
    store: new InMemoryRunStore(),
    transport: new InProcessChildTransport({ children: [child.definition], clock }),
    clock,
    broadcast: (frame) => {
      for (const socket of accepted) deliver(socket, frame);
    },
  });
  return {
    child,
    registry,
    sent,
    /** Accept a socket as the Assistant does: join the broadcast, then replay what its cursors do not hold. */
    async accept(socket: FakeWebSocket) {
      socket.open();
      accepted.add(socket);
      sent.set(socket, []);
      const url = new URL(socket.url);
      const cursors = parseAgentToolCursors(url.searchParams.get(AGENT_TOOL_CURSORS_PARAM));
      await registry.replayAgentToolRuns((frame) => deliver(socket, frame), { cursors });
    },
    /** The network drops the socket. */
    cut(socket: FakeWebSocket) {
      accepted.delete(socket);
      socket.drop();
    },
  };
}

const words = ["Cats ", "sleep ", "twelve ", "to ", "sixteen ", "hours ", "a ", "day."];
const textDeltas = (from: number, to: number): UIMessageChunk[] =>
  words.slice(from, to).map((delta) => ({ type: "text-delta", id: "t", delta }));

describe("a connection to a real parent registry", () => {
  it("loses and doubles nothing when the socket drops mid-run and reconnects with its cursors", async () => {
    const clock = new ManualClock(10_000);
    const server = parentServer(clock);
    const sockets = fakeWebSockets();
    const connection = createAgentToolConnection({
      url: PARENT_URL,
      WebSocket: sockets.WebSocket,
      clock,
      random: () => 0,
    });
    await server.accept(sockets.last());

    const result = server.registry.runAgentTool("Researcher", { input: "cats", runId: "r1", parentToolCallId: "c1" });
    const run = server.child.run("r1");
    await run.context;
    const before: UIMessageChunk[] = [{ type: "start" }, { type: "start-step" }, { type: "text-start", id: "t" }];
    const during = textDeltas(0, 5);
    const after: UIMessageChunk[] = [
      ...textDeltas(5, 8),
      { type: "text-end", id: "t" },
      { type: "finish-step" },
      { type: "finish" },
    ];

    run.emit(...before, ...textDeltas(0, 2));
    await clock.advanceBy(0); // the child writes a burst when its event loop turns (here: the clock moves)
    await flushMicrotasks(100);
    const first = sockets.last();
    server.cut(first); // mid-run: the child goes on while the client is away
    run.emit(...during.slice(2));
    await clock.advanceBy(0);
    await flushMicrotasks(100);
    expect(connection.getSnapshot().status).toBe("reconnecting");
    const heldAtDrop = connection.store.cursors()["r1"];
    expect(heldAtDrop).toEqual({ sequence: 5, revision: 1 });

    await clock.advanceBy(500); // the back-off
    const second = sockets.last();
    expect(second).not.toBe(first);
    await server.accept(second);
    run.emit(...after);
    run.complete();
    await expect(result).resolves.toMatchObject({ ok: true, status: "completed" });
    await flushMicrotasks(100);

    const allChunks = [...before, ...during, ...after];
    const chunkSequences = (socket: FakeWebSocket) =>
      (server.sent.get(socket) ?? []).flatMap((frame) => (frame.event.kind === "chunk" ? [frame.sequence] : []));
    // On the wire: the reconnect was sent only what the first socket had not carried, so every chunk went once.
    expect(chunkSequences(second).every((sequence) => (sequence ?? 0) > 5)).toBe(true);
    expect([...chunkSequences(first), ...chunkSequences(second)]).toEqual(allChunks.map((_, index) => index + 1));
    // In the client: the whole answer, once, as the AI SDK would assemble it, and the run's end.
    const state = connection.getSnapshot().timeline.runsById["r1"];
    expect(state?.parts).toEqual(assembleUIMessageParts(allChunks));
    expect(state?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))).toEqual([words.join("")]);
    expect(state).toMatchObject({ status: "completed", parentToolCallId: "c1", lastSequence: allChunks.length });
    expect(state?.completedAt).toBe(10_500);
    connection.close();
  });
});
