import type { AgentToolEventFrame, AgentToolRunInfo, AgentToolRunInspection } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import {
  agentFrames,
  chatSendRequest,
  demoHostSuite,
  demoWsUrl,
  isTerminalKind,
  restartDemoHost,
  runIdOf,
  withoutReplay,
} from "./harness/demo.js";

const MILESTONES = ["schema-checked", "half-way", "imported"];

type ChunkBody = { type: string; transient?: boolean; data?: Record<string, unknown> };
type DrillIn = {
  runId: string;
  turns: number;
  run: AgentToolRunInspection;
  messages: Array<{ role: string; parts?: Array<{ type: string; data?: unknown }> }>;
};

/** A chunk's body: an object, or the JSON string the seed system sends. */
const bodyOf = (frame: AgentToolEventFrame): ChunkBody | null => {
  if (frame.event.kind !== "chunk") return null;
  const body: unknown = frame.event.body;
  return (typeof body === "string" ? JSON.parse(body) : body) as ChunkBody;
};
const ofType = (frames: AgentToolEventFrame[], type: string) => frames.filter((frame) => bodyOf(frame)?.type === type);
const importerRunId = (frames: AgentToolEventFrame[]) => {
  const started = frames.find((frame) => frame.event.kind === "started" && frame.event.agentType === "Importer");
  return started ? runIdOf(started) : null;
};
const hasTerminal = (runId: string) => (messages: unknown[]) =>
  agentFrames(messages).some((frame) => runIdOf(frame) === runId && isTerminalKind(frame.event.kind));

describe("the Importer's progress and milestones in workerd", () => {
  // The Importer waits 5 × DEMO_PACE_MS per step (100 ms here): batches land inside one throttle window of the
  // reporter (200 ms), so coalescing and the trailing flush happen for real.
  const { host } = demoHostSuite({ DEMO_PACE_MS: "20" });
  const chatId = "progress";
  let runId = "";
  let liveMilestones: AgentToolEventFrame[] = [];
  const wsUrl = (path: string) => demoWsUrl(host, path);

  it("streams progress frames without a sequence and milestone chunks with their sequences, in order", async () => {
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(chatSendRequest("import the data", chatId));
    await events.waitFor((messages) => importerRunId(agentFrames(messages)) !== null);
    runId = importerRunId(agentFrames(events.messages)) ?? "";
    await events.waitFor(hasTerminal(runId));
    await chat.waitFor((messages) => messages.some((message) => (message as { type: string }).type === "end"));
    events.close();
    chat.close();

    const frames = agentFrames(events.messages).filter((frame) => runIdOf(frame) === runId);
    expect(frames.at(-1)?.event).toMatchObject({ kind: "finished", summary: "Imported 500 rows" });

    const progress = ofType(frames, "data-agent-progress");
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const frame of progress) {
      expect(frame.sequence).toBeUndefined();
      expect(bodyOf(frame)).toMatchObject({
        transient: true,
        data: { phase: expect.any(String), at: expect.any(Number) },
      });
    }
    const fractions = progress.map((frame) => bodyOf(frame)?.data?.["fraction"] as number);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    // The done frame goes out at once, with its data (live frames always carry it).
    expect(bodyOf(progress.at(-1) as AgentToolEventFrame)?.data).toMatchObject({
      fraction: 1,
      message: "Imported batch 5 of 5",
      data: { rows: 500 },
    });

    const durable = frames.filter((frame) => frame.sequence !== undefined);
    expect(durable.map((frame) => frame.sequence)).toEqual(durable.map((_, index) => index + 1));
    liveMilestones = ofType(frames, "data-agent-milestone");
    expect(liveMilestones.map((frame) => bodyOf(frame)?.data?.["milestone"])).toEqual(MILESTONES);
    const sequences = liveMilestones.map((frame) => frame.sequence ?? 0);
    expect(sequences.every((sequence) => sequence > 0)).toBe(true);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(bodyOf(liveMilestones[2] as AgentToolEventFrame)?.data).toMatchObject({ fraction: 1, data: { rows: 500 } });
  });

  it("replays every milestone with the same sequence after a restart, and the drill-in lists them", async () => {
    expect(runId).not.toBe("");
    await host.restart();
    const socket = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    await socket.waitFor(hasTerminal(runId));
    socket.close();
    const replayed = agentFrames(socket.messages).filter((frame) => runIdOf(frame) === runId);
    expect(replayed.every((frame) => frame.replay === true)).toBe(true);
    expect(ofType(replayed, "data-agent-milestone").map(withoutReplay)).toEqual(liveMilestones);
    // A finished run replays its last progress once (SPEC §6), just before its terminal frame.
    const progress = ofType(replayed, "data-agent-progress");
    expect(progress).toHaveLength(1);
    expect(bodyOf(progress[0] as AgentToolEventFrame)?.data).toMatchObject({ fraction: 1, milestone: "imported" });
    expect(replayed.at(-2)).toEqual(progress[0]);

    const drill = await host.fetchJson<DrillIn>(
      `/agents/assistant/${chatId}/sub/Importer/${encodeURIComponent(runId)}`,
    );
    expect(drill).toMatchObject({ runId, turns: 1, run: { status: "completed" } });
    expect(drill.run.milestones.map((milestone) => [milestone.name, milestone.sequence])).toEqual(
      liveMilestones.map((frame) => [bodyOf(frame)?.data?.["milestone"], frame.sequence]),
    );
    expect(drill.run.milestones[2]).toMatchObject({ name: "imported", fraction: 1, data: { rows: 500 } });
    // The Importer reports its row count with `persist: true`: the child's row keeps it; the last milestone moved
    // the snapshot on to its own phase.
    expect(drill.run.progress).toMatchObject({
      fraction: 1,
      phase: "done",
      milestone: "imported",
      data: { rows: 500 },
    });

    const runs = await host.fetchJson<AgentToolRunInfo[]>(`/agents/assistant/${chatId}/runs`);
    expect(runs.find((run) => run.runId === runId)?.progress).toMatchObject({ fraction: 1, data: { rows: 500 } });
  });
});

