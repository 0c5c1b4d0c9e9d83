// Tree budgets (issue 25) in-process: a budget set at the top is inherited (never widened) by every run below it;
// usage is summed up the tree; when it runs out, every running run gets one wrap-up step and ends interrupted
// (budget-exceeded) with what it had; a dispatch the budget does not allow is refused with a clear failure.
import { isStepCount, streamText, tool, toUIMessageStream, type UIMessageChunk } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "./agent-tool.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import type { Clock } from "./ports/clock.js";
import { delay } from "./ports/clock.js";
import {
  type AgentToolBudget,
  type AgentToolTree,
  type AgentToolUsage,
  positionOf,
  readUsageChunk,
} from "./protocol/index.js";
import type { AgentToolRegistry } from "./run-registry.js";
import { inMemoryRegistry } from "./testing/in-memory-registry.js";
import { ManualClock } from "./testing/manual-clock.js";
import {
  type ScriptedModelCall,
  type ScriptedModelPart,
  scriptedModel,
  textStep,
  toolCallsStep,
  withUsage,
} from "./testing/scripted-model.js";

/** A step that calls `toolName` once per id, spending 10 + 10 tokens; told to wrap up, it answers `wrapUp` instead. */
function step(toolName: string, calls: Array<[string, unknown]>, wrapUp: string) {
  const answer = withUsage(
    textStep(() => wrapUp),
    10,
    10,
  );
  const callTools = withUsage(toolCallsStep(toolName, calls), 10, 10);
  return (call: ScriptedModelCall): ScriptedModelPart[] =>
    call.toolChoice?.type === "none" ? answer(call) : callTools(call);
}

/** A scripted model whose every call takes 100 ms of `clock` time before it streams (a model at work). */
function pacedModel(clock: Clock, steps: Array<(call: ScriptedModelCall) => ScriptedModelPart[]>) {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async (call) => {
      const next = steps[index];
      index += 1;
      if (!next) throw new Error(`no step ${index}`);
      await delay(clock, 100);
      return { stream: convertArrayToReadableStream(next(call)) };
    },
  });
}

/** A leaf thinking in steps (20 tokens each, 100 ms each) until its budget tells it to wrap up. */
function leaf(
  clock: Clock,
  seen: Array<{ runId: string; tree: AgentToolTree | null; wrappedUp: boolean }>,
): AgentToolChildDefinition {
  return {
    agentType: "Leaf",
    turn(context) {
      const entry = { runId: context.runId, tree: context.tree, wrappedUp: false };
      seen.push(entry);
      const think = tool({ inputSchema: z.object({}), execute: async () => "thought" });
      const steps = Array.from({ length: 20 }, (_, index) => {
        const next = step("think", [[`think-${index}`, {}]], "leaf: cut short by the budget");
        return (call: ScriptedModelCall) => {
          if (call.toolChoice?.type === "none") entry.wrappedUp = true;
          return next(call);
        };
      });
      const result = streamText({
        model: context.model(pacedModel(clock, steps)),
        prompt: "think",
        tools: { think },
        stopWhen: isStepCount(20),
        abortSignal: context.abortSignal,
      });
      return toUIMessageStream({ stream: result.stream });
    },
  };
}

/** A coordinator: one step dispatching `leaves` leaves (through its own registry), then a report. */
function coordinator(options: { clock: Clock; leaves: number; seen: Parameters<typeof leaf>[1] }) {
  const levels = new Map<string, AgentToolRegistry>();
  const definition: AgentToolChildDefinition = {
    agentType: "Coordinator",
    turn(context) {
      const tree = context.tree ?? { rootId: context.runId, ancestors: [] };
      const self = { agentType: "Coordinator", runId: context.runId };
      const { registry } = inMemoryRegistry([leaf(options.clock, options.seen)], options.clock, {
        // What it dispatches lives within what is left of its own budget.
        position: () => {
          const budget = context.budget.remaining();
          return { ...positionOf(tree, self), ...(budget !== undefined ? { budget } : {}) };
        },
        onDispatch: () => context.budget.recordDispatch(),
        hooks: { onUsage: (run, usage) => context.budget.recordChild(run.runId, usage) },
      });
      levels.set(context.runId, registry);
      const calls: Array<[string, unknown]> = Array.from({ length: options.leaves }, (_, index) => [
        `leaf-${index}`,
        {},
      ]);
      const tools = { work: agentTool(registry, "Leaf", { description: "work", inputSchema: z.object({}) }) };
      const result = streamText({
        model: context.model(
          scriptedModel([step("work", calls, "coordinator: cut short"), step("work", [], "coordinator: done")]),
        ),
        prompt: "coordinate",
        tools,
        stopWhen: isStepCount(3),
        abortSignal: context.abortSignal,
      });
      return toUIMessageStream({ stream: result.stream, tools });
    },
    onBudgetExhausted(runId, reason) {
      void levels.get(runId)?.wrapUpDispatchedBy({ runId }, reason);
    },
  };
  return { definition, levels };
}

function setUp(budget: AgentToolBudget, leaves = 3) {
  const clock = new ManualClock(1_000);
  const seen: Parameters<typeof leaf>[1] = [];
  const middle = coordinator({ clock, leaves, seen });
  const usages: AgentToolUsage[] = [];
  const top = inMemoryRegistry([middle.definition], clock, {
    position: () => ({ rootId: "turn:t1", path: [], budget }),
    hooks: { onUsage: (_run, usage) => void usages.push(usage) },
  });
  return { top, middle, seen, usages, clock };
}

