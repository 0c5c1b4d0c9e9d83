// The child runner: a child's run on its own ledger, its turn, inspection, tail, and recovery of a cut turn.
export type {
  AgentToolChildDefinition,
  AgentToolOutputContext,
  AgentToolSummaryContext,
  AgentToolTurnContext,
  AgentToolTurnStream,
} from "./child-definition.js";
export type { FormatAgentToolInput } from "./child-input-message.js";
export { defaultFormatAgentToolInput, inputMessageId, toInputMessage } from "./child-input-message.js";
export type { AgentToolChildRunnerOptions, ChildConversationSnapshot } from "./child-runner.js";
export { AgentToolChildRunner } from "./child-runner.js";
export { DEFAULT_MAX_RECOVERY_ATTEMPTS } from "./turn-recovery.js";
