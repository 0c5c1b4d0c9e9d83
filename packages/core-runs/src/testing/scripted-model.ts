import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

/** What the mock model is called with. */
export type ScriptedModelCall = Parameters<MockLanguageModelV4["doStream"]>[0];
/** One stream part the mock model emits. */
export type ScriptedModelPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer TPart> ? TPart : never;
/** One model step: the parts it streams, given the call (prompt, tool results so far). */
export type ScriptedModelStep = (call: ScriptedModelCall) => ScriptedModelPart[];

/** The token usage a scripted step reports (all zeros: nothing is metered). */
export const scriptedUsage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/**
 * A token usage of one input and one output token: a step that is metered, for a test that needs a non-zero one.
 *
 * @experimental
 */
export const unitUsage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/**
 * A deterministic language model on the AI SDK's `MockLanguageModelV4`: the n-th call streams the n-th step. A call
 * past the last step fails with a clear error (a turn that loops longer than scripted is a test bug).
 */
export function scriptedModel(steps: readonly ScriptedModelStep[]): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async (call) => {
      const step = steps[index];
      index += 1;
      if (!step) throw new Error(`the mock model has no step ${index}`);
      return { stream: convertArrayToReadableStream(step(call)) };
    },
  });
}

/** A step calling `toolName` once per `[toolCallId, input]`, all in the same step. */
export function toolCallsStep(toolName: string, calls: ReadonlyArray<readonly [string, unknown]>): ScriptedModelStep {
  return () => [
    { type: "stream-start", warnings: [] },
    ...calls.map(
      ([toolCallId, input]): ScriptedModelPart => ({
        type: "tool-call",
        toolCallId,
        toolName,
        input: JSON.stringify(input),
      }),
    ),
    { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: scriptedUsage },
  ];
}

/** A step writing one text part, computed from the call. */
export function textStep(text: (call: ScriptedModelCall) => string): ScriptedModelStep {
  return (call) => [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: text(call) },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: scriptedUsage },
  ];
}

/** `step`, reporting `inputTokens` and `outputTokens` in its `finish` (a metered model, for budgets and usage). */
export function withUsage(step: ScriptedModelStep, inputTokens: number, outputTokens: number): ScriptedModelStep {
  const usage = {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  };
  return (call) => step(call).map((part) => (part.type === "finish" ? { ...part, usage } : part));
}

/**
 * The tool results in the prompt the model received, by toolCallId, each the AI SDK's tool output: `{ type: "json",
 * value }` for a tool's result (an agent tool's summary, validated output or failure value; `{ type: "text", value }`
 * for a string), `{ type: "execution-denied", reason? }` for a call whose approval was denied or expired, `{ type:
 * "error-text", value }` for a tool that threw.
 *
 * The whole prompt, as a real model sees it: in a conversation of several turns, earlier turns' results are in it
 * too, and a toolCallId used again (a script's `call-1` in every turn) maps to its latest result. A step that asks
 * "has this turn's call been answered?" looks at the messages after the last user message (`call.prompt`) instead.
 */
export function toolResultsSeen(call: ScriptedModelCall): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  for (const message of call.prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") seen.set(part.toolCallId, part.output);
  }
  return seen;
}
