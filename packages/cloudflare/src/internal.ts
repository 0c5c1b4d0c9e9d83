// "@agent-tools/cloudflare/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/cloudflare".
// the durable conversation (the engine is @agent-tools/chat's; what a parent's user needs is re-exported)
export type { ChatLimits } from "@agent-tools/chat/internal";
export { DEFAULT_CHAT_LIMITS, INTERRUPTED_TURN_TEXT } from "@agent-tools/chat/internal";
export type { ChatStoreStorage } from "./adapters/durable-object-chat-store.js";
export { CHAT_STORE_TABLES } from "./adapters/durable-object-chat-store.js";
export type {
  AgentToolChildChatRpc,
  AgentToolChildRpc,
  AgentToolChildStub,
  AgentToolRunChatOptions,
  AgentToolRunChatResult,
  StartTailAnswer,
} from "./adapters/durable-object-child-transport.js";
export { childObjectName } from "./adapters/durable-object-child-transport.js";
export type { DurableObjectRunStoreStorage } from "./adapters/durable-object-run-store.js";
export { RUN_STORE_TABLES } from "./adapters/durable-object-run-store.js";
export type { DurableObjectWakeupSchedulerStorage } from "./adapters/durable-object-wakeup-scheduler.js";
export { fromNdjson, NdjsonLines, toNdjson } from "./adapters/ndjson.js";
export { fromNdjsonTail, startTailAnswer, toNdjsonTail, toNdjsonTailAnswer } from "./adapters/ndjson-tail.js";
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
} from "./auth/run-read-token.js";
// the child and parent hosts
export { DEFAULT_CHILD_WAKE_INTERVAL_MS } from "./child/agent-tool-child.js";
export type { CancelRequestBody } from "./parent/cancel-request.js";
export { MAX_CANCEL_REASON_LENGTH, readCancelRequest } from "./parent/cancel-request.js";
export type { ParentEventSocketOptions } from "./parent/event-sockets.js";
export {
  DEFAULT_MAX_PAGE_BYTES,
  DEFAULT_PAGE_REQUEST_BURST,
  DEFAULT_PAGE_REQUEST_REFILL_MS,
} from "./parent/event-sockets.js";
export type { AgentToolParentMcp } from "./parent/mcp-route.js";
export type { ParentChatOptions } from "./parent/parent-chat.js";
export { AgentToolParentDefinition, DEFAULT_PARENT_WAKE_INTERVAL_MS } from "./parent/parent-definition.js";
export { PARENT_PATH_SEGMENTS } from "./parent/parent-routes.js";
export type { AgentToolParentStaticOptions } from "./parent/parent-static-options.js";
export { DEFAULT_RUN_TOKEN_TTL_MS, RUN_TOKEN_SECRET_BINDING } from "./parent/run-read-tokens.js";
export type { SubAgentChatOptions, SubAgentHandle } from "./parent/sub-agent.js";
export type { SubChatRequestBody } from "./parent/sub-chat-request.js";
export { readSubChatRequest } from "./parent/sub-chat-request.js";
// routing
export type { AgentToolRequestTarget, AgentToolRouterOptions } from "./routing.js";
export { matchAgentToolPath } from "./routing.js";
// WebSockets
export { NO_WEBSOCKET_EXTENSIONS } from "./websocket-upgrade.js";
