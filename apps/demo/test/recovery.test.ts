import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { sdkParts } from "@agent-tools/core-runs/testing";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import {
  agentFrames,
  chatSendRequest,
  demoHostPerFile,
  demoWsUrl,
  framesOfRun,
  isTerminalKind,
  isVoidedIn,
  restartDemoHost,
  runIdOf,
  voidedSequences,
} from "./harness/demo.js";

// Start-up recovery in workerd (@agent-tools/recovery in the Assistant): the runtime is restarted (Miniflare
// disposed, then started again on the same persistence folder) at several points of a Researcher run, whose turn
// has two model steps: a `lookup` tool call, then the text of its findings. Where the run must be cut in its text
// step, the Researcher holds there (the `DEMO_HOLD_AFTER` test knob) until the restart, which turns the hold off.

/** The drill-in JSON of a Researcher run. */
type ResearcherDrill = {
  runId: string;
  /** Fresh turns the child object started. */
  turns: number;
  /** Turns it started to resume a turn cut off by a restart. */
  resumedTurns: number;
  /** Executions of its `lookup` tool. */
  lookups: number;
  run: { status: string; summary?: string } | null;
};

type ChunkBody = { type: string; [key: string]: unknown };

const bodyOf = (frame: AgentToolEventFrame): ChunkBody | null =>
  frame.event.kind === "chunk" ? (frame.event.body as ChunkBody) : null;

/**
 * As the AI SDK assembles a run's chunk frames: one text part per step, every one done, the last one the run's
 * summary — the answer of a run never cut, whatever was cut and done again.
 */
async function expectUninterruptedAnswer(frames: readonly AgentToolEventFrame[], summary: string | undefined) {
  const parts = await sdkParts(frames.flatMap((frame) => (frame.event.kind === "chunk" ? [frame.event.body] : [])));
  const texts = parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
  expect(texts.at(-1)).toBe(summary);
  expect(parts.filter((part) => part.type === "step-start")).toHaveLength(texts.length);
  expect(parts.every((part) => part.type !== "text" || part.state === "done")).toBe(true);
}

function researcherRunId(messages: unknown[]): string | undefined {
  const started = agentFrames(messages).find(
    (frame) => frame.event.kind === "started" && frame.event.agentType === "Researcher",
  );
  return started ? runIdOf(started) : undefined;
}

/** True once the Researcher's tool step is done and its text step has begun streaming. */
function isInTextStep(messages: unknown[]): boolean {
  const runId = researcherRunId(messages);
  if (!runId) return false;
  const bodies = framesOfRun(messages, runId).map(bodyOf);
  const toolDone = bodies.findIndex((body) => body?.type === "tool-output-available");
  return toolDone >= 0 && bodies.slice(toolDone).some((body) => body?.type === "text-delta");
}

/**
 * The durable chunks of a run as a client that dedupes by sequence holds them, checking that a sequence seen twice
 * (before and after the restart, or replayed and live) always carries the same body.
 */
function dedupedLog(frames: AgentToolEventFrame[]): Map<number, ChunkBody> {
  const log = new Map<number, ChunkBody>();
  for (const frame of frames) {
    const body = bodyOf(frame);
    if (frame.sequence === undefined || body === null) continue;
    const known = log.get(frame.sequence);
    if (known !== undefined) expect(body).toEqual(known);
    log.set(frame.sequence, body);
  }
  return new Map([...log.entries()].sort(([a], [b]) => a - b));
}

/**
 * The Researcher holds once it has streamed the first word of its text step (its first step says "Looking that up. ",
 * three words, then calls `lookup`), until its run is cancelled: the restart finds it there, however slow the machine.
 */
const HOLD_IN_TEXT_STEP = { DEMO_HOLD_AFTER: "Researcher:4" };

function describeWithHost(
  name: string,
  bindings: Record<string, string>,
  body: (context: { host: () => MiniflareHost; wsUrl: (path: string) => string }) => void,
) {
  describe(name, () => {
    const host = demoHostPerFile(bindings);
    body({ host, wsUrl: (path) => demoWsUrl(host(), path) });
  });
}

/** Start a chat turn that runs the Researcher, and wait until its run is in its text step. */
async function researchUntilTextStep(wsUrl: (path: string) => string, chatId: string) {
  const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
  const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
  chat.send(chatSendRequest("research cats", chatId));
  await events.waitFor(isInTextStep);
  const runId = researcherRunId(events.messages) as string;
  const before = framesOfRun(events.messages, runId);
  events.close();
  chat.close();
  return { runId, before };
}

/** Start a chat turn whose Researcher run hangs; return once its child acknowledged the run (row `running`). */
async function startHungResearch(host: MiniflareHost, wsUrl: (path: string) => string, chatId: string) {
  const events = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
  const chat = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}/chat`));
  chat.send(chatSendRequest("research cats", chatId));
  await events.waitFor((messages) => researcherRunId(messages) !== undefined);
  const runId = researcherRunId(events.messages) as string;
  // Until the row says so, however long that takes: a restart before it would test another case (a run starting).
  await expect
    .poll(
      async () =>
        (await host.fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`)).find(
          (run) => run.runId === runId,
        )?.status,
      { timeout: 30_000, interval: 25 },
    )
    .toBe("running");
  events.close();
  chat.close();
  return runId;
}