/** Run `work` to its end, moving the clock on 100 ms at a time (the models' steps take clock time). */
async function driven<TResult>(clock: ManualClock, work: Promise<TResult>): Promise<TResult> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  for (let step = 0; step < 1_000 && !done; step += 1) await clock.advanceBy(100);
  return finished;
}

const widens = (child: AgentToolBudget | undefined, parent: AgentToolBudget | undefined) =>
  Object.entries(parent ?? {}).some(([field, limit]) => {
    const value = child?.[field as keyof AgentToolBudget];
    return value === undefined || value > limit;
  });

describe("a tree's budget", () => {
  it("runs out for the whole tree: every running run wraps up once and ends interrupted with what it had", async () => {
    const { top, middle, seen, usages, clock } = setUp({ maxTokens: 200 });
    const result = await driven(clock, top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" }));
    // The parent's result carries what the run gave in its wrap-up step.
    expect(result).toMatchObject({
      ok: false,
      status: "interrupted",
      reason: "budget-exceeded",
      childStillRunning: false,
      partial: { summary: "coordinator: done" },
    });

    // Every leaf was cut short: it had its wrap-up step (no tool) and gave what it had.
    const level = middle.levels.get("c1");
    expect(seen).toHaveLength(3);
    for (const { runId } of seen) {
      expect(await level?.waitForAgentToolRun(runId)).toMatchObject({
        ok: false,
        status: "interrupted",
        reason: "budget-exceeded",
        partial: { summary: "leaf: cut short by the budget" },
      });
    }
    expect(seen.every((entry) => entry.wrappedUp)).toBe(true);

    // The top heard the subtree's usage summed up: past the limit by two steps per run live when it ran out at most
    // (the step under way, and the wrap-up).
    const total = usages.at(-1);
    const tokens = (total?.inputTokens ?? 0) + (total?.outputTokens ?? 0);
    expect(tokens).toBeGreaterThanOrEqual(200);
    expect(tokens).toBeLessThanOrEqual(200 + 2 * 4 * 20);
    expect(total?.runs).toBe(3);
    // Never widened on the way down.
    for (const { tree } of seen) expect(widens(tree?.budget, { maxTokens: 200 })).toBe(false);
  });

  it("passes its limit by two steps per run live when it ran out at most: the steps under way, then the wrap-ups", async () => {
    // Eight leaves step in parallel (20 tokens a step); at 210 tokens their steps are under way when the budget runs
    // out: each finishes and counts, then every run (the leaves and the coordinator) has its wrap-up step.
    const { top, seen, usages, clock } = setUp({ maxTokens: 210 }, 8);
    const result = await driven(clock, top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" }));
    expect(result).toMatchObject({ ok: false, status: "interrupted", reason: "budget-exceeded" });
    expect(seen).toHaveLength(8);
    expect(seen.every((entry) => entry.wrappedUp)).toBe(true);
    const total = usages.at(-1);
    const tokens = (total?.inputTokens ?? 0) + (total?.outputTokens ?? 0);
    expect(tokens).toBeLessThanOrEqual(210 + 2 * 9 * 20);
  });

  it("refuses a dispatch the budget does not allow (too deep, no run left), with a failure the model can read", async () => {
    const deep = setUp({ maxDepth: 1 });
    const refusedDeep = await driven(
      deep.clock,
      deep.top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" }),
    );
    expect(deep.seen).toEqual([]);
    expect(refusedDeep).toMatchObject({ ok: true });
    const rows = await deep.middle.levels.get("c1")?.listAgentToolRuns();
    expect(rows).toEqual([]);

    const few = setUp({ maxRuns: 2 });
    await driven(few.clock, few.top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" }));
    // The coordinator is one run: one leaf is left; its other two calls were refused (no run recorded for them).
    expect(few.seen).toHaveLength(1);
    expect(await few.middle.levels.get("c1")?.listAgentToolRuns()).toHaveLength(1);
  });

  it("refuses a dispatch over budget with a typed reason: rejection budget-exceeded, no run, nothing started", async () => {
    for (const budget of [{ maxRuns: 0 }, { maxTokens: 0 }, { maxDepth: 0 }, { deadline: 1_000 }]) {
      const { top, seen } = setUp(budget);
      const result = await top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" });
      expect(result).toMatchObject({ ok: false, status: "error", retryable: false, rejection: "budget-exceeded" });
      expect(await top.registry.listAgentToolRuns()).toEqual([]);
      expect(seen).toEqual([]);
    }
  });

  it("reports each run's usage in its log, as one figure the latest of which wins", async () => {
    const { top, clock } = setUp({ maxTokens: 10_000 }, 1);
    await driven(clock, top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" }));
    const usageChunks = top.frames
      .filter((frame) => frame.event.kind === "chunk")
      .map((frame) => readUsageChunk((frame.event as { body: UIMessageChunk }).body))
      .filter((usage) => usage !== null);
    expect(usageChunks.length).toBeGreaterThan(1);
    const last = usageChunks.at(-1);
    // The coordinator's two steps and its leaf's 20 steps, and one run below it; all of one model.
    expect(last).toEqual({
      inputTokens: 220,
      outputTokens: 220,
      runs: 1,
      models: [{ model: "mock-model-id", provider: "mock-provider", inputTokens: 220, outputTokens: 220 }],
    });
  });
});
