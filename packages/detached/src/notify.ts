import type { AgentToolLifecycleResult, AgentToolRunInfo, ChatHost } from "@agent-tools/core-runs";
import type { TerminalRunStatus } from "@agent-tools/core-runs/protocol";
import { detachedRunName, messageRun } from "./message-run.js";

/** `metadata.source` of the messages this package injects, unless told otherwise. */
export const DEFAULT_DETACHED_SOURCE = "agent-tool:detached";

/** `notify: true | { source }`: on finish, tell the chat (a user-role message the model answers). */
export type DetachedNotifyOption = true | { source?: string };

/** The text of a completion message; an empty string sends nothing. */
export type FormatDetachedCompletion = (run: AgentToolRunInfo, result: AgentToolLifecycleResult) => string;

/** The id of the completion message for `(runId, status)`: a second delivery merges with the first. */
export function completionMessageId(runId: string, status: TerminalRunStatus): string {
  return `${DEFAULT_DETACHED_SOURCE}:${runId}:${status}`;
}

/** Default completion text: what ran, how it ended, and its summary or error. */
export const defaultFormatDetachedCompletion: FormatDetachedCompletion = (run, result) => {
  const name = detachedRunName(run);
  const task = `Background task ${name} (${run.runId})`;
  switch (result.status) {
    case "completed":
      return result.summary ? `${task} completed: ${result.summary}` : `${task} completed.`;
    case "error":
      return `${task} failed: ${result.error ?? "unknown error"}`;
    case "aborted":
      return `${task} was cancelled.`;
    case "interrupted":
      return `${task} was interrupted (${result.reason ?? "unknown reason"}): ${result.error ?? ""}`.trimEnd();
  }
};

/** The source `notify` resolves to. */
export function notifySource(option: DetachedNotifyOption): string {
  return option === true ? DEFAULT_DETACHED_SOURCE : (option.source ?? DEFAULT_DETACHED_SOURCE);
}

/**
 * Tell the chat that a detached run finished, between model turns: append a user-role message (deterministic id
 * per run and status, `metadata.source`) and start a model turn so the model reacts. A message already in the
 * chat (a second delivery) starts no second turn; an empty text sends nothing. Resolves once the turn ended.
 */
export async function notifyChat(
  chatHost: ChatHost,
  run: AgentToolRunInfo,
  result: AgentToolLifecycleResult,
  options: { source: string; format: FormatDetachedCompletion },
): Promise<"appended" | "duplicate" | "suppressed"> {
  const text = options.format(run, result);
  if (text === "") return "suppressed";
  let outcome: "appended" | "duplicate" = "duplicate";
  await chatHost.runBetweenTurns(async () => {
    const id = completionMessageId(run.runId, result.status);
    const about = messageRun(run, { status: result.status, outcome: result.summary ?? result.error });
    const appended = await chatHost.appendMessage({ id, role: "user", text, source: options.source, run: about });
    if (appended) outcome = "appended";
    // A second delivery starts no second turn, unless the first stopped before the model answered (the message is
    // still the chat's last): then the answer is what is left to deliver.
    if (appended || (await isLastMessage(chatHost, id))) await chatHost.startTurn();
  });
  return outcome;
}

/** True when the chat's last message has this id (nothing, not even an answer, came after it). */
export async function isLastMessage(chatHost: ChatHost, id: string): Promise<boolean> {
  const messages = await chatHost.messages();
  return messages.at(-1)?.id === id;
}
