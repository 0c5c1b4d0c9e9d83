import { isStepCount, streamText, toUIMessageStream, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "../agent-tool/agent-tool.js";
import type { AgentToolChildDefinition } from "../child/child-definition.js";
import type { Clock } from "../ports/clock.js";
import type { AgentToolEventFrame } from "../protocol/index.js";
import { deferred } from "../testing/deferred.js";
import { inMemoryRegistry } from "../testing/in-memory-registry.js";
import type { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import type { InProcessChildTransport } from "../testing/in-process-child-transport.js";
import { ManualClock } from "../testing/manual-clock.js";
import {
  type ScriptedModelCall,
  type ScriptedModelStep,
  scriptedModel,
  textStep,
  toolCallsStep,
  toolResultsSeen,
} from "../testing/scripted-model.js";
import type { AgentToolRegistry } from "./run-registry.js";

// Three levels, all in-process: a grandparent (the test's top registry) → a "Coordinator" child, whose turn owns its
// own registry (own store, own transport, own broadcast list) → "Leaf" grandchildren.

const topicSchema = z.object({ topic: z.string() });
const topicsSchema = z.object({ topics: z.array(z.string()) });

/** One parent level: a registry with its own store, transport and broadcast list. */
type Level = {
  registry: AgentToolRegistry;
  store: InMemoryRunStore;
  transport: InProcessChildTransport;
  frames: AgentToolEventFrame[];
};

function makeLevel(children: AgentToolChildDefinition[], clock: Clock, maxConcurrentAgentTools?: number): Level {
  return inMemoryRegistry(children, clock, maxConcurrentAgentTools !== undefined ? { maxConcurrentAgentTools } : {});
}

// --- the mock model ---------------------------------------------------------------------------------------------

/** The tool results the model saw, as text: a summary as is, a failure as `failed (<status>: <error>)`. */
function resultsSeen(call: ScriptedModelCall, toolCallIds: string[]): string[] {
  const outputs = toolResultsSeen(call);
  return toolCallIds.map((toolCallId) => {
    const output = outputs.get(toolCallId) as { type: string; value: unknown } | undefined;
    if (output?.type === "text") return String(output.value);
    const value = output?.value as { status?: string; error?: string } | undefined;
    return `failed (${value?.status}: ${value?.error})`;
  });
}

/** A step writing `${prefix}: ${the tool results, joined}`. */
function reportStep(prefix: string, toolCallIds: string[]): ScriptedModelStep {
  return textStep((call) => `${prefix}: ${resultsSeen(call, toolCallIds).join("; ")}`);
}

// --- the children ---------------------------------------------------------------------------------------------

const LEAF_SCRATCH = "leaf scratchpad";

/**
 * A grandchild: a first step of scratch text (only ever in its own log), then a step whose text is its summary.
 * With `gate`, it holds after its first chunk until the gate opens (or the run is cancelled).
 */
function leafChild(gate?: Promise<void>): AgentToolChildDefinition & { turns: string[] } {
  const turns: string[] = [];
  return {
    agentType: "Leaf",
    turns,
    turn(context) {
      turns.push(context.runId);
      const { topic } = context.input as { topic: string };
      const aborted = new Promise<void>((resolve) => context.abortSignal.addEventListener("abort", () => resolve()));
      async function* chunks(): AsyncGenerator<UIMessageChunk> {
        yield { type: "start" };
        if (gate !== undefined) await Promise.race([gate, aborted]);
        yield { type: "start-step" };
        yield { type: "text-start", id: "scratch" };
        yield { type: "text-delta", id: "scratch", delta: `${LEAF_SCRATCH} about ${topic}` };
        yield { type: "text-end", id: "scratch" };
        yield { type: "finish-step" };
        yield { type: "start-step" };
        yield { type: "text-start", id: "answer" };
        yield { type: "text-delta", id: "answer", delta: `leaf found ${topic}` };
        yield { type: "text-end", id: "answer" };
        yield { type: "finish-step" };
        yield { type: "finish" };
      }
      return chunks();
    },
  };
}

/**
 * The middle level: each run's turn builds its own registry (cap `cap`) over its own store and transport, and runs
 * a streamText on a mock model whose first step calls the `findFacts` agent tool once per topic (toolCallIds
 * `leaf-1`, `leaf-2`, …) and whose second step reports the results.
 */
function coordinatorChild(options: { cap?: number; leafGate?: Promise<void> } = {}) {
  const levels = new Map<string, Level & { leaf: ReturnType<typeof leafChild> }>();
  const definition: AgentToolChildDefinition = {
    agentType: "Coordinator",
    turn(context) {
      const leaf = leafChild(options.leafGate);
      const level = { ...makeLevel([leaf], context.clock, options.cap), leaf };
      levels.set(context.runId, level);
      const { topics } = topicsSchema.parse(context.input);
      const toolCallIds = topics.map((_, index) => `leaf-${index + 1}`);
      const tools = {
        findFacts: agentTool(level.registry, "Leaf", {
          description: "Find facts on a topic",
          inputSchema: topicSchema,
        }),
      };
      const model = scriptedModel([
        toolCallsStep(
          "findFacts",
          topics.map((topic, index) => [toolCallIds[index] as string, { topic }]),
        ),
        reportStep("Coordinator report", toolCallIds),
      ]);
      const result = streamText({
        model,
        prompt: JSON.stringify(context.input),
        tools,
        stopWhen: isStepCount(3),
        abortSignal: context.abortSignal,
      });
      return toUIMessageStream({ stream: result.stream, tools });
    },
  };
  return { definition, levels };
}

const runIdsIn = (frames: AgentToolEventFrame[]) =>
  new Set(frames.flatMap((frame) => (frame.event.kind === "cleared" ? frame.event.runIds : [frame.event.runId])));

const kinds = (frames: AgentToolEventFrame[]) => frames.map((frame) => frame.event.kind);

describe("nesting: a child that runs agent tools itself", () => {
  it("completes three levels (agentTool + streamText at both), each level's frames staying on its own level", async () => {
    const coordinator = coordinatorChild();
    const top = makeLevel([coordinator.definition], new ManualClock(1_000));
    const tools = {
      coordinate: agentTool(top.registry, "Coordinator", {
        description: "Coordinate research",
        inputSchema: topicsSchema,
      }),
    };
    const model = scriptedModel([
      toolCallsStep("coordinate", [["top-1", { topics: ["cats"] }]]),
      reportStep("Final", ["top-1"]),
    ]);
    const result = streamText({ model, prompt: "Research cats", tools, stopWhen: isStepCount(3) });
    for await (const _part of result.stream) {
      // drain
    }

    // Each level completes with its expected summary.
    expect(await result.text).toBe("Final: Coordinator report: leaf found cats");
    expect(await top.registry.runAgentTool("Coordinator", { input: {}, runId: "agent-tool:top-1" })).toMatchObject({
      ok: true,
      summary: "Coordinator report: leaf found cats",
    });
    const middle = coordinator.levels.get("agent-tool:top-1");
    if (!middle) throw new Error("the coordinator never ran");
    expect(await middle.store.getRun("agent-tool:leaf-1")).toMatchObject({
      status: "completed",
      summary: "leaf found cats",
      parentToolCallId: "leaf-1",
    });
    expect(middle.leaf.turns).toEqual(["agent-tool:leaf-1"]);

    // Stores are per level: the grandparent knows only its child, the middle only its grandchild.
    expect((await top.store.listRuns()).map((run) => run.runId)).toEqual(["agent-tool:top-1"]);
    expect((await middle.store.listRuns()).map((run) => run.runId)).toEqual(["agent-tool:leaf-1"]);
    expect(await top.registry.hasAgentToolRun("Leaf", "agent-tool:leaf-1")).toBe(false);

    // The grandparent's frames: its child's run only; no grandchild runId, no grandchild chunk text.
    expect(runIdsIn(top.frames)).toEqual(new Set(["agent-tool:top-1"]));
    expect(kinds(top.frames)[0]).toBe("started");
    expect(kinds(top.frames).at(-1)).toBe("finished");
    const topWire = JSON.stringify(top.frames);
    expect(topWire).not.toContain("agent-tool:leaf-1");
    expect(topWire).not.toContain(LEAF_SCRATCH);
    // (the middle's own chunks do carry its tool call and the leaf's summary as the tool output)
    expect(top.frames).toContainEqual(
      expect.objectContaining({
        event: expect.objectContaining({
          kind: "chunk",
          body: expect.objectContaining({
            type: "tool-output-available",
            toolCallId: "leaf-1",
            output: "leaf found cats",
          }),
        }),
      }),
    );

    // The middle's frames: the grandchild's run, its chunks (scratch text included) with sequences 1..n.
    expect(runIdsIn(middle.frames)).toEqual(new Set(["agent-tool:leaf-1"]));
    expect(JSON.stringify(middle.frames)).toContain(LEAF_SCRATCH);
    const leafChunks = middle.frames.filter((frame) => frame.event.kind === "chunk");
    expect(leafChunks.map((frame) => frame.sequence)).toEqual(leafChunks.map((_, index) => index + 1));
    expect(middle.frames.at(-1)).toMatchObject({
      parentToolCallId: "leaf-1",
      event: { kind: "finished", runId: "agent-tool:leaf-1", summary: "leaf found cats" },
    });
  });

  it("enforces each level's own maxConcurrentAgentTools", async () => {
    const gate = deferred();
    const coordinator = coordinatorChild({ cap: 1, leafGate: gate.promise });
    const top = makeLevel([coordinator.definition], new ManualClock(1_000), 2);
    const input = { topics: ["a", "b"] };
    const runs = ["m1", "m2", "m3"].map((runId) => top.registry.runAgentTool("Coordinator", { input, runId }));

    // Top (cap 2): two coordinators run at once; the third is refused with the top's own cap.
    const m3 = await runs[2];
    expect(m3).toMatchObject({ ok: false, status: "error", error: "maxConcurrentAgentTools (2) exceeded" });
    expect(top.transport.calls.some((call) => call.ref.runId === "m3")).toBe(false);

    // Each middle (cap 1) runs two grandchildren at once: one is refused with the middle's cap, while its sibling
    // still holds its slot (the leaves wait on the gate).
    const refusedIn = async (runId: string) => {
      const level = coordinator.levels.get(runId);
      if (!level) return [];
      return (await level.store.listRuns({ status: ["error"] })).map((run) => run.error);
    };
    await expect.poll(() => refusedIn("m1")).toEqual(["maxConcurrentAgentTools (1) exceeded"]);
    await expect.poll(() => refusedIn("m2")).toEqual(["maxConcurrentAgentTools (1) exceeded"]);
    expect((await top.registry.getAgentToolRun("m1"))?.status).toBe("running");
    expect((await top.registry.getAgentToolRun("m2"))?.status).toBe("running");
    gate.resolve();

    const [m1, m2] = await Promise.all([runs[0], runs[1]]);
    for (const [runId, result] of [
      ["m1", m1],
      ["m2", m2],
    ] as const) {
      const level = coordinator.levels.get(runId);
      if (!level) throw new Error(`coordinator ${runId} never ran`);
      const rows = await level.store.listRuns();
      expect(rows.map((row) => row.status).sort()).toEqual(["completed", "error"]);
      const done = rows.find((row) => row.status === "completed");
      const refused = rows.find((row) => row.status === "error");
      expect(level.leaf.turns).toEqual([done?.runId]);
      expect(level.transport.calls.some((call) => call.ref.runId === refused?.runId)).toBe(false);
      // The middle's report (its summary) names one leaf's result and the other's refusal, in tool-call order.
      const topic = done?.runId === "agent-tool:leaf-1" ? "a" : "b";
      const parts = [`leaf found ${topic}`, "failed (error: maxConcurrentAgentTools (1) exceeded)"];
      if (topic === "b") parts.reverse();
      expect(result).toMatchObject({
        ok: true,
        status: "completed",
        summary: `Coordinator report: ${parts.join("; ")}`,
      });
      // The middle's broadcast has both grandchildren, the refused one as started → error.
      const refusedFrames = level.frames.filter(
        (frame) => "runId" in frame.event && frame.event.runId === refused?.runId,
      );
      expect(refusedFrames.map((frame) => frame.event.kind)).toEqual(["started", "error"]);
      expect(runIdsIn(level.frames)).toEqual(new Set(["agent-tool:leaf-1", "agent-tool:leaf-2"]));
    }

    // The grandparent's frames carry only its own runs, never a grandchild's run or chunks.
    expect(runIdsIn(top.frames)).toEqual(new Set(["m1", "m2", "m3"]));
    expect(JSON.stringify(top.frames)).not.toContain(LEAF_SCRATCH);
    expect((await top.store.listRuns()).map((run) => [run.runId, run.status])).toEqual([
      ["m1", "completed"],
      ["m2", "completed"],
      ["m3", "error"],
    ]);
  });

  it("does not count a child's own runs against its parent's cap", async () => {
    const gate = deferred();
    const coordinator = coordinatorChild({ leafGate: gate.promise });
    const top = makeLevel([coordinator.definition], new ManualClock(1_000), 1);
    const running = top.registry.runAgentTool("Coordinator", { input: { topics: ["a", "b", "c"] }, runId: "m1" });
    await expect.poll(() => coordinator.levels.get("m1")?.leaf.turns.length ?? 0).toBe(3);
    gate.resolve();
    expect(await running).toMatchObject({
      ok: true,
      summary: "Coordinator report: leaf found a; leaf found b; leaf found c",
    });
  });

  it("cancels down the tree: cancelling the grandparent's run aborts the middle's turn and its grandchildren", async () => {
    const gate = deferred();
    const coordinator = coordinatorChild({ leafGate: gate.promise });
    const top = makeLevel([coordinator.definition], new ManualClock(1_000));
    const running = top.registry.runAgentTool("Coordinator", { input: { topics: ["a"] }, runId: "m1" });
    await expect
      .poll(async () => (await coordinator.levels.get("m1")?.registry.getAgentToolRun("agent-tool:leaf-1"))?.status)
      .toBe("running");
    expect(await top.registry.cancelAgentTool("m1")).toBe(true);
    expect(await running).toMatchObject({ ok: false, status: "aborted" });
    const middle = coordinator.levels.get("m1");
    await expect.poll(async () => (await middle?.store.getRun("agent-tool:leaf-1"))?.status).toBe("aborted");
    expect(middle?.leaf.turns).toEqual(["agent-tool:leaf-1"]);
    gate.resolve();
  });
});
