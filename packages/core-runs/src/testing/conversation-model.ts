import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { words } from "./chunks.js";
import { type ScriptedModelCall, type ScriptedModelPart, scriptedUsage } from "./scripted-model.js";

/** The prompt of a model call (the AI SDK's `LanguageModelV4Prompt`). @experimental */
export type ConversationPrompt = ScriptedModelCall["prompt"];

/** A token usage, as a model step reports it in its `finish` part. @experimental */
export type ConversationUsage = typeof scriptedUsage;

/** One tool result of the turn in flight: the AI SDK's tool output (`{ type: "json" | "text", value }`, …). @experimental */
export type ConversationToolResult = { toolCallId: string; toolName: string; output: unknown };

/**
 * What a conversation model is asked to decide from: the call's prompt, read the way a script decides.
 *
 * @experimental
 */
export type ConversationView = {
  call: ScriptedModelCall;
  /** The text of the last user message: the question of the turn in flight (`""` when there is none). */
  lastUserText: string;
  /** The tool results of the turn in flight (after its last user message), in the order they came. */
  turnResults: readonly ConversationToolResult[];
  /** `lastToolResults(call.prompt)`: the step before's results by tool name, `null` on the turn's first step. */
  lastToolResults: Map<string, unknown> | null;
};

/**
 * What a conversation model does in one step: stream `text` (word by word), then call each of `calls` (a step with
 * calls ends with finish reason `tool-calls`, one without with `stop`). A string is a text-only reply.
 *
 * @experimental
 */
export type ConversationReply = string | { text?: string; calls?: ConversationCalls };

/** The tool calls of a step: each tool's name and input, and optionally the call's id. @experimental */
export type ConversationCalls = ReadonlyArray<{ toolName: string; input: unknown; toolCallId?: string }>;

/** @experimental */
export type ConversationModelOptions = {
  provider?: string;
  modelId?: string;
  /** The usage a step reports (default: `scriptedUsage`, all zeros), given what it replied. */
  usage?: (view: ConversationView, reply: { text: string; calls: ConversationCalls }) => ConversationUsage;
  /**
   * The id of a call the reply gave none (`index`: its place in the step). Default `call-<n>`, `n` counting the tool
   * calls already in the prompt: unique within the conversation (an agent tool's run id is `agent-tool:<id>`, and a
   * parent's runs are idempotent by it) and the same when a cut step is asked again.
   */
  toolCallId?: (view: ConversationView, toolName: string, index: number) => string;
  /** The stream of a step's parts (default: all at once; e.g. the AI SDK's `simulateReadableStream` to pace them). */
  stream?: (parts: ScriptedModelPart[]) => ReadableStream<ScriptedModelPart>;
};

/** The text of the last user message in `prompt` (`""` when there is none). @experimental */
export function lastUserText(prompt: ConversationPrompt): string {
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    const message = prompt[index];
    if (message?.role !== "user") continue;
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");
  }
  return "";
}

/**
 * The results of the tool message `prompt` ends with, by tool name: each result's value (`json` and `text` outputs;
 * `null` for a call that gave none: denied, expired or failed), or `null` when the prompt does not end with tool
 * results (the first step of a turn).
 *
 * @experimental
 */
export function lastToolResults(prompt: ConversationPrompt): Map<string, unknown> | null {
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

function viewOf(call: ScriptedModelCall): ConversationView {
  const { prompt } = call;
  let turnStart = 0;
  for (let index = prompt.length - 1; index >= 0; index -= 1) {
    if (prompt[index]?.role === "user") {
      turnStart = index + 1;
      break;
    }
  }
  const turnResults: ConversationToolResult[] = [];
  for (const message of prompt.slice(turnStart)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") {
        turnResults.push({ toolCallId: part.toolCallId, toolName: part.toolName, output: part.output });
      }
    }
  }
  return { call, lastUserText: lastUserText(prompt), turnResults, lastToolResults: lastToolResults(prompt) };
}

/** How many tool calls the prompt's assistant messages hold. */
function callsIn(prompt: ConversationPrompt): number {
  let count = 0;
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call") count += 1;
  }
  return count;
}

/**
 * A deterministic language model (the AI SDK's `MockLanguageModelV4`) that decides each step from the conversation
 * it is given, not from how often it was called: `decide` reads the call (the last user message, this turn's tool
 * results) and replies. One model answers every turn of a conversation, every run of a child, and a step asked again
 * after a cut, the way a real model would; `scriptedModel` is the one to use for a fixed sequence of steps.
 *
 * @example
 * const model = conversationModel(({ lastUserText, lastToolResults }) => {
 *   if (!lastToolResults) return { calls: [{ toolName: "research", input: { topic: lastUserText } }] };
 *   return `Found: ${lastToolResults.get("research")}`;
 * });
 *
 * @experimental
 */
export function conversationModel(
  decide: (view: ConversationView) => ConversationReply,
  options: ConversationModelOptions = {},
): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    ...(options.modelId !== undefined ? { modelId: options.modelId } : {}),
    doStream: async (call) => {
      const view = viewOf(call);
      const decided = decide(view);
      const reply = typeof decided === "string" ? { text: decided } : decided;
      const parts: ScriptedModelPart[] = [{ type: "stream-start", warnings: [] }];
      const text = reply.text ?? "";
      if (text) {
        parts.push({ type: "text-start", id: "text-1" });
        for (const delta of words(text)) parts.push({ type: "text-delta", id: "text-1", delta });
        parts.push({ type: "text-end", id: "text-1" });
      }
      const calls = reply.calls ?? [];
      const earlier = callsIn(call.prompt);
      calls.forEach(({ toolName, input, toolCallId }, index) => {
        parts.push({
          type: "tool-call",
          toolCallId: toolCallId ?? options.toolCallId?.(view, toolName, index) ?? `call-${earlier + index + 1}`,
          toolName,
          input: JSON.stringify(input),
        });
      });
      parts.push({
        type: "finish",
        finishReason: { unified: calls.length > 0 ? "tool-calls" : "stop", raw: undefined },
        usage: options.usage?.(view, { text, calls }) ?? scriptedUsage,
      });
      return { stream: options.stream ? options.stream(parts) : convertArrayToReadableStream(parts) };
    },
  });
}