describeWithHost(
  "recovery in workerd: restarted while the Researcher streams its text step",
  { DEMO_PACE_MS: "0", ...HOLD_IN_TEXT_STEP },
  ({ host, wsUrl }) => {
    it("completes the run after the restart: the tool is not run again, the cut-off turn resumes", async () => {
      const chatId = "mid-stream";
      const { runId, before } = await researchUntilTextStep(wsUrl, chatId);
      await restartDemoHost(host(), { DEMO_PACE_MS: "0" });

      // The first connection wakes the Assistant, whose start-up recovery re-attaches to the Researcher. It is
      // replayed every run of the chat (the Summarizer's too, which may have been cut as well): wait for all to end.
      const after = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await after.waitFor((messages) => {
        const runIds = new Set([runId, ...agentFrames(messages).map(runIdOf)]);
        return [...runIds].every((id) => framesOfRun(messages, id).some((frame) => isTerminalKind(frame.event.kind)));
      });
      const seen = framesOfRun(after.messages, runId);
      expect(seen.at(-1)?.event).toMatchObject({
        kind: "finished",
        summary: expect.stringContaining('Findings on "research cats": cats sleep 12 to 16 hours a day'),
      });

      // What a client holds across the restart: every sequence from 1, no gap, each with one body.
      const log = dedupedLog([...before, ...seen]);
      const sequences = [...log.keys()];
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
      const bodies = [...log.values()];
      expect(bodies.filter((body) => body.type === "tool-output-available")).toHaveLength(1);
      expect(bodies.at(-1)?.type).toBe("finish");

      const drill = await host().fetchJson<ResearcherDrill>(
        `/agents/assistant/${chatId}/sub/Researcher/${encodeURIComponent(runId)}`,
      );
      // One logical run (one run row, completed) and two turns started: the fresh one, cut off by the restart,
      // and one resuming it from its completed tool step. The tool itself ran once.
      expect(drill.run?.status).toBe("completed");
      expect({ turns: drill.turns, resumedTurns: drill.resumedTurns, lookups: drill.lookups }).toEqual({
        turns: 1,
        resumedTurns: 1,
        lookups: 1,
      });

      const runs = await host().fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
      expect(runs.find((run) => run.runId === runId)?.status).toBe("completed");
      expect(runs.every((run) => run.status !== "running" && run.status !== "starting")).toBe(true);
      after.close();
    });
  },
);

describeWithHost(
  "recovery in workerd: the child finished while the parent was down",
  // The parent stores every entry it forwards at once (not every 500 ms), as a loaded machine's timer has done by the
  // crash: what it replays at start-up then always holds the cut step's first chunks.
  { DEMO_PACE_MS: "0", FOLLOW_WRITE_INTERVAL_MS: "0", ...HOLD_IN_TEXT_STEP },
  ({ host, wsUrl }) => {
    it("collects the finished run at the parent's start-up instead of running it again", async () => {
      const chatId = "parent-down";
      const { runId } = await researchUntilTextStep(wsUrl, chatId);
      await restartDemoHost(host(), { DEMO_PACE_MS: "0", FOLLOW_WRITE_INTERVAL_MS: "0" });

      // Wake only the child (straight through its namespace, not through the parent) and let it finish.
      const miniflare = host().miniflare;
      const parentId = (await miniflare.getDurableObjectNamespace("ASSISTANT")).idFromName(chatId).toString();
      const researchers = await miniflare.getDurableObjectNamespace("RESEARCHER");
      const child = researchers.get(researchers.idFromName(`${parentId}/Researcher/${runId}`));
      const readChild = async () =>
        (await (await child.fetch(`http://child/?runId=${encodeURIComponent(runId)}`)).json()) as ResearcherDrill;
      await expect
        .poll(async () => (await readChild()).run?.status, { timeout: 30_000, interval: 25 })
        .not.toBe("running");
      const finished = await readChild();
      expect(finished).toMatchObject({ turns: 1, resumedTurns: 1, lookups: 1, run: { status: "completed" } });

      // Now the parent starts: it finds the child finished and collects it. This client connects while the parent's
      // start-up recovery runs, so it follows the run across the cut: it is replayed first what the parent had stored
      // before the crash — the cut step's first chunks among it (by default they are stored when the parent's position
      // write, every 500 ms, lands before the crash, as on a loaded machine) — and the step reset that voids them
      // comes after, from the child. Such a client honours the reset (as the client packages do).
      const during = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await during.waitFor((messages) =>
        framesOfRun(messages, runId).some((frame) => isTerminalKind(frame.event.kind)),
      );
      during.close();
      const seen = framesOfRun(during.messages, runId);
      expect(seen.at(-1)?.event).toMatchObject({ kind: "finished", summary: finished.run?.summary });
      // Gap-free, the cut step's sequences standing in its step reset.
      const voided = voidedSequences(seen);
      expect(voided.size).toBeGreaterThan(0);
      const sequences = [...new Set([...dedupedLog(seen).keys(), ...voided])].sort((a, b) => a - b);
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
      await expectUninterruptedAnswer(
        seen.filter((frame) => !isVoidedIn(frame, seen)),
        finished.run?.summary,
      );

      // A client that connects once the run is collected is replayed the run without the cut step (its reset still
      // sent): even the AI SDK's own assembly, which knows nothing of step resets, makes the uninterrupted answer.
      const fresh = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await fresh.waitFor((messages) => framesOfRun(messages, runId).some((frame) => isTerminalKind(frame.event.kind)));
      fresh.close();
      const replayed = framesOfRun(fresh.messages, runId);
      expect(replayed.filter((frame) => isVoidedIn(frame, replayed))).toEqual([]);
      await expectUninterruptedAnswer(replayed, finished.run?.summary);

      const drill = await host().fetchJson<ResearcherDrill>(
        `/agents/assistant/${chatId}/sub/Researcher/${encodeURIComponent(runId)}`,
      );
      // Collected, not re-run: no turn and no tool execution since the child finished on its own.
      expect(drill).toMatchObject({ turns: 1, resumedTurns: 1, lookups: 1, run: { status: "completed" } });
      const runs = await host().fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
      expect(runs.find((run) => run.runId === runId)?.status).toBe("completed");
    });
  },
);

