import { readdir } from "node:fs/promises";
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { PersistDirectory } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import {
  agentFrames,
  chatSendRequest,
  demoHostSuite,
  demoWsUrl,
  isTerminalKind,
  isVoidedIn,
  restartDemoHost,
  runIdOf,
  withoutReplay,
} from "./harness/demo.js";

type ChatFrame = {
  type: string;
  requestId?: string;
  sequence?: number;
  chunk?: { type: string; [key: string]: unknown };
};

const terminalCount = (messages: unknown[]) =>
  agentFrames(messages).filter((frame) => isTerminalKind(frame.event.kind)).length;
/** This file's chat requests are numbered by the length of their text. */
const sendRequest = (text: string, chatId: string) =>
  chatSendRequest(text, chatId, `request-${text.length}`, `user-${chatId}`);

/** Every file under the persistence folder (one SQLite file per Durable Object with storage). */
async function storedObjects(persist: PersistDirectory): Promise<string[]> {
  const entries = await readdir(persist.path, { recursive: true });
  return entries.filter((entry) => entry.endsWith(".sqlite")).sort();
}

describe("the demo Worker in workerd", () => {
  const { host, persist } = demoHostSuite({ DEMO_PACE_MS: "0" });
  const chatId = "e2e";
  let liveFrames: AgentToolEventFrame[] = [];

  const wsUrl = (path: string) => demoWsUrl(host, path);

  it("runs awaited child runs end to end over WebSockets", async () => {
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(sendRequest("research cats", chatId));
    await chat.waitFor((messages) =>
      messages.some((message) => ["end", "error"].includes((message as ChatFrame).type)),
    );
    await events.waitFor((messages) => terminalCount(messages) >= 2);
    const chatFrames = chat.messages as ChatFrame[];
    expect(chatFrames.at(-1)?.type).toBe("end");
    expect(chatFrames.filter((frame) => frame.type === "chunk").map((frame) => frame.sequence)).toEqual(
      // The AI SDK's WebSocketChatTransport numbers a turn's chunks from 0.
      chatFrames.filter((frame) => frame.type === "chunk").map((_, index) => index),
    );

    liveFrames = agentFrames(events.messages);
    const runIds = [...new Set(liveFrames.map(runIdOf))];
    expect(runIds).toHaveLength(2);
    for (const runId of runIds) {
      const frames = liveFrames.filter((frame) => runIdOf(frame) === runId);
      expect(frames[0]).toMatchObject({ revision: 1, event: { kind: "started" } });
      const sequences = frames.filter((frame) => frame.event.kind === "chunk").map((frame) => frame.sequence);
      expect(sequences.length).toBeGreaterThan(3);
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
      expect(frames.at(-1)).toMatchObject({ revision: 3, event: { kind: "finished" } });
      expect(frames[0]?.parentToolCallId).toMatch(/^call-/);
      expect(runId).toBe(`agent-tool:${frames[0]?.parentToolCallId}`);
    }
    const agentTypes = liveFrames.flatMap((frame) => (frame.event.kind === "started" ? [frame.event.agentType] : []));
    expect(agentTypes.sort()).toEqual(["Researcher", "Summarizer"]);

    // The children's results went back to the parent model, which wrote them into its answer.
    const text = chatFrames
      .flatMap((frame) => (frame.chunk?.type === "text-delta" ? [String(frame.chunk["delta"])] : []))
      .join("");
    expect(text).toContain('Research: Findings on "research cats": cats sleep 12 to 16 hours a day');
    expect(text).toContain('Summary — Summary of "research cats"');
    const toolOutputs = chatFrames.filter((frame) => frame.chunk?.type === "tool-output-available");
    expect(toolOutputs).toHaveLength(2);

    const messages = await host.fetchJson<Array<{ role: string }>>(`/agents/assistant/${chatId}/messages`);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    // Without a crash, each lifecycle hook ran exactly once per run (the Assistant's durable hook journal).
    const hooks = await host.fetchJson<Array<{ runId: string; start: number; finish: Record<string, number> }>>(
      `/agents/assistant/${chatId}/hooks`,
    );
    expect(hooks.map((entry) => entry.runId).sort()).toEqual([...runIds].sort());
    for (const entry of hooks) expect(entry).toMatchObject({ start: 1, finish: { completed: 1 } });
    events.close();
    chat.close();
  });

  it("replays retained runs to a second client", async () => {
    const second = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    await second.waitFor((messages) => terminalCount(messages) >= 2);
    const replayed = agentFrames(second.messages);
    expect(replayed.every((frame) => frame.replay === true)).toBe(true);
    expect(sortByRun(replayed.map(withoutReplay))).toEqual(sortByRun(liveFrames));
    second.close();
  });

  it("replays only what a client missed when it gives its cursors", async () => {
    const [first] = [...new Set(liveFrames.map(runIdOf))];
    const frames = liveFrames.filter((frame) => runIdOf(frame) === first);
    const lastSequence = Math.max(...frames.map((frame) => frame.sequence ?? 0));
    const cursors = encodeURIComponent(JSON.stringify([[first, lastSequence - 2, 1]]));
    const socket = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}?agentToolCursors=${cursors}`));
    await socket.waitFor((messages) => terminalCount(messages) >= 2);
    const ofFirst = agentFrames(socket.messages).filter((frame) => runIdOf(frame) === first);
    expect(ofFirst.map((frame) => frame.event.kind)).toEqual(["chunk", "chunk", "finished"]);
    expect(ofFirst.slice(0, 2).map((frame) => frame.sequence)).toEqual([lastSequence - 1, lastSequence]);
    socket.close();
  });

  it("refuses drill-in to a run it never created, without creating a child", async () => {
    const before = await storedObjects(persist);
    const guessed = await host.fetch(
      `/agents/assistant/${chatId}/sub/Researcher/${encodeURIComponent("agent-tool:guess")}`,
    );
    expect(guessed.status).toBe(404);
    await guessed.text();
    const otherParent = liveFrames.find((frame) => frame.event.kind === "started");
    const foreign = await host.fetch(
      `/agents/assistant/someone-else/sub/Researcher/${encodeURIComponent(runIdOf(otherParent as AgentToolEventFrame))}`,
    );
    expect(foreign.status).toBe(404);
    await foreign.text();
    const created = (await storedObjects(persist)).filter((file) => !before.includes(file));
    // Only the second parent's own Assistant object may have appeared; no child object did.
    expect(created.filter((file) => /Researcher|Summarizer|Importer/.test(file))).toEqual([]);
    expect(created.length).toBeLessThanOrEqual(1);

    const started = liveFrames.find(
      (frame) => frame.event.kind === "started" && frame.event.agentType === "Researcher",
    );
    const runId = runIdOf(started as AgentToolEventFrame);
    const drill = await host.fetchJson<{
      runId: string;
      turns: number;
      run: { status: string };
      messages: Array<{ role: string }>;
    }>(`/agents/assistant/${chatId}/sub/Researcher/${encodeURIComponent(runId)}`);
    expect(drill).toMatchObject({ runId, turns: 1, run: { status: "completed" } });
    expect(drill.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("keeps everything across a restart on the same persistence folder, without re-running a child", async () => {
    await host.restart();
    const socket = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    await socket.waitFor((messages) => terminalCount(messages) >= 2);
    expect(sortByRun(agentFrames(socket.messages).map(withoutReplay))).toEqual(sortByRun(liveFrames));
    socket.close();
    for (const runId of new Set(liveFrames.map(runIdOf))) {
      const type = liveFrames.find((frame) => runIdOf(frame) === runId && frame.event.kind === "started");
      const agentType = type?.event.kind === "started" ? type.event.agentType : "";
      const drill = await host.fetchJson<{ turns: number }>(
        `/agents/assistant/${chatId}/sub/${agentType}/${encodeURIComponent(runId)}`,
      );
      expect(drill.turns).toBe(1);
    }
    const runs = await host.fetchJson<Array<{ status: string }>>(`/agents/assistant/${chatId}/runs`);
    expect(runs.map((run) => run.status)).toEqual(["completed", "completed"]);
  });
});

describe("the demo Worker restarted while a child streams", () => {
  // The Researcher streams two words, then holds until its run is cancelled (DEMO_HOLD_AFTER): it is still running
  // when the runtime restarts, however slow the machine. The restart turns the hold off: the resumed turn finishes.
  const { host } = demoHostSuite({ DEMO_PACE_MS: "0", DEMO_HOLD_AFTER: "Researcher:2" });
  const wsUrl = (path: string) => demoWsUrl(host, path);

  it("loses no stored chunk, ends every run, and never runs a child twice", async () => {
    const chatId = "restart";
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(sendRequest("research rust", chatId));
    // Restart once the Researcher is mid-stream: its text has begun, and it holds there (its run cannot finish first).
    const researcherStarted = (messages: unknown[]) =>
      agentFrames(messages).find((frame) => frame.event.kind === "started" && frame.event.agentType === "Researcher");
    await events.waitFor((messages) => {
      const started = researcherStarted(messages);
      return agentFrames(messages).some(
        (frame) =>
          started !== undefined &&
          runIdOf(frame) === runIdOf(started) &&
          frame.event.kind === "chunk" &&
          frame.event.body.type === "text-delta",
      );
    });
    const beforeRestart = agentFrames(events.messages);
    events.close();
    chat.close();
    await restartDemoHost(host, { DEMO_PACE_MS: "0" });

    const after = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    // The runs seen before the restart, and any other the parent replays (all of its runs): each must end.
    const runIdsIn = (messages: unknown[]) => [...new Set([...beforeRestart, ...agentFrames(messages)].map(runIdOf))];
    await after.waitFor(
      (messages) =>
        runIdsIn(messages).every((runId) =>
          agentFrames(messages).some((frame) => runIdOf(frame) === runId && isTerminalKind(frame.event.kind)),
        ),
      30_000,
    );
    const runIds = runIdsIn(after.messages);
    const seenAfter = agentFrames(after.messages);
    // Every durable chunk a client saw before the restart comes back with the same sequence and body, but those of
    // a step cut by the restart: the resumed turn did that step again, and a step reset voids them instead.
    for (const frame of beforeRestart.filter((candidate) => candidate.sequence !== undefined)) {
      const afterOfRun = seenAfter.filter((candidate) => runIdOf(candidate) === runIdOf(frame));
      if (isVoidedIn(frame, afterOfRun)) continue;
      expect(seenAfter).toContainEqual(expect.objectContaining({ sequence: frame.sequence, event: frame.event }));
    }
    for (const runId of runIds) {
      const started = [...beforeRestart, ...seenAfter].find(
        (frame) => runIdOf(frame) === runId && frame.event.kind === "started",
      );
      const agentType = started?.event.kind === "started" ? started.event.agentType : "";
      const drill = await host.fetchJson<{ turns: number; resumedTurns: number; run: { status: string } }>(
        `/agents/assistant/${chatId}/sub/${agentType}/${encodeURIComponent(runId)}`,
      );
      // One fresh turn; a turn cut off by the restart is resumed (at most once here), not started again.
      expect(drill.turns).toBe(1);
      expect(drill.resumedTurns).toBeLessThanOrEqual(1);
      // The Researcher was cut (it held until the restart), so its turn was resumed.
      if (agentType === "Researcher") expect(drill.resumedTurns).toBe(1);
      expect(drill.run.status).toBe("completed");
    }
    const runs = await host.fetchJson<Array<{ status: string }>>(`/agents/assistant/${chatId}/runs`);
    // The children resumed after the restart and finished; the parent collected their real results.
    expect(runs.map((run) => run.status)).toEqual(["completed", "completed"]);
    after.close();
  });
});

function sortByRun(frames: AgentToolEventFrame[]): AgentToolEventFrame[] {
  return [...frames].sort((a, b) => runIdOf(a).localeCompare(runIdOf(b)));
}
