// A turn cut off mid-step (issue 17, point 2): the resumed turn redoes the cut step (or, when the model had decided
// tool calls in it, keeps it and runs only the calls without a result), and what any reader rebuilds from the run's
// log — a fresh tail, `getMessages`, the AI SDK's `readUIMessageStream` — equals an uninterrupted run.
import { type ToolSet, tool, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
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
import { noToolText } from "./turn/decided-call.js";

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
function childWorld(options: { tools?: ToolSet } = {}) {
  const store = new InMemoryRunStore();
  const clock = new ManualClock(1_000);
  const child = new ScriptedChild("Researcher");
  const { tools } = options;
  const definition = tools ? { ...child.definition, getTools: () => tools } : child.definition;
  let runner = new AgentToolChildRunner({ definition, store, clock });
  return {
    store,
    child,
    get runner() {
      return runner;
    },
    kill() {
      runner = new AgentToolChildRunner({ definition, store, clock });
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

describe("a cut step in which the model had decided tool calls", () => {
  const decided: UIMessageChunk[] = [
    { type: "start" },
    { type: "start-step" },
    ...text("a", "Let me look."),
    { type: "tool-input-start", toolCallId: "c1", toolName: "lookup" },
    { type: "tool-input-available", toolCallId: "c1", toolName: "lookup", input: { q: "owls" } },
  ];
  const result: UIMessageChunk = { type: "tool-output-available", toolCallId: "c1", output: { fact: "nocturnal" } };
  const answer: UIMessageChunk[] = [
    { type: "start-step" },
    ...text("b", "Owls are nocturnal."),
    { type: "finish-step" },
    { type: "finish" },
  ];

  /** A `lookup` tool doing `execute` (given the call's id). */
  const lookupTools = (execute: (toolCallId: string) => Promise<{ fact: string }>) => ({
    lookup: tool({
      inputSchema: z.object({ q: z.string() }),
      execute: (_input, { toolCallId }) => execute(toolCallId),
    }),
  });

  /** A child (with `tools`, if given) whose run is cut right after its model decided `lookup`, then woken. */
  async function cutAfterDecision(tools?: ToolSet) {
    const world = childWorld(tools ? { tools } : {});
    await world.runner.start("r1", "owls");
    await world.emit("r1", ...decided);
    world.kill();
    await world.runner.inspect("r1");
    return world;
  }

  /** End the resumed turn: a fresh reader then sees the run as if the cut never happened. */
  async function expectUninterrupted(world: ReturnType<typeof childWorld>) {
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(
      await sdkParts([...decided, result, { type: "finish-step" }, ...answer]),
    );
    expectGapFree(entries);
  }

  /** Let the resumed turn start (its `turns`-th): microtasks only, a bounded number of them. */
  async function untilTurns(world: ReturnType<typeof childWorld>, turns: number) {
    for (let round = 0; round < 50 && world.child.turns.length < turns; round += 1) await flushMicrotasks(100);
    expect(world.child.turns).toEqual(Array.from({ length: turns }, () => "r1"));
  }

  /** The resumed turn's context, once it has started (a second turn of the run). */
  async function resumedContext(world: ReturnType<typeof childWorld>) {
    await untilTurns(world, 2);
    return world.child.run("r1").context;
  }

  /** The tool part of the assistant message a resumed turn is given, if any. */
  const toolPartOf = (messages: UIMessage[]) =>
    messages[1]?.parts.find((part) => part.type === "tool-lookup") as
      | { toolCallId: string; state: string; output?: unknown }
      | undefined;

  it("keeps a call's result: the resumed turn goes on after the step, which no reader sees twice", async () => {
    const world = childWorld();
    await world.runner.start("r1", "owls");
    // Cut after the tool's result, before the step's `finish-step`, while more text streamed.
    await world.emit(
      "r1",
      ...decided,
      result,
      { type: "text-start", id: "x" },
      { type: "text-delta", id: "x", delta: "Hm" },
    );
    world.kill();
    await world.runner.inspect("r1");
    const context = await resumedContext(world);
    // The model is given its step, result included: it decides no new call (the tool is not run again).
    expect(toolPartOf(context.messages)).toMatchObject({ toolCallId: "c1", state: "output-available" });
    expect(context.messages[1]?.parts.filter((part) => part.type === "text").map((part) => part.text)).toEqual([
      "Let me look.",
    ]);
    await world.emit("r1", { type: "start" }, ...answer);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    const uninterrupted = await sdkParts([...decided, result, { type: "finish-step" }, ...answer]);
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(uninterrupted);
    expect((await world.runner.getMessages("r1"))[1]?.parts).toEqual(uninterrupted);
    expect(await world.runner.inspect("r1")).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
    expectGapFree(entries);
  });

  it("runs a call without a result again with the child's tools and its own toolCallId, once", async () => {
    const calls: string[] = [];
    const world = await cutAfterDecision(
      lookupTools(async (toolCallId) => {
        calls.push(toolCallId);
        return { fact: "nocturnal" };
      }),
    );
    const context = await resumedContext(world);
    expect(calls).toEqual(["c1"]);
    expect(toolPartOf(context.messages)).toMatchObject({ state: "output-available", output: { fact: "nocturnal" } });
    await world.emit("r1", { type: "start" }, ...answer);
    await expectUninterrupted(world);
  });

  it("records a pending call's failure as its result, and the model goes on with it", async () => {
    const world = await cutAfterDecision(
      lookupTools(async () => {
        throw new Error("lookup is down");
      }),
    );
    const context = await resumedContext(world);
    expect(toolPartOf(context.messages)).toMatchObject({ state: "output-error" });
  });

  it("without the child's tools, keeps the step and gives its decided call an error result saying so", async () => {
    const world = await cutAfterDecision();
    const context = await resumedContext(world);
    // The model decided the call: it is not voided (nor decided again), and the model is told it could not run.
    expect(toolPartOf(context.messages)).toMatchObject({
      toolCallId: "c1",
      state: "output-error",
      errorText: noToolText("lookup"),
    });
    await world.emit("r1", { type: "start" }, ...answer);
    world.child.run("r1").complete();
    const entries = tailItemEntries(await collect(world.runner.tail("r1", { afterSequence: 0 })));
    const failed: UIMessageChunk = { type: "tool-output-error", toolCallId: "c1", errorText: noToolText("lookup") };
    expect(await sdkParts(entries.map((entry) => entry.body))).toEqual(
      await sdkParts([...decided, failed, { type: "finish-step" }, ...answer]),
    );
    expectGapFree(entries);
  });

  it("keeps the step through a second cut while its pending call runs again", async () => {
    const calls: string[] = [];
    const world = await cutAfterDecision(
      lookupTools(async (toolCallId) => {
        calls.push(toolCallId);
        // The first run again hangs: the host is cut while it runs (and its turn is gone with it).
        if (calls.length === 1) await new Promise<void>(() => {});
        return { fact: "nocturnal" };
      }),
    );
    await flushMicrotasks(200);
    // The resumed turn runs the pending call before its model: cut while it runs, it never reached the model.
    expect(calls).toEqual(["c1"]);
    expect(world.child.turns).toEqual(["r1"]);
    world.kill();
    await world.runner.inspect("r1");
    await untilTurns(world, 2);
    expect(calls).toEqual(["c1", "c1"]);
    const context = await world.child.run("r1").context;
    expect(toolPartOf(context.messages)).toMatchObject({ toolCallId: "c1", state: "output-available" });
    await world.emit("r1", { type: "start" }, ...answer);
    await expectUninterrupted(world);
  });
});
