// A turn cut off mid-step (issue 17, point 2): the resumed turn redoes the cut step, and what any reader rebuilds
// from the run's log — a fresh tail, `getMessages`, the AI SDK's `readUIMessageStream` — equals an uninterrupted run.
import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { AgentToolChildRunner } from "./child-runner.js";
import {
  AGENT_STEP_RESET_PART,
  type AgentToolLogEntry,
  type AgentToolTailItem,
  readStepResetChunk,
  tailItemEntries,
} from "./protocol/index.js";
import { sdkParts as sdkAssembly } from "./sdk-assembly.test-utils.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { flushMicrotasks, ManualClock } from "./testing/manual-clock.js";
import { ScriptedChild } from "./testing/scripted-child.js";

/** The parts the AI SDK's own assembly makes of `chunks`, which it must take without an error. */
async function sdkParts(chunks: readonly UIMessageChunk[]): Promise<UIMessage["parts"]> {
  const errors: unknown[] = [];
  const parts = await sdkAssembly(chunks, (error) => errors.push(error));
  expect(errors).toEqual([]);
  return parts;
}

async function collect(stream: ReadableStream<AgentToolTailItem>): Promise<AgentToolTailItem[]> {
  const items: AgentToolTailItem[] = [];
  for await (const item of stream as unknown as AsyncIterable<AgentToolTailItem>) items.push(item);
  return items;
}

const text = (id: string, ...deltas: string[]): UIMessageChunk[] => [
  { type: "text-start", id },
  ...deltas.map((delta): UIMessageChunk => ({ type: "text-delta", id, delta })),
  { type: "text-end", id },
];
const textOf = (parts: UIMessage["parts"]) => parts.flatMap((part) => (part.type === "text" ? [part.text] : []));

/**
 * One child over one store, and the hosts it runs in: `kill()` drops the current host (its turn, stalled, is lost)
 * and the next call wakes a new one over the same storage, which resumes the run.
 */
function childWorld() {
  const store = new InMemoryRunStore();
  const clock = new ManualClock(1_000);
  const child = new ScriptedChild("Researcher");
  let runner = new AgentToolChildRunner({ definition: child.definition, store, clock });
  return {
    store,
    child,
    get runner() {
      return runner;
    },
    kill() {
      runner = new AgentToolChildRunner({ definition: child.definition, store, clock });
    },
    /** Emit chunks in the current turn and let the runner write them. */
    async emit(runId: string, ...chunks: UIMessageChunk[]) {
      const run = child.run(runId);
      await run.context;
      run.emit(...chunks);
      await flushMicrotasks(100);
      await clock.advanceBy(0);
    },
  };
}

