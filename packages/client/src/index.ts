// @agent-tools/client: a parent's event socket (createAgentToolConnection, reconnecting with gap-free cursors, shared
// by URL through a pool), drill-in to one run (createAgentToolDrillIn), the pure reducers and the store they feed,
// and the few wire-protocol names a client needs.
export type {
  AgentToolCursors,
  AgentToolDrillInFrame,
  AgentToolEventFrame,
  AgentToolProgressSnapshot,
  AgentToolRunInspection,
} from "@agent-tools/core-runs/protocol";
export { AGENT_TOOL_CURSORS_PARAM, encodeAgentToolCursors } from "@agent-tools/core-runs/protocol";
export type {
  AgentToolConnection,
  AgentToolConnectionOptions,
  AgentToolConnectionSnapshot,
} from "./agent-tool-connection.js";
export { createAgentToolConnection } from "./agent-tool-connection.js";
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
export type { UIMessageAssembly, UIMessageParts } from "./apply-ui-message-chunk.js";
export { applyUIMessageChunk, assembleUIMessageParts, createUIMessageAssembly } from "./apply-ui-message-chunk.js";
export { resolveDrillInUrl, withAgentToolCursors } from "./connect-url.js";
export type { AgentToolDrillInState } from "./drill-in-state.js";
export { applyAgentToolDrillInFrame, createAgentToolDrillInState } from "./drill-in-state.js";
export type { Clock, TimerHandle } from "./ports/clock.js";
export { systemClock } from "./ports/clock.js";
export type { WebSocketConstructor, WebSocketLike, WebSocketLikeEvent } from "./ports/web-socket.js";
export type { ReconnectOptions } from "./reconnect-delay.js";
export { reconnectDelay } from "./reconnect-delay.js";
export type { AgentToolConnectionStatus } from "./reconnecting-socket.js";
export type { AgentToolRunState, AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
export { applyAgentToolEvent, createAgentToolTimelineState, defaultDrillInUrl } from "./run-timeline.js";
export { selectAgentToolCursors, selectRunsForToolCall, selectUnboundRuns } from "./timeline-selectors.js";
