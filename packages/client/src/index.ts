// @agent-tools/client: a parent's event socket (createAgentToolConnection, reconnecting with gap-free cursors, shared
// by URL through a pool), drill-in to one run (createAgentToolDrillIn), the parent's conversation kept in step across
// tabs and reconnects (createAgentChatSync), the pure reducers and the store they feed, and the few wire-protocol
// names a client needs.
// What the workspace's own packages share is at "@agent-tools/client/internal" (not API).
export type {
  AgentChatMessageRun,
  AgentToolApproval,
  AgentToolEventFrame,
  AgentToolFrameCursor,
  AgentToolProgressSnapshot,
  AgentToolUsage,
} from "@agent-tools/core-runs/protocol";
export {
  AGENT_TOOL_CURSORS_PARAM,
  acceptAgentToolFrame,
  encodeAgentToolCursors,
  MAX_APPROVAL_REASON_LENGTH,
  NO_FRAMES_ACCEPTED,
  readChatMessageRun,
  TERMINAL_STATUS_OF_KIND,
} from "@agent-tools/core-runs/protocol";
export type { AgentChatLike } from "./agent-chat-sync.js";
export { createAgentChatSync } from "./agent-chat-sync.js";
export type { AgentToolConnection } from "./agent-tool-connection.js";
export { createAgentToolConnection } from "./agent-tool-connection.js";
export { createAgentToolConnectionPool } from "./agent-tool-connection-pool.js";
export { createAgentToolDrillIn } from "./agent-tool-drill-in.js";
export type { AgentToolStore } from "./agent-tool-store.js";
export { createAgentToolStore } from "./agent-tool-store.js";
export { answerAgentToolApproval } from "./answer-approval.js";
export { selectAnswerUsage } from "./answer-usage.js";
export { applyUIMessageChunk, assembleUIMessageParts } from "./apply-ui-message-chunk.js";
export { isAgentChatDisconnect } from "./chat-disconnect.js";
export { applyAgentToolDrillInFrame } from "./drill-in-state.js";
export { mergeStoredConversation, upsertChatMessage } from "./merge-chat-messages.js";
export { agentChatMessagesUrl, agentChatStopUrl, agentToolApproveUrl, agentToolCancelUrl } from "./parent-chat-urls.js";
export type { Clock } from "./ports/clock.js";
export { memoryUnsentStorage, webStorageUnsentStorage } from "./ports/unsent-storage.js";
export { selectPendingApprovals } from "./run-approvals.js";
export type { AgentToolRunState } from "./run-timeline.js";
export { applyAgentToolEvent, createAgentToolTimelineState } from "./run-timeline.js";
export { selectAgentToolCursors, selectRunsForToolCall, selectUnboundRuns } from "./timeline-selectors.js";
