import { isStepCount, streamText, type TextStreamPart, type ToolExecutionOptions, type ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRunEventHub } from "../events/run-event-hub.js";
import type { AgentToolEventFrame } from "../protocol/index.js";
import type { AgentToolRegistryOptions } from "../registry/registry-options.js";
import { AgentToolRegistry } from "../registry/run-registry.js";
import { inMemoryRegistry } from "../testing/in-memory-registry.js";
import { ManualClock } from "../testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "../testing/scripted-child.js";
import { scriptedModel, textStep, toolCallsStep, toolResultsSeen } from "../testing/scripted-model.js";
import { type AgentToolOutput, agentTool } from "./agent-tool.js";

const topicSchema = z.object({ topic: z.string().min(1) });
const topicOf = (input: unknown) => (input as { topic: string }).topic;

function setup(options: Partial<AgentToolRegistryOptions> = {}) {
  const clock = new ManualClock(50_000);
  const researcher = echoChild("Researcher", { chunks: (input) => textChunks(["Findings on ", topicOf(input)]) });
  const rater = echoChild("Rater", {
    chunks: () => textChunks(["rated"]),
    output: (input) => ({ title: `About ${topicOf(input)}`, score: 7, internalNote: "not in the schema" }),
  });
  const badRater = echoChild("BadRater", { chunks: () => textChunks(["rated"]), output: () => ({ title: 42 }) });
  const failing = echoChild("Failing", {
    chunks: () => [{ type: "start" }, { type: "error", errorText: "model overloaded" }],
  });
  const scripted = new ScriptedChild("Scripted");
  const world = inMemoryRegistry([researcher, rater, badRater, failing, scripted.definition], clock, options);
  return { ...world, clock, researcher, scripted };
}

type ExecutableAgentTool = {
  execute?: (input: never, options: ToolExecutionOptions<Record<string, never>>) => unknown;
};

/** Call a tool's `execute` the way the AI SDK does. */
async function execute<TOutput = never>(
  agentToolValue: ExecutableAgentTool,
  input: unknown,
  toolCallId: string,
  abortSignal?: AbortSignal,
): Promise<AgentToolOutput<TOutput>> {
  const run = agentToolValue.execute;
  if (!run) throw new Error("agentTool returned a tool without execute");
  const options: ToolExecutionOptions<Record<string, never>> = {
    toolCallId,
    messages: [],
    context: {},
    ...(abortSignal ? { abortSignal } : {}),
  };
  return (await run(input as never, options)) as AgentToolOutput<TOutput>;
}

const settle = async () => {
  for (let index = 0; index < 50; index += 1) await Promise.resolve();
};

const kinds = (frames: AgentToolEventFrame[]) => frames.map((frame) => frame.event.kind);

