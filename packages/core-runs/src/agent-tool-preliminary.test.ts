import {
  convertToModelMessages,
  isStepCount,
  readUIMessageStream,
  streamText,
  type ToolExecutionOptions,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentToolPreliminaryOutput, agentTool, agentToolModelOutput } from "./agent-tool.js";
import { AGENT_PROGRESS_PART } from "./protocol/index.js";
import { createRunEventHub } from "./run-event-hub.js";
import { AgentToolRegistry } from "./run-registry.js";
import { inMemoryRegistry } from "./testing/in-memory-registry.js";
import { ManualClock } from "./testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "./testing/scripted-child.js";
import { scriptedModel, textStep, toolCallsStep, toolResultsSeen } from "./testing/scripted-model.js";

const topicSchema = z.object({ topic: z.string().min(1) });
const topicOf = (input: unknown) => (input as { topic: string }).topic;
type Output = AgentToolPreliminaryOutput<never>;

function setup() {
  const clock = new ManualClock(50_000);
  const researcher = echoChild("Researcher", { chunks: (input) => textChunks(["Findings on ", topicOf(input)]) });
  const failing = echoChild("Failing", {
    chunks: () => [{ type: "start" }, { type: "error", errorText: "model overloaded" }],
  });
  const scripted = new ScriptedChild("Scripted");
  const world = inMemoryRegistry([researcher, failing, scripted.definition], clock);
  return { ...world, clock, researcher, scripted };
}

const callOptions = (toolCallId: string, abortSignal?: AbortSignal): ToolExecutionOptions<Record<string, never>> => ({
  toolCallId,
  messages: [],
  context: {},
  ...(abortSignal ? { abortSignal } : {}),
});

/** The values a tool's `execute` yields, as the AI SDK reads them. */
function values(tool: { execute?: unknown }, input: unknown, toolCallId: string, abortSignal?: AbortSignal) {
  const execute = tool.execute as (input: unknown, options: unknown) => AsyncIterable<Output>;
  return execute(input, callOptions(toolCallId, abortSignal))[Symbol.asyncIterator]();
}

async function all(iterator: AsyncIterator<Output>): Promise<Output[]> {
  const seen: Output[] = [];
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) seen.push(next.value);
  return seen;
}

