import { UNFINISHED_TOOL_CALL_TEXT } from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";

// The texts are part of the wire protocol (a page tells a stopped call from a failed one by them).
export { STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "@agent-tools/core-runs/protocol";

/**
 * Close what a turn that did not complete (stopped, failed, interrupted) left open among its tool calls, so that
 * the stored answer is a valid conversation for the next turn (the AI SDK refuses a tool call with no result:
 * `MissingToolResultsError`):
 * - a call the model had decided (its input complete) with no result gets a `tool-output-error` with `errorText`;
 * - a call whose input was still streaming never ran and the model never decided it: its chunks are dropped.
 * Provider-executed calls are the provider's; a call waiting for the user's approval is left waiting unless
 * `closeApprovals` (a stopped turn's calls all end). Pure: returns the chunks to keep (the same objects, in order) and the
 * closing chunks to append after them.
 */
export function closeUnfinishedToolCalls(
  chunks: readonly UIMessageChunk[],
  errorText: string,
  options: { closeApprovals?: boolean } = {},
): { kept: UIMessageChunk[]; closing: UIMessageChunk[] } {
  const decided = new Set<string>();
  const awaitingApproval = new Set<string>();
  const settled = new Set<string>();
  const streaming = new Set<string>();
  for (const chunk of chunks) {
    switch (chunk.type) {
      case "tool-input-start":
        if (chunk.providerExecuted !== true) streaming.add(chunk.toolCallId);
        break;
      case "tool-input-available":
        if (chunk.providerExecuted !== true) decided.add(chunk.toolCallId);
        break;
      case "tool-approval-request":
        awaitingApproval.add(chunk.toolCallId);
        break;
      case "tool-input-error":
      case "tool-output-error":
      case "tool-output-denied":
        settled.add(chunk.toolCallId);
        break;
      case "tool-output-available":
        if (chunk.preliminary !== true) settled.add(chunk.toolCallId);
        break;
      default:
        break;
    }
  }
  const undecided = new Set([...streaming].filter((id) => !decided.has(id) && !settled.has(id)));
  const kept =
    undecided.size === 0
      ? [...chunks]
      : chunks.filter((chunk) => !("toolCallId" in chunk && undecided.has(chunk.toolCallId)));
  const closing: UIMessageChunk[] = [...decided]
    .filter(
      (toolCallId) =>
        !settled.has(toolCallId) && (options.closeApprovals === true || !awaitingApproval.has(toolCallId)),
    )
    .map((toolCallId) => ({ type: "tool-output-error", toolCallId, errorText }));
  return { kept, closing };
}

/** The tool part states that have their result (or will never get one from a tool: the provider's). */
const SETTLED_STATES: ReadonlySet<string> = new Set(["output-available", "output-error", "output-denied"]);

/**
 * A stored conversation made valid for a model turn: a tool part that an earlier version stored without a result
 * (a Stop while a tool ran) gets an error result instead, so that one bad answer does not break every later turn.
 * Parts of provider-executed calls, and messages with nothing to repair, are returned as they are.
 */
export function repairUnfinishedToolParts(messages: readonly UIMessage[]): UIMessage[] {
  return messages.map((message) => {
    if (message.role !== "assistant" || !message.parts.some(isUnfinishedToolPart)) return message;
    return {
      ...message,
      parts: message.parts.flatMap((part) => {
        if (!isUnfinishedToolPart(part)) return [part];
        // A call whose input never completed was never decided: nothing of it goes to the model.
        if ((part as ToolLikePart).state === "input-streaming") return [];
        return [{ ...part, state: "output-error", errorText: UNFINISHED_TOOL_CALL_TEXT } as UIMessage["parts"][number]];
      }),
    };
  });
}

type ToolLikePart = { type: string; state?: string; toolCallId?: string; providerExecuted?: boolean };

function isUnfinishedToolPart(part: UIMessage["parts"][number]): boolean {
  const tool = part as ToolLikePart;
  const isTool = tool.type === "dynamic-tool" || tool.type.startsWith("tool-");
  return (
    isTool &&
    typeof tool.toolCallId === "string" &&
    tool.providerExecuted !== true &&
    typeof tool.state === "string" &&
    !SETTLED_STATES.has(tool.state) &&
    tool.state !== "approval-requested" &&
    tool.state !== "approval-responded"
  );
}
