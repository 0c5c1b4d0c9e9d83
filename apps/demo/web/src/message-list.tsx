import type { UIMessage } from "ai";
import { type ReactNode, useMemo } from "react";
import { BackgroundEntry } from "./background-entry.js";
import { chatEntries } from "./chat-entries.js";
import { type MessageContext, MessageView } from "./message-view.js";

/** The conversation: messages, background-run entries, and a "Thinking…" line while a reply is awaited. */
export function MessageList({
  messages,
  context,
  isThinking,
}: {
  messages: readonly UIMessage[];
  context: MessageContext;
  isThinking: boolean;
}): ReactNode {
  const entries = useMemo(() => chatEntries(messages), [messages]);
  return (
    <ol className="messages">
      {entries.map((entry) =>
        entry.kind === "message" ? (
          <MessageView key={entry.key} message={entry.message} context={context} />
        ) : (
          <BackgroundEntry key={entry.key} entry={entry} context={context} />
        ),
      )}
      {isThinking && (
        <li className="msg assistant pending">
          <div className="role">Assistant</div>
          <p className="muted">Thinking…</p>
        </li>
      )}
    </ol>
  );
}
