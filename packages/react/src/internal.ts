// "@agent-tools/react/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/react".
export type { AgentChatLike } from "@agent-tools/client";
export { memoryUnsentStorage, webStorageUnsentStorage } from "@agent-tools/client";
export type {
  AgentChatAnswerUsage,
  AgentChatSyncSnapshot,
  AgentChatTurn,
  AgentChatUnsentReason,
  AgentChatUnsentStorage,
  AgentToolApprovalStatus,
  AgentToolConnectionPool,
  AgentToolDrillInSnapshot,
  AgentToolTimelineState,
} from "@agent-tools/client/internal";
export type {
  AgentToolEventSource,
  AgentToolMessageEvent,
  AgentToolMessageListener,
} from "./agent-tool-event-source.js";
export type { UseAgentChatSyncOptions, UseAgentChatSyncResult } from "./use-agent-chat-sync.js";
export type { UseAgentToolEventsResult } from "./use-agent-tool-events.js";
export type { UseAgentToolRunOptions, UseAgentToolRunResult } from "./use-agent-tool-run.js";
export type { AgentToolApprovalOptions, AnswerAgentToolApproval } from "./use-answer-approval.js";
export type { UseAgentToolEventsOptions } from "./use-events-source.js";
