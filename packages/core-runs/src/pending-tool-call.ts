import type { ModelMessage, ToolSet, UIMessageChunk } from "ai";
import { errorMessage } from "./errors.js";
import type { PendingToolCall } from "./turn-recovery-plan.js";

type Execute = (
  input: unknown,
  options: { toolCallId: string; messages: ModelMessage[]; abortSignal?: AbortSignal },
) => unknown;

/**
 * Run a tool call a cut turn left without a result, with its own `toolCallId` (an `agentTool` call thus re-attaches
 * to its child run, or collects its stored result, and never starts a second one). Resolves the chunk that records
 * the result: the output (the last value of a tool that streams preliminary results), or the error.
 */
export async function runPendingToolCall(
  tools: ToolSet | undefined,
  call: PendingToolCall,
  options: { messages: ModelMessage[]; abortSignal: AbortSignal },
): Promise<UIMessageChunk> {
  const { toolCallId, toolName } = call;
  const execute = (tools?.[toolName] as { execute?: Execute } | undefined)?.execute;
  if (typeof execute !== "function") {
    return {
      type: "tool-output-error",
      toolCallId,
      errorText: `The tool "${toolName}" could not run again after the answer was cut off (the host offers no such tool)`,
    };
  }
  try {
    let output = await execute(call.input, {
      toolCallId,
      messages: options.messages,
      abortSignal: options.abortSignal,
    });
    if (isAsyncIterable(output)) {
      let last: unknown;
      for await (const value of output) last = value;
      output = last;
    }
    return { type: "tool-output-available", toolCallId, output };
  } catch (error) {
    return { type: "tool-output-error", toolCallId, errorText: errorMessage(error) };
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
