import {
  type AgentChatTurnStatus,
  type AgentChatUnsentMessage,
  type AgentToolRunState,
  type AgentToolUsage,
  selectAnswerUsage,
} from "@agent-tools/react";
import type { UIMessage } from "ai";
import { type ReactNode, useMemo } from "react";
import { describeUsage, withoutRunIds } from "./format.js";
import { tooLargeToSend } from "./message-size.js";
import { isToolPart } from "./parts.js";
import type { RunActions } from "./run-card.js";
import { ToolCall } from "./tool-call.js";

/** What a message needs of the page around it. */
export type MessageContext = {
  runsById: Readonly<Record<string, AgentToolRunState>>;
  /** The runs a tool call started that show under it (background runs go to the tray). */
  runsFor(toolCallId: string): readonly AgentToolRunState[];
  /** The run ids the conversation names and the page knows, left out of the text shown (the run's name says which). */
  runIds: readonly string[];
  actions: RunActions;
  /** The id of the message streaming now, if any. */
  streamingMessageId: string | null;
  endedTurns: Readonly<Record<string, AgentChatTurnStatus>>;
  /** Replies this page stopped. */
  stoppedHere: ReadonlySet<string>;
  /** This tab's messages the server does not hold, by id. */
  unsent: ReadonlyMap<string, AgentChatUnsentMessage>;
  /** Whether a message may be sent again now (the chat is idle, the connection up). */
  canRetry: boolean;
  onRetryUnsent(messageId: string): void;
  onDiscardUnsent(messageId: string): void;
  /** The last message, when it is an answer and the chat is idle: it may be regenerated (retried, if it failed). */
  lastAnswer: { id: string; outcome: "failed" | "answered" } | null;
  onRegenerate(): void;
  /** What each answer's turn spent (its model and every run below it), by answer id; the live one's so far. */
  usageOf(messageId: string): AgentToolUsage | null;
};

/** How much of a text part a message shows; the rest is counted. */
const MAX_SHOWN_CHARACTERS = 2_000;

/** A message's parts: its text, and its tool calls with their runs. */
export function MessageParts({ message, context }: { message: UIMessage; context: MessageContext }): ReactNode {
  const parts = message.parts.flatMap((part, index) => {
    if (part.type === "text") {
      if (part.text === "") return [];
      // A very long text (a paste) shows its start and says how much more there is: never a bubble of 600 000 px.
      const shown = part.text.slice(0, MAX_SHOWN_CHARACTERS);
      const more = part.text.length - shown.length;
      return [
        // biome-ignore lint/suspicious/noArrayIndexKey: text parts have no id; parts only grow at the end
        <p key={`text-${index}`} className="text">
          {withoutRunIds(shown, context.runIds)}
          {more > 0 && (
            <span className="text-clipped">{`… and ${more.toLocaleString("en")} more characters not shown`}</span>
          )}
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

/** One message of the conversation: a message not sent says so, with Retry and Discard; the last answer offers Regenerate (Retry when it failed). */
export function MessageView({ message, context }: { message: UIMessage; context: MessageContext }): ReactNode {
  const unsent = context.unsent.get(message.id);
  // A message not sent that is over the server's size limit would be refused again: it is not offered Retry.
  const tooLarge = useMemo(
    () =>
      unsent === undefined
        ? null
        : tooLargeToSend(message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n")),
    [unsent, message.parts],
  );
  const answer = context.lastAnswer?.id === message.id ? context.lastAnswer : null;
  const failed = answer?.outcome === "failed";
  // What the answer's turn spent: as stored with the answer once its turn ended, else as the turn's events told.
  const spent = message.role === "assistant" ? selectAnswerUsage(message) : null;
  const usage =
    message.role === "assistant" ? describeUsage(spent?.usage ?? context.usageOf(message.id), spent?.own) : null;
  return (
    <li
      className={`msg ${message.role}${unsent ? " unsent" : ""}${failed ? " failed" : ""}`}
      data-message-id={message.id}
      data-role={message.role}
    >
      <div className="role">
        {message.role === "user" ? "You" : message.role === "assistant" ? "Assistant" : "System"}
      </div>
      <MessageParts message={message} context={context} />
      {usage && (
        <p className="msg-usage" title={usage.long}>
          <span className="visually-hidden">This answer spent: </span>
          {usage.short}
          {usage.own !== null && <span className="msg-usage-own">{` (the Assistant itself: ${usage.own})`}</span>}
        </p>
      )}
      {unsent && <UnsentNote unsent={unsent} tooLarge={tooLarge} context={context} />}
      {answer && (
        <div className="msg-actions">
          <button
            type="button"
            onClick={() => {
              if (context.canRetry) context.onRegenerate();
            }}
            aria-disabled={!context.canRetry}
            aria-label={failed ? "Retry the answer" : "Regenerate the answer"}
          >
            {failed ? "Retry" : "Regenerate"}
          </button>
        </div>
      )}
    </li>
  );
}

const UNSENT_REASONS: Record<AgentChatUnsentMessage["reason"], string> = {
  disconnected: "the connection dropped before the server got it",
  refused: "the server refused it",
  dropped: "it was stopped before its turn",
};

/**
 * "Not sent", why, and what to do about it: Retry, and Discard (which puts its text back in the message box). A
 * message over the server's size limit (`tooLarge` says why) would only be refused again: it is offered Discard alone.
 */
function UnsentNote({
  unsent,
  tooLarge,
  context,
}: {
  unsent: AgentChatUnsentMessage;
  tooLarge: string | null;
  context: MessageContext;
}): ReactNode {
  const why =
    unsent.reason === "refused" && unsent.error
      ? `${UNSENT_REASONS.refused}: ${unsent.error}`
      : UNSENT_REASONS[unsent.reason];
  return (
    <div className="unsent-note">
      <p role="alert">
        <strong>Not sent</strong> — {why}.
        {tooLarge !== null &&
          " It is too long to send as it is: Discard puts it back in the message box, to shorten it."}
      </p>
      <div className="msg-actions">
        {tooLarge === null && (
          <button
            type="button"
            className="primary"
            onClick={() => {
              if (context.canRetry) context.onRetryUnsent(unsent.messageId);
            }}
            aria-disabled={!context.canRetry}
          >
            Retry
          </button>
        )}
        <button type="button" onClick={() => context.onDiscardUnsent(unsent.messageId)}>
          Discard
        </button>
      </div>
    </div>
  );
}
