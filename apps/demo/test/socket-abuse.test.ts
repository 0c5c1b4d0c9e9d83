import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { beforeAll, describe, expect, it } from "vitest";
import {
  agentFrames,
  chatSendRequest,
  demoHostSuite,
  demoWsUrl,
  isTerminalKind,
  runIdOf,
  withoutReplay,
} from "./harness/demo.js";

// Bad client input at the Assistant's two sockets, in workerd: malformed, forged and replayed frames, forged
// cursors, and run ids of another parent. Each gets a clear error or is ignored; no run, stored frame or other
// client is affected.

type ChatFrame = { type: string; requestId?: string; errorText?: string };
type RunInfo = { runId: string; status: string; revision: number };

const terminals = (messages: unknown[]) =>
  agentFrames(messages).filter((frame) => isTerminalKind(frame.event.kind)).length;
const chatFrames = (socket: RecordingSocket) => socket.messages as ChatFrame[];
const errorsOf = (socket: RecordingSocket) => chatFrames(socket).filter((frame) => frame.type === "error");
const byRunAndSequence = (frames: AgentToolEventFrame[]) =>
  [...frames].sort(
    (a, b) =>
      runIdOf(a).localeCompare(runIdOf(b)) ||
      (a.revision ?? 0) - (b.revision ?? 0) ||
      (a.sequence ?? 0) - (b.sequence ?? 0),
  );

