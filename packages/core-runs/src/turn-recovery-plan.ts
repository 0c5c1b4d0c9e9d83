import type { UIMessageChunk } from "ai";

/** A tool call the model made in a turn that was cut before the call's result came back. */
export type PendingToolCall = { toolCallId: string; toolName: string; input: unknown };

/**
 * How to go on with a turn (a parent's chat turn, a child's run) cut by a crash, from the chunks it had streamed:
 * - `keep`: the chunks it goes on from — every completed step, and of the cut step (if the model had decided tool
 *   calls in it) the parts it had closed: its finished text and reasoning, its complete tool calls and their results;
 * - `pendingToolCalls`: tool calls of the cut step with no result yet: they run again with their own `toolCallId`
 *   (an `agentTool` call thus re-attaches to its run, or collects its result, instead of starting a second one);
 * - `isStepOpen`: the kept chunks end inside a step (it still needs its results and its `finish-step`).
 * A cut step in which the model had decided nothing (text or a tool call still streaming) is dropped and done again.
 */
export type TurnRecoveryPlan = { keep: UIMessageChunk[]; pendingToolCalls: PendingToolCall[]; isStepOpen: boolean };

type ChunkOf<TType extends UIMessageChunk["type"]> = Extract<UIMessageChunk, { type: TType }>;

/** Plan the recovery of a cut turn from its chunks, as a pure function. */
export function planTurnRecovery(chunks: readonly UIMessageChunk[]): TurnRecoveryPlan {
  let lastFinish = -1;
  let stepStart = -1;
  chunks.forEach((chunk, index) => {
    if (chunk.type === "finish-step") lastFinish = index;
    if (chunk.type === "start-step") stepStart = index;
  });
  // Everything up to the last finished step is kept as is; a `start` before any step too.
  const completed = chunks.slice(0, lastFinish + 1);
  if (lastFinish === -1) {
    const head = chunks.filter((chunk) => chunk.type === "start" || chunk.type === "message-metadata");
    completed.push(...head);
  }
  if (stepStart <= lastFinish) return { keep: completed, pendingToolCalls: [], isStepOpen: false };

  const step = chunks.slice(stepStart);
  const decided = new Map<string, ChunkOf<"tool-input-available">>();
  const results = new Set<string>();
  const closedParts = new Set<string>();
  for (const chunk of step) {
    if (chunk.type === "tool-input-available" && chunk.providerExecuted !== true) decided.set(chunk.toolCallId, chunk);
    // A preliminary output is not a result: the call runs again (an agentTool re-attaches and yields again).
    const isResult =
      (chunk.type === "tool-output-available" && chunk.preliminary !== true) || chunk.type === "tool-output-error";
    if (isResult) results.add(chunk.toolCallId);
    if (chunk.type === "text-end" || chunk.type === "reasoning-end") closedParts.add(chunk.id);
  }
  if (decided.size === 0) return { keep: completed, pendingToolCalls: [], isStepOpen: false };

  const keptStep = step.filter((chunk) => isClosedPart(chunk, decided, results, closedParts));
  const pendingToolCalls = [...decided.values()]
    .filter((call) => !results.has(call.toolCallId))
    .map((call) => ({ toolCallId: call.toolCallId, toolName: call.toolName, input: call.input }));
  return { keep: [...completed, ...keptStep], pendingToolCalls, isStepOpen: true };
}

/** True for a chunk of the cut step that belongs to something finished: kept on recovery. */
function isClosedPart(
  chunk: UIMessageChunk,
  decided: ReadonlyMap<string, unknown>,
  results: ReadonlySet<string>,
  closedParts: ReadonlySet<string>,
): boolean {
  switch (chunk.type) {
    case "start-step":
      return true;
    case "text-start":
    case "text-delta":
    case "text-end":
    case "reasoning-start":
    case "reasoning-delta":
    case "reasoning-end":
      return closedParts.has(chunk.id);
    case "tool-input-start":
    case "tool-input-delta":
    case "tool-input-available":
      return decided.has(chunk.toolCallId);
    case "tool-output-available":
      return chunk.preliminary !== true && results.has(chunk.toolCallId);
    case "tool-output-error":
      return results.has(chunk.toolCallId);
    case "finish-step":
    case "finish":
    case "abort":
    case "error":
      return false;
    default:
      // Sources, files and data parts stand on their own.
      return chunk.type !== "start";
  }
}
