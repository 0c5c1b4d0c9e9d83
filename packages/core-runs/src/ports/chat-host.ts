import type { UIMessage } from "ai";
import type { AgentChatMessageRun } from "../protocol/chat-message-run.js";

/** A message a library injects into a chat, tagged with where it came from (`metadata.source`). */
export type SyntheticChatMessage = {
  /** Deterministic, so a second delivery of the same message merges with the first. */
  id: string;
  role: "user" | "assistant";
  text: string;
  /** E.g. `"agent-tool:detached"`; stored on the message as `metadata.source`. */
  source: string;
  /** The run the message is about, if any; stored on the message as `metadata.run` (see `readChatMessageRun`). */
  run?: AgentChatMessageRun;
};

/**
 * What a chat agent offers libraries that talk into its conversation (detached completions, milestones).
 *
 * Guarantees an implementation must give:
 * - `appendMessage` is idempotent by `message.id`: appending an id already in the chat changes nothing and
 *   resolves `false`.
 * - `runBetweenTurns(task)` runs `task` when no model turn is streaming (at once if idle, else right after the
 *   current turn), never inside one; tasks run one at a time in call order.
 * - `startTurn()` starts a model turn over the current messages (the model reacts to what was appended); it
 *   resolves when the turn has ended.
 */
export interface ChatHost {
  appendMessage(message: SyntheticChatMessage): Promise<boolean>;
  runBetweenTurns(task: () => Promise<void>): Promise<void>;
  startTurn(): Promise<void>;
  /** The chat's messages (for idempotency checks and formatting). */
  messages(): Promise<UIMessage[]>;
}