const textOf = (message: UIMessage | null) =>
  (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

const settle = async () => {
  for (let index = 0; index < 50; index += 1) await Promise.resolve();
};
/** Let the child read what was emitted, then turn the event loop (the clock) so it writes the burst. */
const flush = async (clock: ManualClock) => {
  await settle();
  await clock.advanceBy(0);
};

describe("agentTool with preliminaryResults: execute", () => {
  it("yields the child's message as it grows, then a final value with the result", async () => {
    const { registry, scripted, clock } = setup();
    const tool = agentTool(registry, "Scripted", {
      description: "Research",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const iterator = values(tool, { topic: "cats" }, "call-1");
    const first = iterator.next();
    const run = scripted.run("agent-tool:call-1");
    await run.context;
    const chunks = textChunks(["Cats ", "sleep."]);
    run.emit(...chunks.slice(0, 4)); // start, start-step, text-start, "Cats "
    await flush(clock);
    // Updates until the first delta shows: each one is the latest the follower holds.
    let update = (await first).value as Output;
    while (textOf(update.message) !== "Cats ") update = (await iterator.next()).value as Output;
    expect(update).toMatchObject({ runId: "agent-tool:call-1", agentType: "Scripted", status: "running" });
    expect(update.result).toBeUndefined();
    expect(update.message?.parts).toContainEqual({ type: "text", text: "Cats ", state: "streaming" });

    run.emit(...chunks.slice(4));
    run.complete();
    const rest = await all(iterator);
    const final = rest.at(-1);
    expect(final).toMatchObject({ status: "completed", result: "Cats sleep." });
    expect(final?.message?.parts).toContainEqual({ type: "text", text: "Cats sleep.", state: "done" });
    // Nothing after the final value, and only the final value has a result.
    expect(rest.slice(0, -1).every((value) => value.result === undefined)).toBe(true);
  });

  it("reports the child's progress alongside its message", async () => {
    const { registry, scripted } = setup();
    const tool = agentTool(registry, "Scripted", {
      description: "S",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const iterator = values(tool, { topic: "cats" }, "call-1");
    const first = iterator.next();
    const run = scripted.run("agent-tool:call-1");
    const context = await run.context;
    run.emit({ type: "start" });
    const snapshot = { fraction: 0.5, message: "halfway", at: 50_000 };
    context.publishEphemeral(
      { type: AGENT_PROGRESS_PART, data: snapshot, transient: true } as UIMessageChunk,
      snapshot,
    );
    let update = (await first).value as Output;
    while (update.progress === null) update = (await iterator.next()).value as Output;
    expect(update.progress).toMatchObject({ fraction: 0.5, message: "halfway" });
    // Progress is reported on its own, never as a part of the child's message.
    expect(update.message?.parts.some((part) => part.type === AGENT_PROGRESS_PART) ?? false).toBe(false);
    run.emit(...textChunks(["done"]).slice(1));
    run.complete();
    expect((await all(iterator)).at(-1)).toMatchObject({ status: "completed", result: "done" });
  });

  it("gives one final value with a failure for invalid input, and starts no run", async () => {
    const { registry, store, frames } = setup();
    const tool = agentTool(registry, "Researcher", {
      description: "R",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const seen = await all(values(tool, { topic: "" }, "call-bad"));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      runId: "agent-tool:call-bad",
      status: "error",
      message: null,
      result: { ok: false, status: "error", error: expect.stringContaining("Invalid input") },
    });
    expect(await store.getRun("agent-tool:call-bad")).toBeNull();
    expect(frames).toEqual([]);
  });

  it("ends with the failure value of a failing child", async () => {
    const { registry } = setup();
    const tool = agentTool(registry, "Failing", {
      description: "F",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const final = (await all(values(tool, { topic: "cats" }, "call-1"))).at(-1);
    expect(final).toMatchObject({
      status: "error",
      result: { ok: false, status: "error", error: "model overloaded", retryable: false },
    });
    expect(final && agentToolModelOutput(final)).toEqual({ type: "json", value: final?.result });
  });

  it("ends aborted when the tool call's signal aborts, with what the child had said", async () => {
    const { registry, scripted, store } = setup();
    const tool = agentTool(registry, "Scripted", {
      description: "S",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const controller = new AbortController();
    const iterator = values(tool, { topic: "cats" }, "call-1", controller.signal);
    const pending = all(iterator);
    const run = scripted.run("agent-tool:call-1");
    await run.context;
    run.emit(...textChunks(["Half an answer"]).slice(0, 4));
    await settle();
    controller.abort();
    const final = (await pending).at(-1);
    expect(final).toMatchObject({ status: "aborted", result: { ok: false, status: "aborted" } });
    expect(textOf(final?.message ?? null)).toBe("Half an answer");
    expect((await store.getRun("agent-tool:call-1"))?.status).toBe("aborted");
  });

  it("re-running a finished tool call (a restarted parent) ends with the whole stored message, and no second turn", async () => {
    const { registry, store, transport, researcher } = setup();
    const tool = agentTool(registry, "Researcher", {
      description: "R",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const firstTime = (await all(values(tool, { topic: "cats" }, "call-1"))).at(-1);
    const restarted = new AgentToolRegistry({
      store,
      transport,
      clock: new ManualClock(60_000),
      sink: createRunEventHub(),
    });
    const again = agentTool(restarted, "Researcher", {
      description: "R",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const secondTime = (await all(values(again, { topic: "cats" }, "call-1"))).at(-1);
    expect(secondTime).toMatchObject({ status: "completed", result: "Findings on cats" });
    expect(textOf(secondTime?.message ?? null)).toBe("Findings on cats");
    expect(secondTime?.message?.parts).toEqual(firstTime?.message?.parts);
    expect(researcher.turns).toEqual(["agent-tool:call-1"]);
  });

  it("re-attaching to a live run (the same turn run again) starts from what the child already said", async () => {
    const { registry, scripted, clock } = setup();
    const tool = agentTool(registry, "Scripted", {
      description: "S",
      inputSchema: topicSchema,
      preliminaryResults: true,
    });
    const firstCall = all(values(tool, { topic: "cats" }, "call-1"));
    const run = scripted.run("agent-tool:call-1");
    await run.context;
    const chunks = textChunks(["Early ", "words"]);
    run.emit(...chunks.slice(0, 4));
    await flush(clock);
    const iterator = values(tool, { topic: "cats" }, "call-1");
    let update = (await iterator.next()).value as Output;
    while (textOf(update.message) !== "Early ") update = (await iterator.next()).value as Output;
    run.emit(...chunks.slice(4));
    run.complete();
    const rest = await all(iterator);
    // Replayed and live frames overlap: every chunk counts once.
    expect(rest.at(-1)?.message?.parts).toContainEqual({ type: "text", text: "Early words", state: "done" });
    expect((await firstCall).at(-1)).toMatchObject({ result: "Early words" });
    expect(scripted.turns).toEqual(["agent-tool:call-1"]);
  });
});

describe("agentTool with preliminaryResults: in a parent streamText and useChat's message", () => {
  it("streams preliminary tool outputs with the child's message; the model sees only the summary", async () => {
    const { registry } = setup();
    const tools = {
      research: agentTool(registry, "Researcher", {
        description: "Research a topic",
        inputSchema: topicSchema,
        preliminaryResults: true,
      }),
    };
    const model = scriptedModel([
      toolCallsStep("research", [["call-1", { topic: "cats" }]]),
      textStep(
        (call) => `The researcher says: ${String((toolResultsSeen(call).get("call-1") as { value: unknown })?.value)}.`,
      ),
    ]);
    const result = streamText({ model, prompt: "Tell me about cats", tools, stopWhen: isStepCount(3) });
    const chunks: UIMessageChunk[] = [];
    const [forChunks, forMessage] = result.toUIMessageStream().tee();
    const collecting = (async () => {
      for await (const chunk of forChunks) chunks.push(chunk);
    })();
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({ stream: forMessage })) message = state;
    await collecting;

    expect(await result.text).toBe("The researcher says: Findings on cats.");
    // What the model saw: the summary as text, not the child's message.
    const secondCall = model.doStreamCalls[1];
    expect(secondCall && toolResultsSeen(secondCall).get("call-1")).toEqual({
      type: "text",
      value: "Findings on cats",
    });

    const outputs = chunks.filter((chunk) => chunk.type === "tool-output-available");
    expect(outputs.length).toBeGreaterThanOrEqual(2);
    expect(outputs.slice(0, -1).every((chunk) => chunk.preliminary === true)).toBe(true);
    expect(outputs.at(-1)?.preliminary).toBeUndefined();

    // useChat's message: the tool part holds the final value, with the child's whole message in it.
    const toolPart = message?.parts.find((part) => part.type === "tool-research") as
      | { state: string; output: Output; preliminary?: boolean }
      | undefined;
    expect(toolPart?.state).toBe("output-available");
    expect(toolPart?.preliminary).not.toBe(true);
    expect(toolPart?.output).toMatchObject({ status: "completed", result: "Findings on cats" });
    expect(textOf(toolPart?.output.message ?? null)).toBe("Findings on cats");

    // A reload sends the stored message back to the model: it still sees only the summary.
    const modelMessages = await convertToModelMessages(
      [{ id: "u1", role: "user", parts: [{ type: "text", text: "Tell me about cats" }] }, message as UIMessage],
      { tools },
    );
    const toolResult = modelMessages
      .flatMap((entry): Array<{ type: string }> => (Array.isArray(entry.content) ? entry.content : []))
      .find((part) => part.type === "tool-result");
    expect(toolResult).toMatchObject({ toolCallId: "call-1", output: { type: "text", value: "Findings on cats" } });
  });
});
