import type { UIMessage } from "ai";

/** One item of the conversation as the page lists it. */
export type ChatEntry =
  | { kind: "message"; key: string; message: UIMessage }
  | {
      /**
       * What the server told the chat about one background run — its milestones, its completion — and the
       * assistant's answer to the completion, as one item.
       */
      kind: "background";
      key: string;
      runId: string;
      /** The synthetic messages (milestone lines, the completion notice), in order. */
      notices: UIMessage[];
      /** The assistant's answer to the completion, if it came (it may still stream). */
      reply: UIMessage | null;
    };

/** The prefix of the ids `@agent-tools/detached` gives the messages it adds to a chat. */
const DETACHED_PREFIX = "agent-tool:detached:";
const STATUSES = ["completed", "error", "aborted", "interrupted"];

/**
 * The background run a synthetic message is about: its id is `agent-tool:detached:<runId>:<status>` (a completion)
 * or `agent-tool:detached:<runId>:milestone:<name>`; `null` for any other message. Only messages the server marks
 * with `metadata.source` count (a user cannot make one).
 */
export function backgroundRunIdOf(message: UIMessage): string | null {
  const source = (message.metadata as { source?: unknown } | undefined)?.source;
  if (typeof source !== "string" || !message.id.startsWith(DETACHED_PREFIX)) return null;
  const rest = message.id.slice(DETACHED_PREFIX.length);
  const milestoneAt = rest.lastIndexOf(":milestone:");
  if (milestoneAt > 0) return rest.slice(0, milestoneAt);
  const statusAt = rest.lastIndexOf(":");
  if (statusAt > 0 && STATUSES.includes(rest.slice(statusAt + 1))) return rest.slice(0, statusAt);
  return null;
}

/**
 * The conversation as entries: messages as they are, except that what the server adds about a background run —
 * consecutive milestone lines and its completion notice — and the assistant's answer right after a completion
 * notice make one entry, so a background completion adds one item to the chat.
 */
export function chatEntries(messages: readonly UIMessage[]): ChatEntry[] {
  const entries: ChatEntry[] = [];
  for (const message of messages) {
    const last = entries.at(-1);
    const runId = backgroundRunIdOf(message);
    if (runId !== null) {
      if (last?.kind === "background" && last.runId === runId && last.reply === null) {
        last.notices.push(message);
      } else {
        entries.push({ kind: "background", key: message.id, runId, notices: [message], reply: null });
      }
      continue;
    }
    const answersCompletion =
      last?.kind === "background" &&
      last.reply === null &&
      message.role === "assistant" &&
      last.notices.at(-1)?.role === "user";
    if (answersCompletion) {
      last.reply = message;
      continue;
    }
    entries.push({ kind: "message", key: message.id, message });
  }
  return entries;
}

/**
 * The run ids a conversation names: the background runs it was told about, and the runs its tool calls' results name
 * (a background run started, a child's failure). The page leaves them out of the text it shows (the run's name says
 * which run it is), also once the runs are cleared and the page no longer knows them.
 */
export function conversationRunIds(messages: readonly UIMessage[]): string[] {
  const ids = new Set<string>();
  for (const message of messages) {
    const background = backgroundRunIdOf(message);
    if (background !== null) ids.add(background);
    for (const part of message.parts) {
      if (!("toolCallId" in part) || part.state !== "output-available") continue;
      const runId = (part.output as { runId?: unknown } | null)?.runId;
      if (typeof runId === "string" && runId !== "") ids.add(runId);
    }
  }
  return [...ids];
}
