// Log retention on AgentToolParent in workerd (issue 28): with `retainLogs`, the parent's alarm compacts the logs of
// the finished runs past the policy, and a client that connects later replays each of them to the same message and
// the same last sequence as a client that watched it live, with fewer frames; the child (drill-in) keeps its own log.
import { assembleMessage } from "@agent-tools/core-runs/internal";
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const start = hostWorkerPerTest("agent-tools-retention-");

type Message = { role: string; parts: Array<{ type: string; text?: string }> };

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const framesOf = (messages: unknown[], runId: string) =>
  agentFrames(messages).filter((frame) => "runId" in frame.event && frame.event.runId === runId);
const hasFinished = (runId: string) => (messages: unknown[]) =>
  framesOf(messages, runId).some((frame) => frame.event.kind === "finished");

/** What a client makes of a run's frames: its message (chunks by sequence, once each) and its last sequence. */
async function seen(messages: unknown[], runId: string) {
  const bySequence = new Map<number, UIMessageChunk>();
  for (const frame of framesOf(messages, runId)) {
    if (frame.event.kind === "chunk" && frame.sequence !== undefined) bySequence.set(frame.sequence, frame.event.body);
  }
  const sequences = [...bySequence.keys()].sort((left, right) => left - right);
  const chunks = sequences.map((sequence) => bySequence.get(sequence) as UIMessageChunk);
  const message = await assembleMessage(chunks, runId);
  return { parts: message?.parts, lastSequence: sequences.at(-1), frames: framesOf(messages, runId).length };
}

describe("retainLogs on AgentToolParent", () => {
  it("compacts the logs past the policy from its alarm; a later client replays them to the same runs", async () => {
    const running = await start({ PARENT_RETAIN_RUNS: "1" });
    const base = "/agents/parent/retain";
    const live = await RecordingSocket.open(wsUrl(running, base));
    const text = "one two three four five six seven eight nine ten";
    await running.fetchJson(`${base}/test/start?runId=first&text=${encodeURIComponent(text)}`, { method: "POST" });
    await live.waitFor(hasFinished("first"));
    await running.fetchJson(`${base}/test/start?runId=second&text=${encodeURIComponent(text)}`, { method: "POST" });
    await live.waitFor(hasFinished("second"));
    live.close();

    // The newest finished run keeps its full log; the alarm compacts the other.
    await expect.poll(() => running.fetchJson<string[]>(`${base}/test/compacted`)).toEqual(["first"]);

    const later = await RecordingSocket.open(wsUrl(running, base));
    await later.waitFor((messages) => hasFinished("first")(messages) && hasFinished("second")(messages));
    later.close();
    for (const runId of ["first", "second"]) {
      const [watched, replayed] = [await seen(live.messages, runId), await seen(later.messages, runId)];
      expect(replayed.parts).toEqual(watched.parts);
      expect(replayed.lastSequence).toBe(watched.lastSequence);
    }
    const [watched, replayed] = [await seen(live.messages, "first"), await seen(later.messages, "first")];
    expect(replayed.frames).toBeLessThan(watched.frames);

    // Drill-in reads the child's own log, which retention leaves alone.
    const drill = await running.fetchJson<{ messages: Message[] }>(`${base}/sub/Echo/first`);
    const answer = drill.messages.find((message) => message.role === "assistant");
    expect(answer?.parts.find((part) => part.type === "text")?.text).toBe(`#1 ${text}`);
  });
});
