import { AGENT_USAGE_PART, type AgentToolUsage, readOwnUsage, readUsageChunk } from "@agent-tools/core-runs/protocol";

/** What a turn spent, as its stored answer says: the whole tree's total, and the turn's own share when it is told. */
export type AgentChatAnswerUsage = {
  /** The turn's model and every run below it. */
  readonly usage: AgentToolUsage;
  /** The turn's own model calls (and, as `runs`, the runs it dispatched itself); `null` when not told. */
  readonly own: AgentToolUsage | null;
};

/**
 * What an answer's turn spent, from the answer itself (its `data-agent-usage` part, which the server stores with the
 * answer when its turn ends): so a reload, or a tab opened later, shows it too. `null` for a message without one (an
 * answer still streaming, one stored by an older server). Never throws.
 *
 * @example
 * const spent = selectAnswerUsage(message);
 * if (spent) show(`${spent.usage.inputTokens + spent.usage.outputTokens} tokens`);
 *
 * @experimental New API: it may change without a major version.
 */
export function selectAnswerUsage(message: { readonly parts: readonly unknown[] }): AgentChatAnswerUsage | null {
  for (let index = message.parts.length - 1; index >= 0; index -= 1) {
    const part = message.parts[index];
    if ((part as { type?: unknown } | null)?.type !== AGENT_USAGE_PART) continue;
    const usage = readUsageChunk(part);
    return usage === null ? null : { usage, own: readOwnUsage(part) };
  }
  return null;
}
