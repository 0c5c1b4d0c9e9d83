import type { ModelMessage, ToolSet, UIMessageChunk } from "ai";
import { errorMessage } from "../errors.js";
import type { JournaledCall } from "./journal-fold.js";

type Execute = (
  input: unknown,
  options: { toolCallId: string; messages: ModelMessage[]; abortSignal?: AbortSignal },
) => unknown;

/** What running a decided call needs from the engine. */
export type DecidedCallOptions = {
  messages: ModelMessage[];
  abortSignal: AbortSignal;
  /** Journal that the call's execution starts; resolves once that is durable. */
  started(toolCallId: string): Promise<void>;
  /** A preliminary output of a tool that streams them (an agent tool's child so far): published, not a result. */
  preliminary(chunk: UIMessageChunk): void;
};

/** The error a call gets when the host offers no tool to run it with. */
export function noToolText(toolName: string): string {
  return `The tool "${toolName}" could not run after the answer was cut off (the host offers no such tool)`;
}

/**
 * Run a call the journal holds decided and without a result, with its own `toolCallId` (an agent tool thus
 * re-attaches to its run, or collects its result, and never starts a second one).
 * Ordering invariant: the start of its execution is durable before `execute` runs.
 * Resolves the chunk that records the result: the output (the last value of a tool that streams preliminary results,
 * each one before it published), or the error.
 */
export async function runDecidedCall(
  tools: ToolSet | undefined,
  call: Pick<JournaledCall, "toolCallId" | "toolName" | "input">,
  options: DecidedCallOptions,
): Promise<UIMessageChunk> {
  const { toolCallId, toolName } = call;
  const execute = (tools?.[toolName] as { execute?: Execute } | undefined)?.execute;
  if (typeof execute !== "function") return { type: "tool-output-error", toolCallId, errorText: noToolText(toolName) };
  try {
    await options.started(toolCallId);
    let output = await execute(call.input, {
      toolCallId,
      messages: options.messages,
      abortSignal: options.abortSignal,
    });
    if (isAsyncIterable(output)) {
      let last: unknown;
      for await (const value of output) {
        last = value;
        options.preliminary({ type: "tool-output-available", toolCallId, output: value, preliminary: true });
      }
      output = last;
    }
    return { type: "tool-output-available", toolCallId, output };
  } catch (error) {
    return { type: "tool-output-error", toolCallId, errorText: errorMessage(error) };
  }
}

/**
 * The calls (of `calls`) whose tool needs approval: the AI SDK's `needsApproval`, a boolean or a function of the input
 * (a function that throws counts as needing it: a tool is never run unasked by mistake).
 */
export async function callsNeedingApproval(
  calls: readonly JournaledCall[],
  tools: ToolSet | undefined,
  messages: () => Promise<ModelMessage[]>,
): Promise<Set<string>> {
  const required = new Set<string>();
  for (const call of calls) {
    const needsApproval = (tools?.[call.toolName] as { needsApproval?: unknown } | undefined)?.needsApproval;
    if (needsApproval === true) required.add(call.toolCallId);
    if (typeof needsApproval !== "function") continue;
    try {
      const answer: unknown = await needsApproval(call.input, {
        toolCallId: call.toolCallId,
        messages: await messages(),
      });
      if (answer === true) required.add(call.toolCallId);
    } catch {
      required.add(call.toolCallId);
    }
  }
  return required;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