/** Every sequence up to the last is delivered, or voided by a delivered reset; sequences only go up. */
function expectGapFree(entries: readonly AgentToolLogEntry[]) {
  const sequences = entries.map((entry) => entry.sequence);
  expect(sequences).toEqual([...sequences].sort((left, right) => left - right));
  const covered = new Set(sequences);
  for (const entry of entries) {
    const reset = readStepResetChunk(entry.body);
    if (reset) for (let sequence = reset.fromSequence; sequence < entry.sequence; sequence++) covered.add(sequence);
  }
  const last = sequences.at(-1) ?? 0;
  expect([...covered].sort((left, right) => left - right)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
}

const STEP_ONE: UIMessageChunk[] = [
  { type: "start" },
  { type: "start-step" },
  ...text("a", "Looking up owls."),
  { type: "finish-step" },
];
const STEP_TWO: UIMessageChunk[] = [
  { type: "start-step" },
  ...text("b", "Owls ", "are ", "nocturnal."),
  { type: "finish-step" },
  { type: "finish" },
];

describe("a turn resumed after a cut in the middle of a step", () => {
  it("gives a fresh reader the uninterrupted run: the cut step's partial text is gone", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    await world.emit(
      "r1",
      ...STEP_ONE,
      { type: "start-step" },
      { type: "text-start", id: "b" },
      {
        type: "text-delta",
        id: "b",
        delta: "Owls ",
      },
    );
    world.kill();
    await world.runner.inspect("r1"); // the parent's inspect wakes the new host: the turn resumes
    const resumed = collect(world.runner.tail("r1", { afterSequence: 0 }));
    await world.emit("r1", { type: "start" }, ...STEP_TWO);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await resumed);

    const uninterrupted = await sdkParts([...STEP_ONE, ...STEP_TWO]);
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(uninterrupted);
    expect(textOf(uninterrupted)).toEqual(["Looking up owls.", "Owls are nocturnal."]);
    expectGapFree(entries);
    const messages = await world.runner.getMessages("r1");
    expect(messages[1]?.parts).toEqual(uninterrupted);
    expect(await world.runner.inspect("r1")).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
  });

  it("tells a reader that holds part of the cut step to drop it: a durable reset, from the cut step's first sequence", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    await world.emit("r1", ...STEP_ONE, { type: "start-step" }, ...text("b", "Owls ").slice(0, 2));
    // A reader (the parent) holds everything up to here: the cut step is sequences 7 to 9.
    expect((await world.store.readLog("r1")).map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    world.kill();
    await world.runner.inspect("r1");
    const tail = collect(world.runner.tail("r1", { afterSequence: 9 }));
    await world.emit("r1", { type: "start" }, ...STEP_TWO);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await tail);
    expect(entries[0]).toMatchObject({
      sequence: 10,
      body: { type: AGENT_STEP_RESET_PART, data: { fromSequence: 7 }, transient: true },
    });
    expect(entries.map((entry) => entry.sequence)).toEqual(entries.map((_, index) => 10 + index));
  });

  it("voids the cut steps of two successive cuts: the text appears once", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    await world.emit("r1", ...STEP_ONE, { type: "start-step" }, ...text("b", "Owls ").slice(0, 2));
    world.kill();
    await world.runner.inspect("r1"); // wakes: the second turn
    await world.emit("r1", { type: "start" }, { type: "start-step" }, ...text("b", "Owls ", "are ").slice(0, 3));
    world.kill();
    await world.runner.inspect("r1"); // the third turn
    await world.emit("r1", { type: "start" }, ...STEP_TWO);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    const uninterrupted = await sdkParts([...STEP_ONE, ...STEP_TWO]);
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(uninterrupted);
    expect(textOf((await world.runner.getMessages("r1"))[1]?.parts ?? [])).toEqual([
      "Looking up owls.",
      "Owls are nocturnal.",
    ]);
    expectGapFree(entries);
    expect(world.child.turns).toEqual(["r1", "r1", "r1"]);
    expect(await world.runner.inspect("r1")).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
  });

  it("voids a cut before any text (the step had only started), and writes no reset when nothing was logged", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    await world.emit("r1", { type: "start" }, { type: "start-step" });
    world.kill();
    await world.runner.inspect("r1");
    await world.emit("r1", { type: "start" }, { type: "start-step" }, ...text("a", "Hi."), { type: "finish-step" });
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(
      await sdkParts([{ type: "start" }, { type: "start-step" }, ...text("a", "Hi."), { type: "finish-step" }]),
    );
    expectGapFree(entries);

    const empty = childWorld();
    await empty.runner.start("r2", "owls");
    empty.kill();
    await empty.runner.inspect("r2");
    await empty.emit("r2", ...text("a", "Hi."));
    empty.child.run("r2").complete();
    const log = await empty.store.readLog("r2");
    expect(log.map((entry) => entry.body.type)).toEqual(["text-start", "text-delta", "text-end"]);
  });

  it("voids a cut reasoning step and a cut tool call, which the resumed turn does again", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    await world.emit(
      "r1",
      { type: "start" },
      { type: "start-step" },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "Owls hunt" },
    );
    world.kill();
    await world.runner.inspect("r1");
    const thinking: UIMessageChunk[] = [
      { type: "start-step" },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "Owls hunt at night." },
      { type: "reasoning-end", id: "r" },
      { type: "tool-input-start", toolCallId: "c2", toolName: "lookup" },
      { type: "tool-input-delta", toolCallId: "c2", inputTextDelta: '{"q":"owls"}' },
      { type: "tool-input-available", toolCallId: "c2", toolName: "lookup", input: { q: "owls" } },
      { type: "tool-output-available", toolCallId: "c2", output: { fact: "nocturnal" } },
      { type: "finish-step" },
    ];
    await world.emit(
      "r1",
      { type: "start" },
      ...thinking,
      { type: "start-step" },
      { type: "tool-input-start", toolCallId: "c3", toolName: "lookup" },
      { type: "tool-input-delta", toolCallId: "c3", inputTextDelta: '{"q":' },
    );
    world.kill();
    await world.runner.inspect("r1");
    await world.emit("r1", { type: "start" }, ...STEP_TWO);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    const uninterrupted = await sdkParts([{ type: "start" }, ...thinking, ...STEP_TWO]);
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(uninterrupted);
    expect((await world.runner.getMessages("r1"))[1]?.parts).toEqual(uninterrupted);
    expectGapFree(entries);
  });

  it("keeps a milestone reached in the cut step: listed once, still in the log", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    const context = await world.child.run("r1").context;
    await world.emit("r1", ...STEP_ONE, { type: "start-step" }, ...text("b", "Owls ").slice(0, 2));
    context.appendChunk({ type: "data-agent-milestone", data: { milestone: "found" } } as UIMessageChunk, {
      name: "found",
    });
    await world.emit("r1", { type: "text-delta", id: "b", delta: "are" });
    world.kill();
    await world.runner.inspect("r1");
    const resumedContext = await world.child.run("r1").context;
    expect(resumedContext.milestones.map((milestone) => milestone.name)).toEqual(["found"]);
    await world.emit("r1", { type: "start" }, ...STEP_TWO);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    expect(entries.filter((entry) => entry.body.type === "data-agent-milestone")).toHaveLength(1);
    expect(textOf(await sdkParts(entries.map((entry) => entry.body)))).toEqual([
      "Looking up owls.",
      "Owls are nocturnal.",
    ]);
    expect((await world.runner.inspect("r1"))?.milestones.map((milestone) => milestone.name)).toEqual(["found"]);
    expectGapFree(entries);
  });
});
