import { convertToModelMessages, type ToolSet, type UIMessage, type UIMessageChunk } from "ai";
import { runPendingToolCall } from "./pending-tool-call.js";
import type { PendingToolCall } from "./turn-recovery-plan.js";

/** What closing a kept cut step needs. */
export type CloseCutStepOptions = {
  /** The calls of the cut step with no result yet (`planTurnRecovery`'s `pendingToolCalls`). */
  pendingToolCalls: readonly PendingToolCall[];
  /** The tools they run with (a host's `getTools()`); a call whose tool is missing gets an error result. */
  tools: ToolSet | undefined;
  /** The conversation the tools are told of (read only when a call runs). */
  conversation: () => Promise<UIMessage[]>;
  abortSignal: AbortSignal;
};

/**
 * Close a step a crash cut after its model had decided tool calls, for a parent's chat turn and a child's run alike:
 * run each call with no result again, with its own `toolCallId` (an `agentTool` call re-attaches to its run or
 * collects its result, never starting a second one), in parallel as the AI SDK runs a step's calls, then end the
 * step. Resolves the chunks to append: each call's result (or error), then `finish-step`.
 */
export async function closeCutStep(options: CloseCutStepOptions): Promise<UIMessageChunk[]> {
  const { pendingToolCalls, tools, abortSignal } = options;
  if (pendingToolCalls.length === 0) return [{ type: "finish-step" }];
  const messages = await convertToModelMessages(await options.conversation(), tools ? { tools } : {});
  const results = await Promise.all(
    pendingToolCalls.map((call) => runPendingToolCall(tools, call, { messages, abortSignal })),
  );
  return [...results, { type: "finish-step" }];
}