describe("the Assistant's sockets under bad client input", () => {
  const { host } = demoHostSuite({ DEMO_PACE_MS: "0" });
  /** Runs of the parent under test ("abuse") and of another parent ("other"). */
  let ownRuns: RunInfo[] = [];
  let otherRuns: RunInfo[] = [];
  /** What a fresh client is replayed before any abuse. */
  let replayBefore: AgentToolEventFrame[] = [];

  const wsUrl = (path: string) => demoWsUrl(host, path);

  async function completeTurn(chatId: string, text: string): Promise<void> {
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(chatSendRequest(text, chatId, `request-${chatId}`));
    await chat.waitFor((messages) => (messages as ChatFrame[]).some((frame) => frame.type === "end"));
    chat.close();
  }

  /**
   * Wait until the parent has handled every message `socket` (an event socket) sent so far, and everything it sent
   * `socket` before them: it answers a page request (of the runs before the first possible position: none, so just
   * the page frame), and it handles a socket's messages in order.
   */
  async function synced(socket: RecordingSocket): Promise<void> {
    const pages = () => socket.messages.filter((message) => (message as { type?: string }).type === "agent-tool-page");
    const before = pages().length;
    socket.send({ type: "agent-tool-page-request", before: "0:sync", limit: 1 });
    await socket.waitFor(() => pages().length > before);
  }

  /**
   * A fresh client's whole replay. The parent replays a connecting client before its socket opens, so all of it comes
   * before the answer to a message sent once open (`synced`) — counting terminal frames would not do: a replay with
   * cursors ends with its `cleared` frame, after them.
   */
  async function replayOf(chatId: string, query = ""): Promise<AgentToolEventFrame[]> {
    const socket = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}${query}`));
    await synced(socket);
    socket.close();
    return agentFrames(socket.messages);
  }

  beforeAll(async () => {
    await completeTurn("abuse", "research cats");
    await completeTurn("other", "research dogs");
    ownRuns = await host.fetchJson<RunInfo[]>("/agents/assistant/abuse/runs");
    otherRuns = await host.fetchJson<RunInfo[]>("/agents/assistant/other/runs");
    replayBefore = await replayOf("abuse");
  });

  it("has runs to protect: two completed runs in each parent", () => {
    expect(ownRuns.map((run) => run.status)).toEqual(["completed", "completed"]);
    expect(otherRuns.map((run) => run.status)).toEqual(["completed", "completed"]);
    expect(replayBefore.filter((frame) => frame.event.kind === "finished")).toHaveLength(2);
  });

  it("agrees to no per-message compression on either socket, though the client offers it", async () => {
    const events = await RecordingSocket.open(wsUrl("/agents/assistant/abuse"));
    const chat = await RecordingSocket.open(wsUrl("/agents/assistant/abuse/chat"));
    expect(events.extensions).toBe("");
    expect(chat.extensions).toBe("");
    events.close();
    chat.close();
  });

  it("answers malformed and forged chat frames with an error, and the socket still serves a real turn", async () => {
    const events = await RecordingSocket.open(wsUrl("/agents/assistant/abuse"));
    await synced(events);
    const replayed = events.messages.length;
    const chat = await RecordingSocket.open(wsUrl("/agents/assistant/abuse/chat"));

    chat.sendRaw("{ not json");
    chat.sendRaw(new Uint8Array([0xff, 0xfe, 0x00, 0x7b]));
    chat.send({ type: "send", requestId: "missing-fields" });
    chat.send({ type: "launch-missiles", requestId: "unknown-type" });
    // A client echoing an agent-tool frame back, as if it could finish a run.
    const finished = replayBefore.find((frame) => frame.event.kind === "finished") as AgentToolEventFrame;
    chat.send({ ...finished, requestId: "forged-frame", revision: 99, event: { ...finished.event, kind: "error" } });
    await chat.waitFor(() => errorsOf(chat).length >= 5);
    expect(errorsOf(chat).map((frame) => [frame.requestId, frame.errorText?.split(":")[0]])).toEqual([
      ["", "Malformed frame"],
      ["", "Malformed frame"],
      ["missing-fields", "Invalid request"],
      ["unknown-type", "Invalid request"],
      ["forged-frame", "Invalid request"],
    ]);
    expect(chat.open).toBe(true);

    chat.send(chatSendRequest("research owls", "abuse", "after-abuse", "user-after-abuse"));
    await chat.waitFor(() => chatFrames(chat).some((frame) => frame.type === "end"));
    expect(chatFrames(chat).at(-1)).toMatchObject({ type: "end", requestId: "after-abuse" });
    // The events socket saw the real turn's runs (each ended before its tool result went to the model, so before the
    // turn's `end`: their terminal frames were sent before the answer to a later request), and nothing for the forged
    // frame.
    await synced(events);
    expect(terminals(events.messages)).toBe(ownRuns.length + 2);
    const live = agentFrames(events.messages.slice(replayed));
    expect(live.some((frame) => frame.revision === 99)).toBe(false);
    expect(new Set(live.map(runIdOf)).size).toBeGreaterThan(0);
    for (const runId of new Set(live.map(runIdOf))) expect(ownRuns.some((run) => run.runId === runId)).toBe(false);
    events.close();
    chat.close();
    ownRuns = await host.fetchJson<RunInfo[]>("/agents/assistant/abuse/runs");
    replayBefore = await replayOf("abuse");
  });

  it("ignores whatever a client sends on the events socket: garbage, forged and replayed frames", async () => {
    const events = await RecordingSocket.open(wsUrl("/agents/assistant/abuse"));
    await synced(events);
    events.sendRaw("garbage");
    events.sendRaw(new Uint8Array([1, 2, 3]));
    for (const frame of agentFrames(events.messages)) events.send(frame); // replayed back as is
    const started = replayBefore.find((frame) => frame.event.kind === "started") as AgentToolEventFrame;
    events.send({ ...started, replay: false, revision: 50, event: { kind: "aborted", runId: runIdOf(started) } });
    // The parent has handled all of it (and nothing came back but the page frame it asked for).
    const heard = events.messages.length;
    await synced(events);
    expect(events.messages.slice(heard).map((message) => (message as { type?: string }).type)).toEqual([
      "agent-tool-page",
    ]);

    // Every run and every stored frame is as before, for a fresh client and for the socket that sent them.
    const after = await replayOf("abuse");
    expect(byRunAndSequence(after.map(withoutReplay))).toEqual(byRunAndSequence(replayBefore.map(withoutReplay)));
    expect(await host.fetchJson<RunInfo[]>("/agents/assistant/abuse/runs")).toEqual(ownRuns);
    expect(events.open).toBe(true);
    events.close();
  });

  it("treats unreadable cursors as none, and never replays another parent's run named in them", async () => {
    const full = byRunAndSequence(replayBefore.map(withoutReplay));
    for (const garbage of ["%7Bnot-json", encodeURIComponent('[["x",-5,"a"]]'), encodeURIComponent("9".repeat(400))]) {
      const replay = await replayOf("abuse", `?agentToolCursors=${garbage}`);
      expect(byRunAndSequence(replay.map(withoutReplay))).toEqual(full);
    }

    // Cursors that name the other parent's runs, and our first run as fully seen (far ahead).
    const [own] = ownRuns;
    const cursors = [
      ...otherRuns.map((run) => [run.runId, 0, 0]),
      [own?.runId, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    ];
    const query = `?agentToolCursors=${encodeURIComponent(JSON.stringify(cursors))}`;
    const replay = await replayOf("abuse", query);
    const ownIds = new Set(ownRuns.map((run) => run.runId));
    // The only frame naming the foreign runs is `cleared`: it echoes ids the client sent, telling it to drop them.
    const cleared = replay.filter((frame) => frame.event.kind === "cleared");
    expect(cleared.flatMap((frame) => ("runIds" in frame.event ? frame.event.runIds : [])).sort()).toEqual(
      otherRuns.map((run) => run.runId).sort(),
    );
    const others = replay.filter((frame) => frame.event.kind !== "cleared");
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((frame) => ownIds.has(runIdOf(frame)))).toBe(true);
    expect(replay.filter((frame) => runIdOf(frame) === own?.runId && frame.event.kind === "chunk")).toEqual([]);
  });

  it("refuses to cancel an unknown run or another parent's run, and leaves that run alone", async () => {
    const [foreign] = otherRuns;
    for (const runId of ["agent-tool:guess", foreign?.runId ?? ""]) {
      const response = await host.fetch(`/agents/assistant/abuse/cancel/${encodeURIComponent(runId)}`, {
        method: "POST",
      });
      expect(await response.json()).toEqual({ cancelled: false });
    }
    expect(await host.fetchJson<RunInfo[]>("/agents/assistant/other/runs")).toEqual(otherRuns);
    expect(await host.fetchJson<RunInfo[]>("/agents/assistant/abuse/runs")).toEqual(ownRuns);
  });
});
