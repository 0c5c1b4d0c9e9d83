import { isStepCount, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentToolUsage, readUsageChunk, usageChunk } from "../protocol/index.js";
import { ManualClock } from "../testing/manual-clock.js";
import { type ScriptedModelCall, scriptedModel, textStep, toolCallsStep } from "../testing/scripted-model.js";
import { budgetedModel, WRAP_UP_INSTRUCTION } from "./budgeted-model.js";
import { budgetExhaustion, RunBudget, remainingBudget } from "./run-budget.js";

const usage = (inputTokens: number, outputTokens: number, runs = 0, cost?: number): AgentToolUsage => ({
  inputTokens,
  outputTokens,
  runs,
  ...(cost !== undefined ? { cost } : {}),
});

describe("budgetExhaustion and remainingBudget", () => {
  it("says which limit is reached, and holds while none is", () => {
    expect(budgetExhaustion(undefined, usage(1e9, 1e9), 0)).toBeNull();
    expect(budgetExhaustion({ maxTokens: 100 }, usage(50, 49), 0)).toBeNull();
    expect(budgetExhaustion({ maxTokens: 100 }, usage(50, 50), 0)).toBe("tokens");
    expect(budgetExhaustion({ maxCost: 1 }, usage(0, 0, 0, 1), 0)).toBe("cost");
    expect(budgetExhaustion({ deadline: 5_000 }, usage(0, 0), 4_999)).toBeNull();
    expect(budgetExhaustion({ deadline: 5_000 }, usage(0, 0), 5_000)).toBe("deadline");
  });

  it("leaves what the usage did not spend, never below zero, other limits as they are", () => {
    expect(remainingBudget({ maxTokens: 100, maxRuns: 5, maxDepth: 3 }, usage(30, 20, 2))).toEqual({
      maxTokens: 50,
      maxRuns: 3,
      maxDepth: 3,
    });
    expect(remainingBudget({ maxTokens: 10, maxCost: 1 }, usage(30, 20, 0, 3))).toEqual({ maxTokens: 0, maxCost: 0 });
    expect(remainingBudget(undefined, usage(1, 1))).toBeUndefined();
  });
});

describe("RunBudget", () => {
  it("allows calls while the budget holds, then one wrap-up call, then none", () => {
    const changes: AgentToolUsage[] = [];
    const exhausted: string[] = [];
    const budget = new RunBudget({
      budget: { maxTokens: 50 },
      clock: new ManualClock(0),
      onChange: (total) => changes.push(total),
      onExhausted: (reason) => exhausted.push(reason),
    });
    expect(budget.beforeModelCall()).toBe("call");
    budget.recordModelCall({ inputTokens: 20, outputTokens: 10 });
    expect(budget.beforeModelCall()).toBe("call");
    budget.recordModelCall({ inputTokens: 20, outputTokens: 10 });
    expect(exhausted).toEqual(["tokens"]);
    expect(budget.beforeModelCall()).toBe("wrap-up");
    budget.recordModelCall({ inputTokens: 5, outputTokens: 5 });
    expect(budget.beforeModelCall()).toBe("refuse");
    expect(budget.beforeModelCall()).toBe("refuse");
    expect(budget.total()).toEqual(usage(45, 25));
    expect(changes.map((total) => total.inputTokens + total.outputTokens)).toEqual([30, 60, 70]);
    expect(exhausted).toEqual(["tokens"]);
  });

  it("counts its children's reported totals (the latest of each) and its dispatches", () => {
    const budget = new RunBudget({ budget: { maxTokens: 100, maxRuns: 10 }, clock: new ManualClock(0) });
    budget.recordDispatch();
    budget.recordDispatch();
    budget.recordChild("a", usage(10, 10, 3));
    budget.recordChild("a", usage(20, 10, 4));
    budget.recordChild("b", usage(5, 5, 0));
    budget.recordModelCall({ inputTokens: 1, outputTokens: 1 });
    expect(budget.total()).toEqual(usage(26, 16, 6));
    expect(budget.remaining()).toEqual({ maxTokens: 58, maxRuns: 4 });
    budget.recordChild("b", usage(50, 20, 0));
    expect(budget.exhaustion()).toBe("tokens");
    expect(budget.remaining()).toEqual({ maxTokens: 0, maxRuns: 0 });
  });

  it("resumed after a restart, goes on from its own logged share and its dispatched runs' rows, counting each once", () => {
    // Before the restart: its own calls spent 30 tokens and it dispatched 2 runs; "a" reported 20, "b" 10.
    const before = new RunBudget({ budget: undefined, clock: new ManualClock(0) });
    before.recordModelCall({ inputTokens: 20, outputTokens: 10 });
    before.recordDispatch();
    before.recordDispatch();
    before.recordChild("a", usage(10, 10, 0));
    before.recordChild("b", usage(5, 5, 1));
    expect(before.own()).toEqual(usage(20, 10, 2));
    expect(before.total()).toEqual(usage(35, 25, 3));

    const resumed = new RunBudget({ budget: undefined, clock: new ManualClock(0), initial: before.own() });
    // "a" reports again before the rows are read: its newer figure is kept, "b" comes from its row.
    resumed.recordChild("a", usage(15, 10, 0));
    resumed.restore(
      [
        ["a", usage(10, 10, 0)],
        ["b", usage(5, 5, 1)],
      ],
      2,
    );
    expect(resumed.total()).toEqual(usage(40, 25, 3));
    // A dispatch after the restart is counted once, whether or not its row was read.
    resumed.recordDispatch();
    resumed.restore([], 3);
    expect(resumed.total().runs).toBe(4);
  });

  it("runs out at its deadline on the clock, and when an ancestor says so", async () => {
    const clock = new ManualClock(1_000);
    const timed = new RunBudget({ budget: { deadline: 2_000 }, clock });
    expect(timed.beforeModelCall()).toBe("call");
    await clock.advanceBy(1_000);
    expect(timed.beforeModelCall()).toBe("wrap-up");
    const told = new RunBudget({ budget: undefined, clock });
    told.exhaust("tokens");
    expect(told.exhaustion()).toBe("tokens");
    expect(told.beforeModelCall()).toBe("wrap-up");
    expect(told.beforeModelCall()).toBe("refuse");
  });

  it("prices calls with the cost function for maxCost", () => {
    const budget = new RunBudget({
      budget: { maxCost: 1 },
      clock: new ManualClock(0),
      costOf: ({ inputTokens, outputTokens }) => (inputTokens + outputTokens) / 100,
    });
    budget.recordModelCall({ inputTokens: 40, outputTokens: 20 });
    expect(budget.total().cost).toBeCloseTo(0.6);
    expect(budget.exhaustion()).toBeNull();
    budget.recordModelCall({ inputTokens: 30, outputTokens: 10 });
    expect(budget.exhaustion()).toBe("cost");
  });

  it("keeps the tokens by model, its own calls and its children's summed per model, through a usage chunk", () => {
    const budget = new RunBudget({ budget: undefined, clock: new ManualClock(0) });
    budget.recordModelCall({ inputTokens: 10, outputTokens: 5, modelId: "big", provider: "acme" });
    budget.recordModelCall({ inputTokens: 1, outputTokens: 1 });
    budget.recordChild("child", {
      ...usage(7, 3, 0),
      models: [
        { model: "big", provider: "acme", inputTokens: 4, outputTokens: 2 },
        { model: "small", inputTokens: 3, outputTokens: 1 },
      ],
    });
    const total = budget.total();
    expect(total).toMatchObject({ inputTokens: 18, outputTokens: 9 });
    expect(total.models).toEqual([
      { model: "big", provider: "acme", inputTokens: 14, outputTokens: 7 },
      { model: "small", inputTokens: 3, outputTokens: 1 },
    ]);
    // Written in a run's log and read back: the same figures (a malformed entry is dropped).
    const chunk = usageChunk(total) as { data: AgentToolUsage };
    expect(readUsageChunk(chunk)).toEqual(total);
    const malformed = { ...chunk, data: { ...chunk.data, models: [{ model: 3 }, ...(total.models ?? [])] } };
    expect(readUsageChunk(malformed)).toEqual(total);
  });
});

