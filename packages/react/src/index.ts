// @agent-tools/react: thin React bindings over @agent-tools/client (useSyncExternalStore wrappers).
// What the workspace's own packages share is at "@agent-tools/react/internal" (not API).
export type {
  AgentChatMessageRun,
  AgentToolApproval,
  AgentToolConnection,
  AgentToolRunState,
  AgentToolUsage,
} from "@agent-tools/client";
export {
  answerAgentToolApproval,
  isAgentChatDisconnect,
  MAX_APPROVAL_REASON_LENGTH,
  readChatMessageRun,
  selectAnswerUsage,
  selectPendingApprovals,
} from "@agent-tools/client";
export type {
  AgentChatTurnStatus,
  AgentChatUnsentMessage,
  AgentToolApprovalAnswer,
  AgentToolConnectionStatus,
} from "@agent-tools/client/internal";
export { FAILED_TURN_TEXT, STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "@agent-tools/client/internal";
export { useAgentChatSync } from "./use-agent-chat-sync.js";
export { useAgentToolEvents } from "./use-agent-tool-events.js";
export { useAgentToolRun } from "./use-agent-tool-run.js";
