import type { ToolSet } from "ai";
import { wrapToolExecutes } from "./wrap-tools.js";

/** What a journaled tool waits for, from the turn engine. */
export type ToolJournalGate = {
  /** Resolves once the call `toolCallId` is decided and durable (at once for a call from outside a turn). */
  whenDecided(toolCallId: string): Promise<void>;
  /** Journal that the call's execution starts; resolves once that is durable. */
  started(toolCallId: string): Promise<void>;
};

/**
 * The tools, each of which runs only once the journal holds its call (decided) and the start of its execution.
 * Ordering invariant: decided → started (durable) → `execute`. A crash therefore never leaves an effect of a tool for
 * a call the resumed turn does not know, and a call whose execution started without a result runs again with its
 * own `toolCallId` (an agent tool re-attaches to its run; a plain tool can be idempotent by the id). Generator tools
 * stay generators; client-side tools and `needsApproval` are left as they are (the AI SDK asks first).
 */
export function journalTools<TTools extends ToolSet>(tools: TTools, gate: ToolJournalGate): TTools {
  return wrapToolExecutes(tools, {
    async before(_name, _input, { toolCallId }) {
      await gate.whenDecided(toolCallId);
      await gate.started(toolCallId);
    },
  });
}
