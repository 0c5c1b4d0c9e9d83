// @agent-tools/react: thin React bindings over @agent-tools/client (useSyncExternalStore wrappers).
export type {
  AgentChatAnswerUsage,
  AgentChatLike,
  AgentChatMessageRun,
  AgentChatSyncSnapshot,
  AgentChatTurn,
  AgentChatTurnStatus,
  AgentChatUnsentMessage,
  AgentChatUnsentReason,
  AgentChatUnsentStorage,
  AgentToolApproval,
  AgentToolApprovalAnswer,
  AgentToolApprovalStatus,
  AgentToolConnection,
  AgentToolConnectionPool,
  AgentToolConnectionStatus,
  AgentToolDrillInSnapshot,
  AgentToolRunState,
  AgentToolTimelineState,
  AgentToolUsage,
} from "@agent-tools/client";
export {
  answerAgentToolApproval,
  FAILED_TURN_TEXT,
  isAgentChatDisconnect,
  MAX_APPROVAL_REASON_LENGTH,
  memoryUnsentStorage,
  readChatMessageRun,
  STOPPED_TOOL_CALL_TEXT,
  selectAnswerUsage,
  selectPendingApprovals,
  UNFINISHED_TOOL_CALL_TEXT,
  webStorageUnsentStorage,
} from "@agent-tools/client";
export type {
  AgentToolEventSource,
  AgentToolMessageEvent,
  AgentToolMessageListener,
} from "./agent-tool-event-source.js";
export type { UseAgentChatSyncOptions, UseAgentChatSyncResult } from "./use-agent-chat-sync.js";
export { useAgentChatSync } from "./use-agent-chat-sync.js";
export type { UseAgentToolEventsResult } from "./use-agent-tool-events.js";
export { useAgentToolEvents } from "./use-agent-tool-events.js";
export type { UseAgentToolRunOptions, UseAgentToolRunResult } from "./use-agent-tool-run.js";
export { useAgentToolRun } from "./use-agent-tool-run.js";
export type { AgentToolApprovalOptions, AnswerAgentToolApproval } from "./use-answer-approval.js";
export type { UseAgentToolEventsOptions } from "./use-events-source.js";
