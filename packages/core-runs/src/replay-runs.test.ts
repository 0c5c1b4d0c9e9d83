// Replay to one connection (SPEC §6): what a client that reconnects gets, with and without cursors.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import {
  AGENT_PROGRESS_PART,
  AGENT_STEP_RESET_PART,
  type AgentToolEventFrame,
  type AgentToolProgressSnapshot,
  stepResetChunk,
} from "./protocol/index.js";
import { AgentToolRegistry } from "./run-registry.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { InProcessChildTransport } from "./testing/in-process-child-transport.js";
import { flushMicrotasks, ManualClock } from "./testing/manual-clock.js";
import { ScriptedChild, textChunks } from "./testing/scripted-child.js";
import { sdkParts } from "./testing/sdk-parts.js";

const settle = async () => {
  for (let turn = 0; turn < 10; turn += 1) await flushMicrotasks(50);
};

function world(broadcast?: (frame: AgentToolEventFrame) => void) {
  const clock = new ManualClock(1_000);
  const scripted = new ScriptedChild("Scripted");
  const transport = new InProcessChildTransport({ children: [scripted.definition], clock });
  const registry = new AgentToolRegistry({
    store: new InMemoryRunStore(),
    transport,
    clock,
    ...(broadcast ? { broadcast } : {}),
  });
  return { clock, scripted, registry, transport };
}

const progress = (snapshot: AgentToolProgressSnapshot) =>
  ({ type: AGENT_PROGRESS_PART, data: snapshot, transient: true }) as unknown as UIMessageChunk;

async function replay(registry: AgentToolRegistry, cursors?: Record<string, { sequence: number; revision: number }>) {
  const frames: AgentToolEventFrame[] = [];
  await registry.replayAgentToolRuns((frame) => frames.push(frame), cursors ? { cursors } : {});
  return frames;
}

describe("replay: progress", () => {
  it("sends a live run's latest progress to a client whose cursors are up to date (no new log entry)", async () => {
    const { registry, scripted, clock } = world();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    const context = await run.context;
    run.emit({ type: "start" });
    await settle();
    // The client saw sequence 1 and the run's start; then, while it was away, the child reported progress.
    const snapshot = { fraction: 0.4, message: "40 %", at: clock.now() };
    context.publishEphemeral(progress(snapshot), snapshot);
    await settle();
    const frames = await replay(registry, { r1: { sequence: 1, revision: 2 } });
    expect(frames.map((frame) => [frame.event.kind, frame.sequence])).toEqual([["chunk", undefined]]);
    expect(frames[0]?.event).toMatchObject({ kind: "chunk", body: { type: AGENT_PROGRESS_PART, data: snapshot } });
    run.complete();
    await running;
  });

  it("replays a finished run's last progress before its terminal frame", async () => {
    const { registry, scripted, clock } = world();
    const running = registry.runAgentTool("Scripted", { input: "a", runId: "r1" });
    const run = scripted.run("r1");
    const context = await run.context;
    const snapshot = { fraction: 1, message: "done", at: clock.now() };
    context.publishEphemeral(progress(snapshot), snapshot);
    run.emit(...textChunks(["ok"]));
    run.complete();
    await running;
    const kinds = (await replay(registry)).map((frame) =>
      frame.event.kind === "chunk" ? (frame.event.body as { type: string }).type : frame.event.kind,
    );
    expect(kinds.at(-2)).toBe(AGENT_PROGRESS_PART);
    expect(kinds.at(-1)).toBe("finished");
    // A client that missed the end gets the progress with the terminal; one that holds the end gets nothing.
    const missedEnd = await replay(registry, { r1: { sequence: 7, revision: 2 } });
    expect(missedEnd.map((frame) => frame.event.kind)).toEqual(["chunk", "finished"]);
    expect(await replay(registry, { r1: { sequence: 7, revision: 3 } })).toEqual([]);
  });
});

describe("replay: a run whose child was cut off in the middle of a step", () => {
  const stepOne: UIMessageChunk[] = [
    { type: "start" },
    { type: "start-step" },
    { type: "text-start", id: "a" },
    { type: "text-delta", id: "a", delta: "Looking up owls." },
    { type: "text-end", id: "a" },
    { type: "finish-step" },
  ];
  const cutStep: UIMessageChunk[] = [
    { type: "start-step" },
    { type: "text-start", id: "b" },
    { type: "text-delta", id: "b", delta: "Owls " },
  ];
  const stepTwo: UIMessageChunk[] = [
    { type: "start-step" },
    { type: "text-start", id: "b" },
    { type: "text-delta", id: "b", delta: "Owls are nocturnal." },
    { type: "text-end", id: "b" },
    { type: "finish-step" },
    { type: "finish" },
  ];

  /** A run that streamed step one and part of step two, lost its child, and was finished by the resumed turn. */
  async function cutRun() {
    const live: AgentToolEventFrame[] = [];
    const { registry, scripted, transport, clock } = world((frame) => live.push(frame));
    const running = registry.runAgentTool("Scripted", { input: "owls", runId: "r1" });
    const first = scripted.run("r1");
    await first.context;
    first.emit(...stepOne, ...cutStep);
    await clock.advanceBy(0); // the burst is written when the event loop turns (here: the clock moves)
    await settle();
    transport.evict({ agentType: "Scripted", runId: "r1" });
    await settle(); // the parent's tail broke: it inspects, which wakes the child again, and tails on
    const second = scripted.run("r1");
    expect(second).not.toBe(first);
    second.emit({ type: "start" }, ...stepTwo);
    second.complete();
    await expect(running).resolves.toMatchObject({ ok: true, summary: "Owls are nocturnal." });
    return { registry, live };
  }

  const bodies = (frames: readonly AgentToolEventFrame[]) =>
    frames.flatMap((frame) => (frame.event.kind === "chunk" ? [frame.event.body] : []));

  it("replays the uninterrupted run to a client with no cursor: the cut step is left out, its reset kept", async () => {
    const { registry, live } = await cutRun();
    // Live, the parent forwarded the cut step, then the reset.
    expect(bodies(live).map((body) => body.type)).toContain(AGENT_STEP_RESET_PART);
    const frames = await replay(registry);
    const replayed = bodies(frames);
    expect(await sdkParts(replayed)).toEqual(await sdkParts([...stepOne, ...stepTwo]));
    expect(frames.flatMap((frame) => (frame.event.kind === "chunk" ? [frame.sequence] : []))).toEqual([
      1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17,
    ]);
    expect(replayed[6]).toEqual(stepResetChunk(7));
  });

  it("sends a client that holds part of the cut step the reset and what follows, never the voided rest", async () => {
    const { registry } = await cutRun();
    const frames = await replay(registry, { r1: { sequence: 8, revision: 2 } });
    expect(frames.filter((frame) => frame.event.kind === "chunk").map((frame) => frame.sequence)).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17,
    ]);
    expect(bodies(frames)[0]).toEqual(stepResetChunk(7));
  });
});
