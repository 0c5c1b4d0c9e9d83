import { type LanguageModelUsage, type ToolSet, tool, type UIMessage, type UIMessageChunk } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { stubSummary } from "./stub-chunks.js";

/**
 * What the bench parent's next chat turns do (`pnpm bench`'s chat workloads):
 * - `fixed`: no model at all, five fixed chunks (what a turn costs the conversation engine alone);
 * - `tool`: the AI SDK's `streamText` over a scripted model whose first step calls tool `tool` `calls` times (input
 *   `{ count }`) and whose second step answers "done": `bench` is an agent tool (a stub child, `BenchChild`, per call),
 *   `plain` an ordinary tool that answers at once with the same kind of output (the turn without the child).
 */
export type ChatScenario = { kind: "fixed" } | { kind: "tool"; tool: "bench" | "plain"; calls: number; count: number };

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
} satisfies Record<string, unknown> as unknown as LanguageModelUsage;

/** The tools a bench turn may call, as `getTools()` gives them (`bench` is built by the parent: `this.agentTool`). */
export const countSchema = z.object({ count: z.number() });
export function plainTool(): ToolSet[string] {
  return tool({
    description: "Answer at once (the same output as a stub child's summary)",
    inputSchema: countSchema,
    execute: async ({ count }) => stubSummary(count),
  });
}

/**
 * A new scripted model for one turn of `scenario` (it records its calls, so one per turn): step 1 calls the tool,
 * step 2 (the model sees the results) answers "done".
 */
export function scriptedToolModel(scenario: Extract<ChatScenario, { kind: "tool" }>): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      step += 1;
      const parts: StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (step === 1) {
        for (let index = 0; index < scenario.calls; index += 1) {
          parts.push({
            type: "tool-call",
            toolCallId: `call-${crypto.randomUUID()}`,
            toolName: scenario.tool,
            input: JSON.stringify({ count: scenario.count }),
          });
        }
        parts.push({ type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: USAGE } as never);
      } else {
        parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "done" });
        parts.push({ type: "text-end", id: "t" });
        parts.push({ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE } as never);
      }
      return {
        stream: new ReadableStream<StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

/** The `fixed` scenario's answer: five chunks, no model. */
export function fixedAnswer(): ReadableStream<UIMessageChunk> {
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of [
        { type: "start" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "ok" },
        { type: "text-end", id: "t" },
        { type: "finish" },
      ] satisfies UIMessageChunk[]) {
        controller.enqueue(chunk);
      }
      controller.close();
    },
  });
}

/**
 * A stored conversation's message `index` for seeding: users and assistants alternate, each with a text of
 * `chars` characters (an assistant's also carries a finished tool call every 4th message, as agent tools leave them).
 */
export function seededMessage(prefix: string, index: number, chars: number): UIMessage {
  const text = `${prefix} message ${index} `.padEnd(chars, "x");
  if (index % 2 === 0) return { id: `${prefix}-${index}`, role: "user", parts: [{ type: "text", text }] };
  const parts: UIMessage["parts"] = [{ type: "step-start" }];
  if (index % 4 === 1) {
    parts.push({
      type: "tool-bench",
      toolCallId: `${prefix}-call-${index}`,
      state: "output-available",
      input: { count: 10 },
      output: stubSummary(10),
    } as UIMessage["parts"][number]);
    parts.push({ type: "step-start" });
  }
  parts.push({ type: "text", text, state: "done" });
  return { id: `${prefix}-${index}`, role: "assistant", parts };
}
