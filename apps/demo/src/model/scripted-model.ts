import type { LanguageModelV4, LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";

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

/** The text of the last user message in a prompt. */
export function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    const message = prompt[index];
    if (message?.role !== "user") continue;
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");
  }
  return "";
}

/** The tool results of the last tool message (by tool name), or null when the last message is not one. */
export function lastToolResults(prompt: LanguageModelV4Prompt): Map<string, unknown> | null {
  const last = prompt.at(-1);
  if (last?.role !== "tool") return null;
  const results = new Map<string, unknown>();
  for (const part of last.content) {
    if (part.type !== "tool-result") continue;
    const { output } = part;
    results.set(part.toolName, output.type === "json" || output.type === "text" ? output.value : null);
  }
  return results;
}

/** Split text into word-sized deltas (keeping the spaces), so it streams at a visible pace. */
export function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

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
  return new MockLanguageModelV4({
    provider: "agent-tools-demo",
    modelId: options.modelId,
    doStream: async ({ prompt }) => {
      const step = options.script(prompt);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      const text = step.text ?? "";
      if (text) {
        parts.push({ type: "text-start", id: "text-1" });
        for (const delta of words(text)) parts.push({ type: "text-delta", id: "text-1", delta });
        parts.push({ type: "text-end", id: "text-1" });
      }
      if (step.kind === "tools") {
        for (const call of step.calls) {
          callCounter += 1;
          parts.push({
            type: "tool-call",
            toolCallId: `call-${callCounter.toString(36)}-${crypto.randomUUID().slice(0, 8)}`,
            toolName: call.toolName,
            input: JSON.stringify(call.input),
          });
        }
      }
      parts.push({
        type: "finish",
        finishReason: { unified: step.kind === "tools" ? "tool-calls" : "stop", raw: undefined },
        usage: estimatedUsage(prompt, text + (step.kind === "tools" ? JSON.stringify(step.calls) : "")),
      });
      return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: options.paceMs, initialDelayInMs: 0 }) };
    },
  });
}
