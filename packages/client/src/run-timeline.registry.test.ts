// The timeline against the real parent side (issue 17, point 2): a child killed in the middle of a step, twice,
// resumes it; every client — one that watched live, a fresh one, one that reconnects from inside the cut step — ends
// with the uninterrupted run's message, as does the AI SDK's own `readUIMessageStream` over the replayed chunks.
import { AgentToolRegistry } from "@agent-tools/core-runs";
import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import {
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  ScriptedChild,
  sdkParts,
} from "@agent-tools/core-runs/testing";
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import { type AgentToolTimelineState, applyAgentToolEvent, createAgentToolTimelineState } from "./run-timeline.js";

/** Let the child write and the parent forward: the child writes each burst when its event loop turns (the clock). */
const settle = async (clock: ManualClock) => {
  await clock.advanceBy(0);
  for (let turn = 0; turn < 10; turn += 1) await flushMicrotasks(50);
};

const reduce = (frames: readonly AgentToolEventFrame[], state = createAgentToolTimelineState()) =>
  frames.reduce<AgentToolTimelineState>((current, frame) => applyAgentToolEvent(current, frame), state);

const stepOne: UIMessageChunk[] = [
  { type: "start" },
  { type: "start-step" },
  { type: "reasoning-start", id: "r" },
  { type: "reasoning-delta", id: "r", delta: "Owls: look it up." },
  { type: "reasoning-end", id: "r" },
  { type: "tool-input-start", toolCallId: "c1", toolName: "lookup" },
  { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"q":"owls"}' },
  { type: "tool-input-available", toolCallId: "c1", toolName: "lookup", input: { q: "owls" } },
  { type: "tool-output-available", toolCallId: "c1", output: { fact: "nocturnal" } },
  { type: "finish-step" },
];
const stepTwo: UIMessageChunk[] = [
  { type: "start-step" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Owls " },
  { type: "text-delta", id: "t", delta: "are " },
  { type: "text-delta", id: "t", delta: "nocturnal." },
  { type: "text-end", id: "t" },
  { type: "finish-step" },
  { type: "finish" },
];
/** Step two as far as a turn got before its host was killed. */
const cutAfter = (deltas: number) => stepTwo.slice(0, 2 + deltas);

describe("a run whose child is killed in the middle of a step", () => {
  it("shows every client the uninterrupted run, never the cut step's text twice", async () => {
    const clock = new ManualClock(1_000);
    const child = new ScriptedChild("Researcher");
    const transport = new InProcessChildTransport({ children: [child.definition], clock });
    const live: AgentToolEventFrame[] = [];
    const registry = new AgentToolRegistry({
      store: new InMemoryRunStore(),
      transport,
      clock,
      broadcast: (frame) => live.push(frame),
    });
    const ref = { agentType: "Researcher", runId: "r1" };
    const result = registry.runAgentTool("Researcher", { input: "owls", runId: "r1", parentToolCallId: "c0" });

    // The first turn: step one, then step two up to its first delta; killed.
    const first = child.run("r1");
    await first.context;
    first.emit(...stepOne, ...cutAfter(1));
    await settle(clock);
    transport.evict(ref);
    await settle(clock); // the parent's tail broke: it inspects the child, which resumes the run, and tails on
    // The second turn (a streamText resumed from the completed step writes `start` again): killed after two deltas.
    const second = child.run("r1");
    expect(second).not.toBe(first);
    second.emit({ type: "start" }, ...cutAfter(2));
    await settle(clock);
    const heldInsideTheCut = live.length;
    transport.evict(ref);
    await settle(clock);
    const third = child.run("r1");
    expect(third).not.toBe(second);
    third.emit({ type: "start" }, ...stepTwo);
    third.complete();
    await expect(result).resolves.toMatchObject({ ok: true, summary: "Owls are nocturnal." });

    const uninterrupted = assembleUIMessageParts([...stepOne, ...stepTwo]);
    expect(uninterrupted).toEqual(await sdkParts([...stepOne, ...stepTwo]));
    const texts = (parts: UIMessage["parts"] | undefined) =>
      (parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : []));

    // A client that watched it all live: the cut steps came, then their resets took them back.
    const watched = reduce(live).runsById["r1"];
    expect(watched?.parts).toEqual(uninterrupted);
    expect(texts(watched?.parts)).toEqual(["Owls are nocturnal."]);
    expect(watched).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });

    // A fresh client: the replay leaves the cut steps out.
    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    const fresh = reduce(replayed).runsById["r1"];
    expect(fresh?.parts).toEqual(uninterrupted);
    expect(fresh?.lastSequence).toBe(watched?.lastSequence);
    const replayedChunks = replayed.flatMap((frame) => (frame.event.kind === "chunk" ? [frame.event.body] : []));
    expect(await sdkParts(replayedChunks)).toEqual(uninterrupted);

    // A client that held the live frames up to inside the second cut step, then reconnected with its cursors.
    const before = reduce(live.slice(0, heldInsideTheCut));
    const cursor = before.runsById["r1"];
    const resumed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => resumed.push(frame), {
      cursors: { r1: { sequence: cursor?.lastSequence ?? 0, revision: cursor?.revision ?? 0 } },
    });
    const reconnected = reduce(resumed, before).runsById["r1"];
    expect(reconnected?.parts).toEqual(uninterrupted);
    expect(reconnected?.lastSequence).toBe(watched?.lastSequence);
  });
});
