// A child killed in the middle of a step, in workerd (issue 17, point 2): the runtime is restarted on the same
// persistence folder while the child streams its text; the resumed turn redoes the step. Every reader then sees the
// uninterrupted answer once: a fresh client's replay (read with the AI SDK's own `readUIMessageStream`), the drill-in
// (JSON and socket), and a client that reconnects from inside the cut step is told to drop what it held. A step cut
// while its tools ran is kept instead: a tool that had answered is not run again.
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolDrillInFrame,
  type AgentToolEventFrame,
  encodeAgentToolCursors,
  readStepResetChunk,
} from "@agent-tools/core-runs/protocol";
import { sdkParts } from "@agent-tools/core-runs/testing";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const TEXT = "one two three four five six";
const ANSWER = `#1 ${TEXT}`;

const start = hostWorkerPerTest("agent-tools-resumed-step-");

const agentFrames = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).filter((message) => message.type === "agent-tool-event");
const chunkFrames = (messages: unknown[]) => agentFrames(messages).filter((frame) => frame.event.kind === "chunk");
const bodyOf = (frame: AgentToolEventFrame) => (frame.event.kind === "chunk" ? frame.event.body : null);
const isFinished = (messages: unknown[]) => agentFrames(messages).some((frame) => frame.event.kind === "finished");
const texts = (parts: UIMessage["parts"] | undefined) =>
  (parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));

describe("a child restarted in the middle of a step", () => {
  it("shows every reader the answer once, and tells a client that held part of the cut step to drop it", async () => {
    const secret = { AGENT_TOOLS_RUN_TOKEN_SECRET: "test-secret-of-at-least-16-characters" };
    // The child says two words, then holds until cancelled: the restart cuts its step, however slow the machine.
    const host = await start({ ...secret, ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/p1";
    const before = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?runId=cut&text=${encodeURIComponent(TEXT)}`, { method: "POST" });
    // The child has logged (and the parent forwarded) text of its step: restart now, before the step ends.
    await before.waitFor((messages) => chunkFrames(messages).some((frame) => bodyOf(frame)?.type === "text-delta"));
    const held = Math.max(...chunkFrames(before.messages).map((frame) => frame.sequence ?? 0));
    before.close();
    // Without the hold from now on: the resumed turn redoes the step to its end.
    await host.restart(secret);

    // A client that held the log up to `held` reconnects with its cursor.
    const cursors = encodeAgentToolCursors({ cut: { sequence: held, revision: 1 } });
    const reconnected = await RecordingSocket.open(
      wsUrl(host, `${base}?${AGENT_TOOL_CURSORS_PARAM}=${encodeURIComponent(cursors)}`),
    );
    await reconnected.waitFor(isFinished);
    reconnected.close();
    const after = chunkFrames(reconnected.messages);
    const reset = after.map((frame) => readStepResetChunk(bodyOf(frame))).find((found) => found !== null);
    expect(reset?.fromSequence).toBeLessThanOrEqual(held);
    // Nothing of the cut step comes again. An entry before it that the restarted parent had not stored yet (its first
    // copy of the log waits one write interval) may: the same sequence and body the client holds, which it dedupes.
    const cutFrom = reset?.fromSequence ?? 0;
    const heldBodies = new Map(chunkFrames(before.messages).map((frame) => [frame.sequence, bodyOf(frame)]));
    const again = after.filter((frame) => (frame.sequence ?? 0) <= held);
    expect(again.every((frame) => (frame.sequence ?? 0) > 0 && (frame.sequence ?? 0) < cutFrom)).toBe(true);
    for (const frame of again) expect(bodyOf(frame)).toEqual(heldBodies.get(frame.sequence));

    // A fresh client: its replay is the uninterrupted answer, as the AI SDK assembles it.
    const fresh = await RecordingSocket.open(wsUrl(host, base));
    await fresh.waitFor(isFinished);
    fresh.close();
    const replayed = chunkFrames(fresh.messages).flatMap((frame) => bodyOf(frame) ?? []);
    const message = { parts: await sdkParts(replayed) };
    expect(texts(message?.parts)).toEqual([ANSWER]);
    expect(message?.parts.filter((part) => part.type === "step-start")).toHaveLength(1);

    // The drill-in, as JSON and on its socket (which closes: the run has ended).
    const drill = await host.fetchJson<{ messages: UIMessage[] }>(`${base}/sub/Echo/cut`);
    expect(texts(drill.messages.at(-1)?.parts)).toEqual([ANSWER]);
    expect(drill.messages.at(-1)?.parts).toEqual(message?.parts);
    const socket = await RecordingSocket.open(wsUrl(host, `${base}/sub/Echo/cut`));
    expect(await socket.waitForClose()).toEqual({ code: 1000, reason: "run ended" });
    const [first] = socket.messages as AgentToolDrillInFrame[];
    expect(first?.type === "child-messages" ? texts(first.messages.at(-1)?.parts) : null).toEqual([ANSWER]);
  });

  it("keeps a tool's result when restarted while another tool of the same step runs (the child's getTools)", async () => {
    const host = await start({ LOOKOUT_HOLD_SLOW: "1" });
    const base = "/agents/parent/p2";
    const events = await RecordingSocket.open(wsUrl(host, base));
    await host.fetchJson(`${base}/test/start?agent=Lookout&runId=tools&text=go`, { method: "POST" });
    // `fast` has answered and its result is logged; `slow` runs (and never answers in this runtime): restart now.
    await events.waitFor((messages) =>
      chunkFrames(messages).some((frame) => bodyOf(frame)?.type === "tool-output-available"),
    );
    events.close();
    await host.restart({});

    const fresh = await RecordingSocket.open(wsUrl(host, base));
    await fresh.waitFor(isFinished);
    fresh.close();
    const message = { parts: await sdkParts(chunkFrames(fresh.messages).flatMap((frame) => bodyOf(frame) ?? [])) };
    expect(texts(message?.parts)).toEqual(["fast: fast done, slow: slow done"]);
    const tools = (message?.parts ?? []).filter((part) => part.type.startsWith("tool-"));
    expect(tools.map((part) => (part as { toolCallId: string }).toolCallId)).toEqual(["c-fast", "c-slow"]);
    // `fast` ran once: its result was kept. `slow` ran again, once, with its own call id.
    const drill = await host.fetchJson<{ toolRuns: Record<string, number> }>(`${base}/sub/Lookout/tools`);
    expect(drill.toolRuns).toEqual({ fast: 1, slow: 2 });
  });
});
