// "@agent-tools/client/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/client".
export type {
  AgentChatEvent,
  AgentChatTurnStatus,
  AgentToolApprovalAnswer,
  AgentToolApprovalStatus,
  AgentToolCursors,
  AgentToolDrillInFrame,
  AgentToolFrameAcceptance,
  AgentToolRunInspection,
} from "@agent-tools/core-runs/protocol";
export { FAILED_TURN_TEXT, STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "@agent-tools/core-runs/protocol";
export type {
  AgentChatStatus,
  AgentChatSync,
  AgentChatSyncOptions,
  AgentChatSyncSnapshot,
  AgentChatTurn,
} from "./agent-chat-sync.js";
export { INITIAL_AGENT_CHAT_SYNC_SNAPSHOT } from "./agent-chat-sync.js";
export type {
  AgentToolConnectionOptions,
  AgentToolConnectionSnapshot,
  AgentToolOlderRuns,
} from "./agent-tool-connection.js";
export { DEFAULT_AGENT_TOOL_PAGE } from "./agent-tool-connection.js";
export type {
  AgentToolConnectionLease,
  AgentToolConnectionPool,
  AgentToolConnectionPoolOptions,
} from "./agent-tool-connection-pool.js";
export type { AgentToolDrillIn, AgentToolDrillInOptions, AgentToolDrillInSnapshot } from "./agent-tool-drill-in.js";
export type { AgentToolApprovalRequest } from "./answer-approval.js";
export type { AgentChatAnswerUsage } from "./answer-usage.js";
export type { UIMessageAssembly, UIMessageParts } from "./apply-ui-message-chunk.js";
export { createUIMessageAssembly } from "./apply-ui-message-chunk.js";
export type { AgentChatEventListener } from "./chat-event-channel.js";
export { resolveDrillInUrl, withAgentToolBatches, withAgentToolCursors, withAgentToolPage } from "./connect-url.js";
export type { AgentToolDrillInState } from "./drill-in-state.js";
export { createAgentToolDrillInState } from "./drill-in-state.js";
export { isSameConversation } from "./merge-chat-messages.js";
export type { TimerHandle } from "./ports/clock.js";
export { systemClock } from "./ports/clock.js";
export type {
  AgentChatUnsentReason,
  AgentChatUnsentRecord,
  AgentChatUnsentStorage,
  WebStorageLike,
} from "./ports/unsent-storage.js";
export type { WebSocketConstructor, WebSocketLike, WebSocketLikeEvent } from "./ports/web-socket.js";
export type { ReconnectOptions } from "./reconnect-delay.js";
export { reconnectDelay } from "./reconnect-delay.js";
export type { AgentToolConnectionStatus } from "./reconnecting-socket.js";
export type { AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
export { defaultDrillInUrl } from "./run-timeline.js";
export type { AgentChatUnsentMessage } from "./unsent-messages.js";
