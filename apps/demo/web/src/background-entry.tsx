import { type AgentToolRunState, readChatMessageRun } from "@agent-tools/react";
import type { UIMessage } from "ai";
import type { ReactNode } from "react";
import type { ChatEntry } from "./chat-entries.js";
import { CANCEL_LABELS, resultText, runName, STATUS_LABELS, withoutRunIds } from "./format.js";

type AgentToolRunStatus = AgentToolRunState["status"];

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
  const cancelledHere = context.actions.cancelledHere(entry.runId);
  // How the run stands: from its live state while the page has it, else from what the server's notice says of it
  // (`metadata.run`: the page may have cleared the run, or never seen it), else the notice's words.
  const told = readChatMessageRun(completion ?? (entry.notices.at(-1) as UIMessage));
  let line: ReactNode;
  if (run && (completion || run.status === "running" || run.status === "starting")) {
    line = (
      <RunLine name={runName(run)} status={run.status} outcome={resultText(run, cancelledHere ? "you" : "elsewhere")} />
    );
  } else if (told) {
    const outcome = told.status === "aborted" && cancelledHere ? CANCEL_LABELS.you : (told.outcome ?? "");
    line = <RunLine name={told.name} status={told.status} outcome={withoutRunIds(outcome, ids)} />;
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
          <MessageParts message={entry.reply} context={{ ...context, runIds: [...context.runIds, ...ids] }} />
        </div>
      )}
    </li>
  );
}

/** A run's name, how it stands, and its outcome, in one line. */
function RunLine({ name, status, outcome }: { name: string; status: AgentToolRunStatus; outcome: string }): ReactNode {
  return (
    <>
      <strong>{name}</strong> <span className={`badge s-${status}`}>{STATUS_LABELS[status]}</span>
      {outcome !== "" && <span className="bg-outcome"> {outcome}</span>}
    </>
  );
}
