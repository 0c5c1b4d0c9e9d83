import { type BaseEvent, EventType } from "@ag-ui/core";
import type { UIMessage, UIMessageChunk } from "ai";

type ToolPart = {
  type: string;
  toolCallId: string;
  toolName?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  preliminary?: boolean;
};

/** The part as a tool call, or `null` for any other part. */
function toolPart(part: { type: string }): ToolPart | null {
  const isTool = part.type.startsWith("tool-") || part.type === "dynamic-tool";
  return isTool && typeof (part as { toolCallId?: unknown }).toolCallId === "string" ? (part as ToolPart) : null;
}

/**
 * A stored answer as the chunks a tab that followed its turn got: its text and reasoning, its tool calls with their
 * input, then their outcome, in the message's order (text parts numbered `text-<n>`). Data parts and steps give none.
 */
export function storedAnswerChunks(message: UIMessage): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [{ type: "start", messageId: message.id }];
  message.parts.forEach((part, index) => {
    if (part.type === "text" || part.type === "reasoning") {
      const id = `${part.type}-${index}`;
      if (part.text === "") return;
      chunks.push(
        { type: `${part.type}-start`, id } as UIMessageChunk,
        { type: `${part.type}-delta`, id, delta: part.text } as UIMessageChunk,
        { type: `${part.type}-end`, id } as UIMessageChunk,
      );
      return;
    }
    const tool = toolPart(part);
    if (!tool || tool.state === "input-streaming") return;
    const { toolCallId } = tool;
    const toolName = tool.type === "dynamic-tool" ? String(tool.toolName) : tool.type.slice("tool-".length);
    chunks.push({ type: "tool-input-available", toolCallId, toolName, input: tool.input ?? null } as UIMessageChunk);
    if (tool.state === "output-available" && tool.preliminary !== true) {
      chunks.push({ type: "tool-output-available", toolCallId, output: tool.output } as UIMessageChunk);
    } else if (tool.state === "output-error") {
      chunks.push({
        type: "tool-output-error",
        toolCallId,
        errorText: tool.errorText ?? "The tool failed",
      } as UIMessageChunk);
    } else if (tool.state === "output-denied") {
      chunks.push({ type: "tool-output-denied", toolCallId } as UIMessageChunk);
    }
  });
  return chunks;
}

/** A message said in the conversation (a user's, or one the server added) as one AG-UI text message. */
export function messageEvents(message: UIMessage): BaseEvent[] {
  const role = message.role === "system" ? "system" : message.role === "assistant" ? "assistant" : "user";
  const text = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  return [
    { type: EventType.TEXT_MESSAGE_START, messageId: message.id, role } as BaseEvent,
    ...(text !== "" ? [{ type: EventType.TEXT_MESSAGE_CONTENT, messageId: message.id, delta: text } as BaseEvent] : []),
    { type: EventType.TEXT_MESSAGE_END, messageId: message.id } as BaseEvent,
  ];
}
