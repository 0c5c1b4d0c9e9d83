// Issue 32: a conversation turn cut between two tool calls of one step — the model had decided `research` (its input
// complete) and was still streaming `summarize`'s input when the host died. The resumed turn runs `research` (once)
// and tells the model `summarize` was not run, instead of silently dropping a call the answer had announced.
import {
  flushMicrotasks,
  ManualClock,
  type ScriptedModelCall,
  scriptedModel,
  textStep,
} from "@agent-tools/core-runs/testing";
import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatEngine, type ChatTurnContext } from "./chat-engine.js";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";

/** The first host's model step, as its stream went out before the cut: `summarize`'s input is still streaming. */
async function* cutStep(): AsyncGenerator<UIMessageChunk> {
  yield { type: "start" };
  yield { type: "start-step" };
  yield { type: "text-start", id: "t" };
  yield { type: "text-delta", id: "t", delta: "I will research, then summarize." };
  yield { type: "text-end", id: "t" };
  yield { type: "tool-input-start", toolCallId: "c1", toolName: "research" };
  yield { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"topic":"cats"}' };
  yield { type: "tool-input-available", toolCallId: "c1", toolName: "research", input: { topic: "cats" } };
  yield { type: "tool-input-start", toolCallId: "c2", toolName: "summarize" };
  yield { type: "tool-input-delta", toolCallId: "c2", inputTextDelta: '{"text":"ca' };
  // The host dies here: nothing more of this step ever comes.
  await new Promise<never>(() => {});
}

describe("a conversation turn cut between two tool calls of one step", () => {
  it("runs the decided call once and tells the model the other was not run; the answer shows both", async () => {
    const store = new InMemoryChatStore();
    const clock = new ManualClock(1_000);
    const researched: string[] = [];
    const tools: ToolSet = {
      research: tool({
        inputSchema: z.object({ topic: z.string() }),
        execute: async ({ topic }, { toolCallId }) => {
          researched.push(toolCallId);
          return `found ${topic}`;
        },
      }),
      summarize: tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => `short ${text}` }),
    };
    const prompts: ScriptedModelCall["prompt"][] = [];
    const resumed = async (context: ChatTurnContext) => {
      const model = scriptedModel([
        textStep((call) => {
          prompts.push(call.prompt);
          return "Cats are found.";
        }),
      ]);
      const messages = await convertToModelMessages(context.messages, { tools: context.tools });
      return toUIMessageStream({
        stream: streamText({ model, messages, tools: context.tools, stopWhen: isStepCount(2) }).stream,
        tools: context.tools,
      });
    };
    const host = (stream: (context: ChatTurnContext) => AsyncIterable<UIMessageChunk> | Promise<unknown>) =>
      new ChatEngine<string>({
        store,
        clock,
        tools: () => tools,
        stream: stream as never,
        send: () => undefined,
        announce: () => undefined,
        generateId: (() => {
          let id = 0;
          return () => `id-${++id}`;
        })(),
        sink: { emit: () => undefined },
      });

    const first = host(() => cutStep());
    void first.sendMessage("research cats, then summarize").catch(() => undefined);
    // Every chunk of the cut step reaches the store (its bounded writes go out as the clock moves on).
    for (let tick = 0; tick < 20; tick += 1) {
      await flushMicrotasks(50);
      await clock.advanceBy(100);
    }
    const [turn] = await store.turns();
    expect((await store.turnChunks(turn?.turnId ?? "")).map((chunk) => chunk.type)).toContain("tool-input-delta");

    // A new host over the same storage resumes the cut turn.
    const second = host(resumed);
    await second.recover();
    expect(researched).toEqual(["c1"]);
    const [prompt] = prompts;
    const results = (prompt ?? []).flatMap((message) =>
      message.role === "tool" ? message.content.filter((part) => part.type === "tool-result") : [],
    );
    expect(results.map((result) => result.toolCallId)).toEqual(["c1", "c2"]);
    expect(results[1]).toMatchObject({ toolName: "summarize", output: { type: "error-text" } });
    expect(JSON.stringify(results[1]?.output)).toContain("was not run");
    const answer = (await store.messages()).at(-1);
    expect(answer?.parts.filter((part) => part.type.startsWith("tool-"))).toMatchObject([
      { type: "tool-research", toolCallId: "c1", state: "output-available", output: "found cats" },
      { type: "tool-summarize", toolCallId: "c2", state: "output-error" },
    ]);
    expect(answer?.parts.filter((part) => part.type === "text").at(-1)).toMatchObject({ text: "Cats are found." });
  });
});
