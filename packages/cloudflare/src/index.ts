// Durable Object adapters of the agent-tools ports

// the durable conversation (the engine is @agent-tools/chat's; what a parent's user needs is re-exported)
export type { ChatLimits, ChatTurnContext } from "@agent-tools/chat";
export { ChatLimitError, DEFAULT_CHAT_LIMITS, INTERRUPTED_TURN_TEXT } from "@agent-tools/chat";
export type { ChatStoreStorage } from "./adapters/durable-object-chat-store.js";
export { CHAT_STORE_TABLES, DurableObjectChatStore } from "./adapters/durable-object-chat-store.js";
export type {
  AgentToolChildChatRpc,
  AgentToolChildRpc,
  AgentToolChildStub,
  AgentToolRunChatOptions,
  AgentToolRunChatResult,
  ChildNamespace,
} from "./adapters/durable-object-child-transport.js";
export { childObjectName, DurableObjectChildTransport } from "./adapters/durable-object-child-transport.js";
export type { DurableObjectRunStoreStorage } from "./adapters/durable-object-run-store.js";
export { DurableObjectRunStore, RUN_STORE_TABLES } from "./adapters/durable-object-run-store.js";
export type { DurableObjectWakeupSchedulerStorage } from "./adapters/durable-object-wakeup-scheduler.js";
export { DurableObjectWakeupScheduler } from "./adapters/durable-object-wakeup-scheduler.js";
export { fromNdjson, NdjsonLines, toNdjson } from "./adapters/ndjson.js";
export { type AgUiOptions, DEFAULT_AG_UI_OPTIONS } from "./ag-ui/ag-ui-streams.js";
// run read tokens
export type {
  RunReadTokenCheck,
  RunReadTokenClaims,
  RunReadTokenKey,
  RunReadTokenRefusal,
} from "./auth/run-read-token.js";
export {
  importRunReadTokenKey,
  isCurrentGeneration,
  MIN_RUN_TOKEN_SECRET_LENGTH,
  runReadTokenStatus,
  signRunReadToken,
  verifyRunReadToken,
} from "./auth/run-read-token.js";
// the child and parent hosts
export { AgentToolChild, DEFAULT_CHILD_WAKE_INTERVAL_MS } from "./child/agent-tool-child.js";
export { AgentToolParent } from "./parent/agent-tool-parent.js";
export type { CancelRequestBody } from "./parent/cancel-request.js";
export { MAX_CANCEL_BODY_BYTES, MAX_CANCEL_REASON_LENGTH, readCancelRequest } from "./parent/cancel-request.js";
export type { ParentEventSocketOptions } from "./parent/event-sockets.js";
export {
  DEFAULT_MAX_PAGE_BYTES,
  DEFAULT_PAGE_REQUEST_BURST,
  DEFAULT_PAGE_REQUEST_REFILL_MS,
} from "./parent/event-sockets.js";
export type { AgentToolParentMcp } from "./parent/mcp-route.js";
export type { ParentChatOptions } from "./parent/parent-chat.js";
export { AgentToolParentDefinition, DEFAULT_PARENT_WAKE_INTERVAL_MS } from "./parent/parent-definition.js";
export type { AgentToolParentRoute } from "./parent/parent-routes.js";
export { PARENT_PATH_SEGMENTS, parseParentRoute } from "./parent/parent-routes.js";
export type { AgentToolParentStaticOptions } from "./parent/parent-static-options.js";
export { DEFAULT_RUN_TOKEN_TTL_MS, RUN_TOKEN_SECRET_BINDING } from "./parent/run-read-tokens.js";
export type { SubAgentChatOptions, SubAgentHandle } from "./parent/sub-agent.js";
export type { SubChatRequestBody } from "./parent/sub-chat-request.js";
export { MAX_SUB_CHAT_BODY_BYTES, readSubChatRequest } from "./parent/sub-chat-request.js";
// routing
export type { AgentToolRequestTarget, AgentToolRouterOptions } from "./routing.js";
export { matchAgentToolPath, routeAgentToolRequest } from "./routing.js";
// WebSockets
export { NO_WEBSOCKET_EXTENSIONS, webSocketUpgrade } from "./websocket-upgrade.js";
