import type { AgentChatTurnStatus, AgentToolRunState } from "@agent-tools/react";
import type { UIMessage } from "ai";
import type { ReactNode } from "react";
import { withoutRunIds } from "./format.js";
import { isToolPart } from "./parts.js";
import type { RunActions } from "./run-card.js";
import { ToolCall } from "./tool-call.js";

/** What a message needs of the page around it. */
export type MessageContext = {
  runsById: Readonly<Record<string, AgentToolRunState>>;
  /** The runs a tool call started that show under it (background runs go to the tray). */
  runsFor(toolCallId: string): readonly AgentToolRunState[];
  /** Background run ids, left out of the text shown (the run's name says which run). */
  backgroundRunIds: readonly string[];
  actions: RunActions;
  /** The id of the message streaming now, if any. */
  streamingMessageId: string | null;
  endedTurns: Readonly<Record<string, AgentChatTurnStatus>>;
  /** Replies this page stopped. */
  stoppedHere: ReadonlySet<string>;
};

/** A message's parts: its text, and its tool calls with their runs. */
export function MessageParts({ message, context }: { message: UIMessage; context: MessageContext }): ReactNode {
  const parts = message.parts.flatMap((part, index) => {
    if (part.type === "text") {
      return part.text === ""
        ? []
        : [
            // biome-ignore lint/suspicious/noArrayIndexKey: text parts have no id; parts only grow at the end
            <p key={`text-${index}`} className="text">
              {withoutRunIds(part.text, context.backgroundRunIds)}
            </p>,
          ];
    }
    if (isToolPart(part)) {
      const runs = context.runsFor(part.toolCallId);
      return [
        <ToolCall
          key={part.toolCallId}
          part={part}
          runsById={context.runsById}
          actions={context.actions}
          context={{
            isStreaming: context.streamingMessageId === message.id,
            runs,
            turnStatus: context.endedTurns[message.id],
            stoppedHere: context.stoppedHere.has(message.id),
            cancelledHere: context.actions.cancelledHere,
          }}
        />,
      ];
    }
    return [];
  });
  return parts.length > 0 ? parts : <p className="muted">…</p>;
}

/** One message of the conversation. */
export function MessageView({ message, context }: { message: UIMessage; context: MessageContext }): ReactNode {
  return (
    <li className={`msg ${message.role}`} data-message-id={message.id} data-role={message.role}>
      <div className="role">
        {message.role === "user" ? "You" : message.role === "assistant" ? "Assistant" : "System"}
      </div>
      <MessageParts message={message} context={context} />
    </li>
  );
}