describe("the Importer evicted mid-run in workerd", () => {
  // The Importer holds in its first batch (its second text delta: the schema check's, then the batch's), after its
  // first milestone, until its run is cancelled: the restart evicts it mid-run, however slow the machine.
  const { host } = demoHostSuite({ DEMO_PACE_MS: "0", DEMO_HOLD_AFTER: "Importer:2" });
  const wsUrl = (path: string) => demoWsUrl(host, path);

  it("keeps the milestones it reached, with their sequences, across the restart, and resumes without repeating them", async () => {
    const chatId = "evicted";
    const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
    chat.send(chatSendRequest("import the data", chatId));
    await events.waitFor((messages) => ofType(agentFrames(messages), "data-agent-milestone").length >= 1);
    const before = ofType(agentFrames(events.messages), "data-agent-milestone");
    const runId = runIdOf(before[0] as AgentToolEventFrame);
    events.close();
    chat.close();
    // Without the hold from now on: the resumed turn finishes the import.
    await restartDemoHost(host, { DEMO_PACE_MS: "0" });

    const after = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
    await after.waitFor(hasTerminal(runId));
    after.close();
    const replayed = ofType(
      agentFrames(after.messages).filter((frame) => runIdOf(frame) === runId),
      "data-agent-milestone",
    );
    for (const frame of before) {
      expect(replayed).toContainEqual(expect.objectContaining({ sequence: frame.sequence, event: frame.event }));
    }
    expect(new Set(replayed.map((frame) => frame.sequence)).size).toBe(replayed.length);

    const drill = await host.fetchJson<DrillIn>(
      `/agents/assistant/${chatId}/sub/Importer/${encodeURIComponent(runId)}`,
    );
    // The cut-off turn was resumed from its completed steps: it finished, and reported no milestone twice.
    expect(drill.run.status).toBe("completed");
    expect(drill.run.summary).toBe("Imported 500 rows");
    expect(drill.run.milestones.map((milestone) => milestone.name)).toEqual(MILESTONES);
    expect(drill.run.milestones.slice(0, before.length).map((milestone) => milestone.sequence)).toEqual(
      before.map((frame) => frame.sequence),
    );
    expect(ofType(replayed, "data-agent-milestone").map((frame) => bodyOf(frame)?.data?.["milestone"])).toEqual(
      MILESTONES,
    );
    // The milestones are in the child's durable log, hence in its conversation too.
    const parts = drill.messages
      .flatMap((message) => message.parts ?? [])
      .filter((part) => part.type === "data-agent-milestone");
    expect(parts.map((part) => (part.data as { milestone: string }).milestone)).toEqual(MILESTONES);
  });
});
