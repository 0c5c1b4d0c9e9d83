import type { AgentChatTurnStatus } from "@agent-tools/react";
import { FAILED_TURN_TEXT } from "@agent-tools/react";
import type { UIMessage } from "ai";

/**
 * The answer whose turn is still in flight, as far as the page knows: the one the chat streams, or — while the
 * connection is down — the last answer, cut with a tool call unfinished, whose end this page did not hear (the server
 * resumes it once it is back). Its tool calls then read as their runs do, not as stopped. `null` for none.
 */
export function liveAnswerId(input: {
  messages: readonly UIMessage[];
  isBusy: boolean;
  isDisconnected: boolean;
  endedTurns: Readonly<Record<string, AgentChatTurnStatus>>;
}): string | null {
  const last = input.messages.at(-1);
  if (last?.role !== "assistant") return null;
  if (input.isBusy) return last.id;
  const isCut = input.isDisconnected && input.endedTurns[last.id] === undefined && last.parts.some(isUnfinishedCall);
  return isCut ? last.id : null;
}

/** Whether an answer failed (its turn ended with an error, or its stored words say so) or answered. */
export function answerOutcome(
  message: UIMessage,
  endedTurns: Readonly<Record<string, AgentChatTurnStatus>>,
): "failed" | "answered" {
  if (endedTurns[message.id] === "error") return "failed";
  const lastText = [...message.parts].reverse().find((part) => part.type === "text");
  return lastText?.type === "text" && lastText.text.startsWith(FAILED_TURN_TEXT) ? "failed" : "answered";
}

/** Whether a message's text says `errorText` (a failed answer carries its error). */
export function saysError(message: UIMessage, errorText: string): boolean {
  return message.parts.some((part) => part.type === "text" && part.text.includes(errorText));
}

function isUnfinishedCall(part: UIMessage["parts"][number]): boolean {
  return "toolCallId" in part && (part.state === "input-streaming" || part.state === "input-available");
}
