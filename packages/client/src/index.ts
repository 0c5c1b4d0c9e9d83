// @agent-tools/client: a parent's event socket (createAgentToolConnection, reconnecting with gap-free cursors, shared
// by URL through a pool), drill-in to one run (createAgentToolDrillIn), the parent's conversation kept in step across
// tabs and reconnects (createAgentChatSync), the pure reducers and the store they feed, and the few wire-protocol
// names a client needs.
export type {
  AgentChatEvent,
  AgentChatMessageRun,
  AgentChatTurnStatus,
  AgentToolApproval,
  AgentToolApprovalAnswer,
  AgentToolApprovalStatus,
  AgentToolCursors,
  AgentToolDrillInFrame,
  AgentToolEventFrame,
  AgentToolFrameAcceptance,
  AgentToolFrameCursor,
  AgentToolProgressSnapshot,
  AgentToolRunInspection,
  AgentToolUsage,
} from "@agent-tools/core-runs/protocol";
export {
  AGENT_TOOL_CURSORS_PARAM,
  acceptAgentToolFrame,
  encodeAgentToolCursors,
  FAILED_TURN_TEXT,
  MAX_APPROVAL_REASON_LENGTH,
  NO_FRAMES_ACCEPTED,
  readChatMessageRun,
  STOPPED_TOOL_CALL_TEXT,
  TERMINAL_STATUS_OF_KIND,
  UNFINISHED_TOOL_CALL_TEXT,
} from "@agent-tools/core-runs/protocol";
export type {
  AgentChatLike,
  AgentChatStatus,
  AgentChatSync,
  AgentChatSyncOptions,
  AgentChatSyncSnapshot,
  AgentChatTurn,
} from "./agent-chat-sync.js";
export { createAgentChatSync, INITIAL_AGENT_CHAT_SYNC_SNAPSHOT } from "./agent-chat-sync.js";
export type {
  AgentToolConnection,
  AgentToolConnectionOptions,
  AgentToolConnectionSnapshot,
  AgentToolOlderRuns,
} from "./agent-tool-connection.js";
export { createAgentToolConnection, DEFAULT_AGENT_TOOL_PAGE } from "./agent-tool-connection.js";
export type {
  AgentToolConnectionLease,
  AgentToolConnectionPool,
  AgentToolConnectionPoolOptions,
} from "./agent-tool-connection-pool.js";
export { createAgentToolConnectionPool } from "./agent-tool-connection-pool.js";
export type { AgentToolDrillIn, AgentToolDrillInOptions, AgentToolDrillInSnapshot } from "./agent-tool-drill-in.js";
export { createAgentToolDrillIn } from "./agent-tool-drill-in.js";
export type { AgentToolStore } from "./agent-tool-store.js";
export { createAgentToolStore } from "./agent-tool-store.js";
export type { AgentToolApprovalRequest } from "./answer-approval.js";
export { answerAgentToolApproval } from "./answer-approval.js";
export type { AgentChatAnswerUsage } from "./answer-usage.js";
export { selectAnswerUsage } from "./answer-usage.js";
export type { UIMessageAssembly, UIMessageParts } from "./apply-ui-message-chunk.js";
export { applyUIMessageChunk, assembleUIMessageParts, createUIMessageAssembly } from "./apply-ui-message-chunk.js";
export { isAgentChatDisconnect } from "./chat-disconnect.js";
export type { AgentChatEventListener } from "./chat-event-channel.js";
export { resolveDrillInUrl, withAgentToolCursors, withAgentToolPage } from "./connect-url.js";
export type { AgentToolDrillInState } from "./drill-in-state.js";
export { applyAgentToolDrillInFrame, createAgentToolDrillInState } from "./drill-in-state.js";
export { isSameConversation, mergeStoredConversation, upsertChatMessage } from "./merge-chat-messages.js";
export { agentChatMessagesUrl, agentChatStopUrl, agentToolApproveUrl, agentToolCancelUrl } from "./parent-chat-urls.js";
export type { Clock, TimerHandle } from "./ports/clock.js";
export { systemClock } from "./ports/clock.js";
export type {
  AgentChatUnsentReason,
  AgentChatUnsentRecord,
  AgentChatUnsentStorage,
  WebStorageLike,
} from "./ports/unsent-storage.js";
export { memoryUnsentStorage, webStorageUnsentStorage } from "./ports/unsent-storage.js";
export type { WebSocketConstructor, WebSocketLike, WebSocketLikeEvent } from "./ports/web-socket.js";
export type { ReconnectOptions } from "./reconnect-delay.js";
export { reconnectDelay } from "./reconnect-delay.js";
export type { AgentToolConnectionStatus } from "./reconnecting-socket.js";
export { selectPendingApprovals } from "./run-approvals.js";
export type { AgentToolRunState, AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
export { applyAgentToolEvent, createAgentToolTimelineState, defaultDrillInUrl } from "./run-timeline.js";
export { selectAgentToolCursors, selectRunsForToolCall, selectUnboundRuns } from "./timeline-selectors.js";
export type { AgentChatUnsentMessage } from "./unsent-messages.js";