describe("budgetedModel", () => {
  it("records each call's usage, gives one wrap-up call with no tools once the budget is out, and no call after", async () => {
    const prompts: ScriptedModelCall[] = [];
    const step = toolCallsStep("work", [["w", {}]]);
    const model = scriptedModel(
      Array.from({ length: 6 }, (_, index) => (call: ScriptedModelCall) => {
        prompts.push(call);
        // A call told to wrap up answers in text; any other keeps calling the tool.
        return call.toolChoice?.type === "none" ? textStep(() => `wrapped up after ${index}`)(call) : step(call);
      }),
    );
    // Each scripted call spends nothing: count calls by usage recorded through the budget instead.
    const budget = new RunBudget({ budget: { maxTokens: 2 }, clock: new ManualClock(0) });
    const spend = () => budget.recordModelCall({ inputTokens: 1, outputTokens: 0 });
    const tools = {
      work: tool({ inputSchema: z.object({}), execute: async () => "worked" }),
    };
    const result = streamText({
      model: budgetedModel(model, budget),
      prompt: "work until told",
      tools,
      stopWhen: isStepCount(6),
      onStepFinish: spend,
    });
    expect(await result.text).toBe("wrapped up after 2");
    expect(prompts).toHaveLength(3);
    const last = prompts.at(-1);
    expect(last?.toolChoice).toEqual({ type: "none" });
    expect(JSON.stringify(last?.prompt.at(-1))).toContain(WRAP_UP_INSTRUCTION);
    expect(budget.beforeModelCall()).toBe("refuse");
  });

  it("records each call's model and provider", async () => {
    const budget = new RunBudget({ budget: undefined, clock: new ManualClock(0) });
    const model = scriptedModel([textStep(() => "hello")]);
    const result = streamText({ model: budgetedModel(model, budget), prompt: "say hello" });
    await result.text;
    expect(budget.total().models).toEqual([
      expect.objectContaining({ model: model.modelId, provider: model.provider }),
    ]);
  });

  it("starts no call once the run is aborted", async () => {
    const calls: number[] = [];
    const model = scriptedModel([
      (call) => {
        calls.push(1);
        return textStep(() => "never")(call);
      },
    ]);
    const controller = new AbortController();
    controller.abort("Stopped by the user");
    const budget = new RunBudget({ budget: undefined, clock: new ManualClock(0) });
    // The abort is the error this test expects: captured here (the AI SDK's default onError would print it).
    const errors: unknown[] = [];
    const result = streamText({
      model: budgetedModel(model, budget, { abortSignal: controller.signal }),
      prompt: "hi",
      onError: ({ error }) => void errors.push(error),
    });
    await expect(result.text).rejects.toMatchObject({ name: "AI_NoOutputGeneratedError" });
    expect(errors).toEqual([expect.objectContaining({ name: "AbortError", message: "Stopped by the user" })]);
    expect(calls).toEqual([]);
  });
});
