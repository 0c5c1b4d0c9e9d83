import type { UIMessage } from "ai";
import type { ReactNode } from "react";
import type { ChatEntry } from "./chat-entries.js";
import { resultText, runName, STATUS_LABELS, withoutRunIds } from "./format.js";
import { type MessageContext, MessageParts } from "./message-view.js";

const textOf = (message: UIMessage) =>
  message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(" ");

/**
 * What the server told the chat about one background run, as one item: the run's name and how it stands (from its
 * live state when the page has it, else from the notice's words, without the raw run id), the milestones it told,
 * and the assistant's answer to its completion.
 */
export function BackgroundEntry({
  entry,
  context,
}: {
  entry: Extract<ChatEntry, { kind: "background" }>;
  context: MessageContext;
}): ReactNode {
  const run = Object.hasOwn(context.runsById, entry.runId) ? context.runsById[entry.runId] : undefined;
  const ids = [entry.runId];
  const completion = [...entry.notices].reverse().find((notice) => notice.role === "user");
  const milestones = entry.notices.filter((notice) => notice.role !== "user");
  let line: ReactNode;
  if (run && (completion || run.status === "running" || run.status === "starting")) {
    const outcome = resultText(run, context.actions.cancelledHere(run.runId) ? "you" : "elsewhere");
    line = (
      <>
        <strong>{runName(run)}</strong> <span className={`badge s-${run.status}`}>{STATUS_LABELS[run.status]}</span>
        {outcome !== "" && <span className="bg-outcome"> {outcome}</span>}
      </>
    );
  } else {
    line = withoutRunIds(textOf(completion ?? (entry.notices.at(-1) as UIMessage)), ids);
  }
  return (
    <li className="msg background" data-message-id={entry.key} data-background-run-id={entry.runId}>
      <div className="role">Background task</div>
      <p className="bg-line">{line}</p>
      {milestones.length > 0 && (
        <ul className="bg-milestones">
          {milestones.map((notice) => (
            <li key={notice.id}>{withoutRunIds(textOf(notice), ids)}</li>
          ))}
        </ul>
      )}
      {entry.reply && (
        <div className="bg-reply" data-message-id={entry.reply.id}>
          <div className="role">Assistant</div>
          <MessageParts
            message={entry.reply}
            context={{ ...context, backgroundRunIds: [...context.backgroundRunIds, ...ids] }}
          />
        </div>
      )}
    </li>
  );
}