describeWithHost(
  "recovery in workerd: a child that hangs",
  // The Researcher's model waits 10 minutes between chunks; recovery waits 1.5 s for progress.
  { DEMO_PACE_MS: "0", RESEARCHER_PACE_MS: "600000", RECOVERY_NO_PROGRESS_MS: "1500" },
  ({ host, wsUrl }) => {
    it("gives the run up with its typed reason, replayed to clients", async () => {
      const chatId = "hung";
      const runId = await startHungResearch(host(), wsUrl, chatId);
      await host().restart();

      const watcher = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await watcher.waitFor((messages) =>
        framesOfRun(messages, runId).some((frame) => frame.event.kind === "interrupted"),
      );
      expect(framesOfRun(watcher.messages, runId).at(-1)).toMatchObject({
        event: { kind: "interrupted", reason: "no-progress", childStillRunning: true },
      });
      watcher.close();

      // A client connecting later gets the typed reason in the replay.
      const later = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await later.waitFor((messages) => framesOfRun(messages, runId).some((frame) => isTerminalKind(frame.event.kind)));
      const replayed = framesOfRun(later.messages, runId).at(-1);
      expect(replayed).toMatchObject({
        replay: true,
        event: { kind: "interrupted", reason: "no-progress", childStillRunning: true, runId },
      });
      expect(replayed?.event).toHaveProperty("error", expect.any(String));
      later.close();

      const runs = await host().fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
      expect(runs.find((run) => run.runId === runId)?.status).toBe("interrupted");
    });
  },
);

describeWithHost(
  "recovery in workerd: a child that hangs past the re-attach window",
  { DEMO_PACE_MS: "0", RESEARCHER_PACE_MS: "600000", RECOVERY_NO_PROGRESS_MS: "60000", RECOVERY_MAX_WINDOW_MS: "1500" },
  ({ host, wsUrl }) => {
    it("records window-exceeded, then tears the child down", async () => {
      const chatId = "window";
      const runId = await startHungResearch(host(), wsUrl, chatId);
      await host().restart();

      const watcher = await RecordingSocket.open(wsUrl(`/agents/assistant/${chatId}`));
      await watcher.waitFor((messages) =>
        framesOfRun(messages, runId).some((frame) => frame.event.kind === "interrupted"),
      );
      const lifecycle = framesOfRun(watcher.messages, runId).filter((frame) => frame.event.kind !== "chunk");
      expect(lifecycle.at(-1)).toMatchObject({
        event: { kind: "interrupted", reason: "window-exceeded", childStillRunning: false },
      });
      // The child is cancelled after the outcome is recorded (however long that takes); its abort is not a second
      // result.
      const childStatus = async () =>
        (
          await host().fetchJson<ResearcherDrill>(
            `/agents/assistant/${chatId}/sub/Researcher/${encodeURIComponent(runId)}`,
          )
        ).run?.status;
      await expect.poll(childStatus, { timeout: 30_000, interval: 25 }).not.toBe("running");
      expect(await childStatus()).toBe("aborted");
      const runs = await host().fetchJson<Array<{ runId: string; status: string }>>(`/agents/assistant/${chatId}/runs`);
      expect(runs.find((run) => run.runId === runId)?.status).toBe("interrupted");
      expect(
        framesOfRun(watcher.messages, runId)
          .filter((frame) => isTerminalKind(frame.event.kind))
          .map((frame) => frame.event.kind),
      ).toEqual(["interrupted"]);
      watcher.close();
    });
  },
);