describe("agentTool: execute", () => {
  it('uses runId "agent-tool:<toolCallId>" and binds the run to the tool call', async () => {
    const { registry, store, frames, transport } = setup();
    const research = agentTool(registry, "Researcher", { description: "Research a topic", inputSchema: topicSchema });
    await execute(research, { topic: "cats" }, "call-1");
    const row = await store.getRun("agent-tool:call-1");
    expect(row).toMatchObject({ runId: "agent-tool:call-1", agentType: "Researcher", parentToolCallId: "call-1" });
    expect(await registry.getAgentToolRun("agent-tool:call-1")).toMatchObject({ parentToolCallId: "call-1" });
    expect(frames.length).toBeGreaterThan(2);
    for (const frame of frames) {
      expect(frame.parentToolCallId).toBe("call-1");
      expect(frame.event).toMatchObject({ runId: "agent-tool:call-1" });
    }
    expect(transport.calls.map((call) => call.ref)).toContainEqual({
      agentType: "Researcher",
      runId: "agent-tool:call-1",
    });
  });

  it("returns the summary string of a completed run", async () => {
    const { registry } = setup();
    const research = agentTool(registry, "Researcher", { description: "Research a topic", inputSchema: topicSchema });
    expect(await execute(research, { topic: "cats" }, "call-1")).toBe("Findings on cats");
  });

  it("accepts a child class with a static agentType", async () => {
    const { registry } = setup();
    class ResearcherAgent {
      static readonly agentType = "Researcher";
      instructions() {
        return "Research the topic";
      }
    }
    const research = agentTool(registry, ResearcherAgent, { description: "Research", inputSchema: topicSchema });
    expect(await execute(research, { topic: "dogs" }, "call-1")).toBe("Findings on dogs");
  });

  it("returns the output validated by outputSchema (the schema's value, not the raw output)", async () => {
    const { registry } = setup();
    const rate = agentTool(registry, "Rater", {
      description: "Rate a topic",
      inputSchema: topicSchema,
      outputSchema: z.object({ title: z.string(), score: z.number() }),
    });
    const result = await execute<{ title: string; score: number }>(rate, { topic: "cats" }, "call-1");
    // zod strips the key the schema does not name: the value is the validated one.
    expect(result).toEqual({ title: "About cats", score: 7 });
  });

  it("returns an AgentToolFailure (status error), not a throw, when the output fails outputSchema", async () => {
    const { registry } = setup();
    const rate = agentTool(registry, "BadRater", {
      description: "Rate a topic",
      inputSchema: topicSchema,
      outputSchema: z.object({ title: z.string(), score: z.number() }),
    });
    const result = await execute(rate, { topic: "cats" }, "call-1");
    expect(result).toEqual({
      ok: false,
      runId: "agent-tool:call-1",
      agentType: "BadRater",
      status: "error",
      error: expect.any(String),
      retryable: false,
    });

    // A child that completed with no output at all fails the schema the same way.
    const noOutput = agentTool(registry, "Researcher", {
      description: "Research",
      inputSchema: topicSchema,
      outputSchema: z.object({ title: z.string() }),
    });
    expect(await execute(noOutput, { topic: "cats" }, "call-2")).toMatchObject({ ok: false, status: "error" });
  });

  it("returns the AgentToolFailure of a failing child, never an empty success", async () => {
    const { registry, store } = setup();
    const fail = agentTool(registry, "Failing", { description: "Fails", inputSchema: topicSchema });
    const result = await execute(fail, { topic: "cats" }, "call-1");
    expect(result).toEqual({
      ok: false,
      runId: "agent-tool:call-1",
      agentType: "Failing",
      status: "error",
      error: "model overloaded",
      retryable: false,
    });
    expect((await store.getRun("agent-tool:call-1"))?.status).toBe("error");

    // A child type the transport does not know: a dispatch that throws is a failure value too.
    const unknown = agentTool(registry, "Unknown", { description: "?", inputSchema: topicSchema });
    expect(await execute(unknown, { topic: "cats" }, "call-2")).toMatchObject({ ok: false, status: "error" });
  });

  it("returns a failure for invalid input passed directly to execute, and no run exists", async () => {
    const { registry, store, frames, transport } = setup();
    const research = agentTool(registry, "Researcher", { description: "Research", inputSchema: topicSchema });
    const result = await execute(research, { topic: 42 }, "call-bad");
    expect(result).toMatchObject({
      ok: false,
      runId: "agent-tool:call-bad",
      agentType: "Researcher",
      status: "error",
      retryable: false,
    });
    expect(await store.listRuns()).toEqual([]);
    expect(await registry.hasAgentToolRun("Researcher", "agent-tool:call-bad")).toBe(false);
    expect(frames).toEqual([]);
    expect(transport.calls).toEqual([]);
    expect(await execute(research, { topic: "" }, "call-empty")).toMatchObject({ ok: false, status: "error" });
    expect(await execute(research, "not an object", "call-string")).toMatchObject({ ok: false, status: "error" });
    expect(await store.listRuns()).toEqual([]);
  });

  it("puts displayName as display.name in the started frame (over display.name, keeping other display fields)", async () => {
    const { registry, frames } = setup();
    const research = agentTool(registry, "Researcher", {
      description: "Research",
      inputSchema: topicSchema,
      displayName: "Research assistant",
      display: { name: "ignored", icon: "search" },
    });
    await execute(research, { topic: "cats" }, "call-1");
    const started = frames.find((frame) => frame.event.kind === "started");
    expect(started?.event).toMatchObject({
      kind: "started",
      runId: "agent-tool:call-1",
      agentType: "Researcher",
      display: { name: "Research assistant", icon: "search" },
      inputPreview: '{"topic":"cats"}',
    });
    expect((await registry.getAgentToolRun("agent-tool:call-1"))?.display).toEqual({
      name: "Research assistant",
      icon: "search",
    });

    const plain = agentTool(registry, "Researcher", {
      description: "Research",
      inputSchema: topicSchema,
      displayName: "R",
    });
    await execute(plain, { topic: "dogs" }, "call-2");
    const second = frames.find((frame) => frame.event.kind === "started" && frame.event.runId === "agent-tool:call-2");
    expect(second?.event).toMatchObject({ display: { name: "R" } });
  });

  it("uses inputPreview when given", async () => {
    const { registry, frames } = setup();
    const research = agentTool(registry, "Researcher", {
      description: "Research",
      inputSchema: topicSchema,
      inputPreview: (input) => `Topic: ${input.topic}`,
    });
    await execute(research, { topic: "cats" }, "call-1");
    expect(frames[0]?.event).toMatchObject({ kind: "started", inputPreview: "Topic: cats" });
  });

  it("cancels the child when the tool call's abortSignal aborts: an aborted failure", async () => {
    const { registry, store, frames, scripted } = setup();
    const slow = agentTool(registry, "Scripted", { description: "Slow", inputSchema: topicSchema });
    const controller = new AbortController();
    const running = execute(slow, { topic: "cats" }, "call-1", controller.signal);
    const run = scripted.run("agent-tool:call-1");
    const context = await run.context;
    run.emit({ type: "start" });
    await settle();
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ ok: false, runId: "agent-tool:call-1", status: "aborted", retryable: false });
    expect(context.abortSignal.aborted).toBe(true);
    expect((await store.getRun("agent-tool:call-1"))?.status).toBe("aborted");
    expect(kinds(frames).at(-1)).toBe("aborted");
  });

  it("does not start the child when the tool call's abortSignal is already aborted", async () => {
    const { registry, scripted } = setup();
    const slow = agentTool(registry, "Scripted", { description: "Slow", inputSchema: topicSchema });
    const controller = new AbortController();
    controller.abort();
    expect(await execute(slow, { topic: "cats" }, "call-1", controller.signal)).toMatchObject({
      ok: false,
      status: "aborted",
    });
    expect(scripted.turns).toEqual([]);
  });

  it("starts only one child turn when execute runs twice with the same toolCallId (a re-run of the turn)", async () => {
    const { registry, frames, scripted, transport } = setup();
    const slow = agentTool(registry, "Scripted", { description: "Slow", inputSchema: topicSchema });
    const first = execute(slow, { topic: "cats" }, "call-1");
    const run = scripted.run("agent-tool:call-1");
    await run.context;
    run.emit(...textChunks(["Findings"]).slice(0, 4));
    await settle();
    // The same turn runs again while the child is live (another input is ignored): re-attach.
    const second = execute(slow, { topic: "other" }, "call-1");
    await settle();
    run.emit(...textChunks(["Findings"]).slice(4));
    run.complete();
    expect(await first).toBe("Findings");
    expect(await second).toBe("Findings");
    // Once more after it finished: the stored result.
    expect(await execute(slow, { topic: "cats" }, "call-1")).toBe("Findings");
    expect(scripted.turns).toEqual(["agent-tool:call-1"]);
    expect(transport.calls.filter((call) => call.method === "start" || call.method === "startTail")).toHaveLength(1);
    expect(kinds(frames).filter((kind) => kind === "started")).toHaveLength(1);
    expect(kinds(frames).filter((kind) => kind === "finished")).toHaveLength(1);
  });

  it("collects the stored result when a restarted parent re-runs the same tool call", async () => {
    const { registry, store, transport, researcher } = setup();
    const research = agentTool(registry, "Researcher", { description: "Research", inputSchema: topicSchema });
    expect(await execute(research, { topic: "cats" }, "call-1")).toBe("Findings on cats");
    const restarted = new AgentToolRegistry({
      store,
      transport,
      clock: new ManualClock(60_000),
      sink: createRunEventHub(),
    });
    const again = agentTool(restarted, "Researcher", { description: "Research", inputSchema: topicSchema });
    expect(await execute(again, { topic: "cats" }, "call-1")).toBe("Findings on cats");
    expect(researcher.turns).toEqual(["agent-tool:call-1"]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// End to end: a parent streamText on the AI SDK's mock model calls the agent tool.

async function drain<TOOLS extends ToolSet>(stream: AsyncIterable<TextStreamPart<TOOLS>>) {
  const parts: TextStreamPart<TOOLS>[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("agentTool: in a parent streamText", () => {
  it("runs the child as the first step's tool call and gives the model its summary", async () => {
    const { registry, frames, researcher } = setup();
    const tools = {
      research: agentTool(registry, "Researcher", {
        description: "Research a topic",
        inputSchema: topicSchema,
        displayName: "Researcher",
      }),
    };
    const model = scriptedModel([
      toolCallsStep("research", [["call-1", { topic: "cats" }]]),
      textStep((call) => {
        const output = toolResultsSeen(call).get("call-1") as { type: string; value: unknown } | undefined;
        return `The researcher says: ${String(output?.value)}.`;
      }),
    ]);
    const result = streamText({ model, prompt: "Tell me about cats", tools, stopWhen: isStepCount(3) });
    const parts = await drain(result.stream);

    expect(await result.text).toBe("The researcher says: Findings on cats.");
    // What the model saw as the tool result: the child's summary, as text.
    const secondCall = model.doStreamCalls[1];
    expect(secondCall && toolResultsSeen(secondCall).get("call-1")).toEqual({
      type: "text",
      value: "Findings on cats",
    });
    expect(parts).toContainEqual(
      expect.objectContaining({ type: "tool-result", toolCallId: "call-1", output: "Findings on cats" }),
    );
    expect(researcher.turns).toEqual(["agent-tool:call-1"]);

    // The frames the parent's registry broadcast.
    const chunkCount = textChunks(["Findings on ", "cats"]).length;
    expect(kinds(frames)).toEqual(["started", ...Array(chunkCount).fill("chunk"), "finished"]);
    expect(frames[0]).toMatchObject({
      type: "agent-tool-event",
      parentToolCallId: "call-1",
      revision: 1,
      event: { kind: "started", runId: "agent-tool:call-1", agentType: "Researcher", display: { name: "Researcher" } },
    });
    const chunks = frames.slice(1, -1);
    expect(chunks.map((frame) => frame.sequence)).toEqual(Array.from({ length: chunkCount }, (_, index) => index + 1));
    expect(chunks.map((frame) => (frame.event.kind === "chunk" ? frame.event.body : null))).toEqual(
      textChunks(["Findings on ", "cats"]),
    );
    expect(chunks.every((frame) => frame.parentToolCallId === "call-1" && frame.revision === undefined)).toBe(true);
    expect(frames.at(-1)).toMatchObject({
      parentToolCallId: "call-1",
      revision: 3,
      event: { kind: "finished", runId: "agent-tool:call-1", summary: "Findings on cats" },
    });
  });

  it("gives the model the failure value of a failing child as the tool result", async () => {
    const { registry } = setup();
    const tools = { fail: agentTool(registry, "Failing", { description: "Fails", inputSchema: topicSchema }) };
    let seen: unknown;
    const model = scriptedModel([
      toolCallsStep("fail", [["call-1", { topic: "cats" }]]),
      textStep((call) => {
        seen = toolResultsSeen(call).get("call-1");
        return "It failed.";
      }),
    ]);
    const result = streamText({ model, prompt: "go", tools, stopWhen: isStepCount(3) });
    await drain(result.stream);
    expect(await result.text).toBe("It failed.");
    expect(seen).toEqual({
      type: "json",
      value: {
        ok: false,
        runId: "agent-tool:call-1",
        agentType: "Failing",
        status: "error",
        error: "model overloaded",
        retryable: false,
      },
    });
  });

  it("never calls execute for input that fails the schema: the AI SDK reports it, and no run exists", async () => {
    const { registry, store, frames, transport } = setup();
    const tools = {
      research: agentTool(registry, "Researcher", { description: "Research", inputSchema: topicSchema }),
    };
    let seen: unknown;
    const model = scriptedModel([
      toolCallsStep("research", [["call-bad", { topic: 42 }]]),
      textStep((call) => {
        seen = toolResultsSeen(call).get("call-bad");
        return "Let me fix that.";
      }),
    ]);
    const result = streamText({ model, prompt: "go", tools, stopWhen: isStepCount(3) });
    const parts = await drain(result.stream);
    expect(await result.text).toBe("Let me fix that.");
    // The AI SDK marks the call invalid and emits a tool-error instead of executing the tool.
    expect(parts).toContainEqual(expect.objectContaining({ type: "tool-call", toolCallId: "call-bad", invalid: true }));
    const toolError = parts.find((part) => part.type === "tool-error");
    expect(toolError).toMatchObject({ toolCallId: "call-bad" });
    expect(parts.some((part) => part.type === "tool-result")).toBe(false);
    expect(seen).toMatchObject({ type: "error-text" });
    // …and no run exists.
    expect(await store.listRuns()).toEqual([]);
    expect(frames).toEqual([]);
    expect(transport.calls).toEqual([]);
  });

  // The AI SDK validates the input and passes the schema's *output* on; if `execute` parsed it again, a schema
  // that transforms (here a string into an array) would fail its own second validation.
  it("validates the input once: a transforming inputSchema gives the child the transformed input", async () => {
    const { registry, store } = setup();
    const inputSchema = z.object({ topic: z.string(), tags: z.string().transform((tags) => tags.split(",")) });
    const tools = { research: agentTool(registry, "Researcher", { description: "Research", inputSchema }) };
    let seen: unknown;
    const model = scriptedModel([
      toolCallsStep("research", [["call-1", { topic: "cats", tags: "sleep,play" }]]),
      textStep((call) => {
        seen = toolResultsSeen(call).get("call-1");
        return "done";
      }),
    ]);
    const result = streamText({ model, prompt: "go", tools, stopWhen: isStepCount(3) });
    await drain(result.stream);
    expect(seen).toEqual({ type: "text", value: "Findings on cats" });
    expect((await store.getRun("agent-tool:call-1"))?.inputPreview).toBe('{"topic":"cats","tags":["sleep","play"]}');
  });

  it("cancels the child when the parent's streamText is aborted", async () => {
    const { registry, store, scripted } = setup();
    const tools = { slow: agentTool(registry, "Scripted", { description: "Slow", inputSchema: topicSchema }) };
    const model = scriptedModel([toolCallsStep("slow", [["call-1", { topic: "cats" }]]), textStep(() => "never")]);
    const controller = new AbortController();
    const result = streamText({
      model,
      prompt: "go",
      tools,
      stopWhen: isStepCount(3),
      abortSignal: controller.signal,
    });
    const draining = drain(result.stream).catch((error: unknown) => error);
    const context = await scripted.run("agent-tool:call-1").context;
    controller.abort();
    await draining;
    await expect.poll(async () => (await store.getRun("agent-tool:call-1"))?.status).toBe("aborted");
    expect(context.abortSignal.aborted).toBe(true);
  });
});
