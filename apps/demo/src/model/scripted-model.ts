import { conversationModel, lastToolResults, lastUserText } from "@agent-tools/core-runs/testing";
import type { LanguageModelV4, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";

/** What a scripted model does for one step, given the conversation so far. */
export type ScriptedStep =
  | { kind: "text"; text: string }
  | { kind: "tools"; text?: string; calls: Array<{ toolName: string; input: unknown }> };

/**
 * What a scripted step reports as its usage: tokens estimated at 4 characters each (of the prompt as JSON, and of
 * the text and tool inputs it streams), so the budgets and the usage shown on the page have figures to work with.
 */
function estimatedUsage(prompt: LanguageModelV4Prompt, written: string) {
  const input = Math.ceil(JSON.stringify(prompt).length / 4);
  const output = Math.ceil(written.length / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

// The demo's models decide from the conversation, as the testing kit's `conversationModel` does.
export { lastToolResults, lastUserText };

let callCounter = 0;

/**
 * A deterministic language model built on the AI SDK's mock model: `script` decides each step from the prompt;
 * text streams word by word, `paceMs` apart (0 in tests). No network.
 */
export function scriptedModel(options: {
  modelId: string;
  paceMs: number;
  script: (prompt: LanguageModelV4Prompt) => ScriptedStep;
}): LanguageModelV4 {
  return conversationModel(
    ({ call }) => {
      const step = options.script(call.prompt);
      return { text: step.text ?? "", calls: step.kind === "tools" ? step.calls : [] };
    },
    {
      provider: "agent-tools-demo",
      modelId: options.modelId,
      usage: ({ call }, { text, calls }) =>
        estimatedUsage(call.prompt, text + (calls.length > 0 ? JSON.stringify(calls) : "")),
      toolCallId: () => {
        callCounter += 1;
        return `call-${callCounter.toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
      },
      stream: (parts) => simulateReadableStream({ chunks: parts, chunkDelayInMs: options.paceMs, initialDelayInMs: 0 }),
    },
  );
}
