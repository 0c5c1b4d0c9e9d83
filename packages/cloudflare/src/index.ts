// Durable Object adapters of the agent-tools ports
export type {
  AgentToolChildChatRpc,
  AgentToolChildRpc,
  AgentToolChildStub,
  ChildNamespace,
} from "./adapters/durable-object-child-transport.js";
export { childObjectName, DurableObjectChildTransport } from "./adapters/durable-object-child-transport.js";
export type { DurableObjectRunStoreStorage } from "./adapters/durable-object-run-store.js";
export { DurableObjectRunStore, RUN_STORE_TABLES } from "./adapters/durable-object-run-store.js";
export type { DurableObjectWakeupSchedulerStorage } from "./adapters/durable-object-wakeup-scheduler.js";
export { DurableObjectWakeupScheduler } from "./adapters/durable-object-wakeup-scheduler.js";
export { fromNdjson, NdjsonLines, toNdjson } from "./adapters/ndjson.js";
// run read tokens
export type {
  RunReadTokenCheck,
  RunReadTokenClaims,
  RunReadTokenKey,
  RunReadTokenRefusal,
} from "./auth/run-read-token.js";
export {
  importRunReadTokenKey,
  runReadTokenStatus,
  signRunReadToken,
  verifyRunReadToken,
} from "./auth/run-read-token.js";
// the durable conversation
export type { ChatStoreStorage, ChatTurnOrigin, StoredChatTurn } from "./chat/chat-store.js";
export { CHAT_STORE_TABLES, DurableObjectChatStore } from "./chat/chat-store.js";
export type { ChatTurnContext } from "./chat/chat-turns.js";
export { INTERRUPTED_TURN_TEXT } from "./chat/chat-turns.js";
export type { ChatSendDecision, ChatSendRequest } from "./chat/merge-chat-send.js";
export { mergeChatSend } from "./chat/merge-chat-send.js";
export { DEFAULT_CHAT_WRITE_INTERVAL_MS } from "./chat/turn-log-writer.js";
// the child and parent hosts
export { AgentToolChild, DEFAULT_CHILD_WAKE_INTERVAL_MS } from "./child/agent-tool-child.js";
export type { SubAgentHandle } from "./parent/agent-tool-parent.js";
export {
  AgentToolParent,
  DEFAULT_PARENT_WAKE_INTERVAL_MS,
  DEFAULT_RUN_TOKEN_TTL_MS,
  RUN_TOKEN_SECRET_BINDING,
} from "./parent/agent-tool-parent.js";
export type { CancelRequestBody } from "./parent/cancel-request.js";
export { MAX_CANCEL_REASON_LENGTH, readCancelRequest } from "./parent/cancel-request.js";
export type { AgentToolParentRoute } from "./parent/parent-routes.js";
export { PARENT_PATH_SEGMENTS, parseParentRoute } from "./parent/parent-routes.js";
// routing
export type { AgentToolRequestTarget, AgentToolRouterOptions } from "./routing.js";
export { matchAgentToolPath, routeAgentToolRequest } from "./routing.js";
// WebSockets
export { NO_WEBSOCKET_EXTENSIONS, webSocketUpgrade } from "./websocket-upgrade.js";
