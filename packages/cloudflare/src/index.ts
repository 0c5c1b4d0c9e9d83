// @agent-tools/cloudflare: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/cloudflare/internal": not API.

// Durable Object adapters of the agent-tools ports
// the durable conversation (the engine is @agent-tools/chat's; what a parent's user needs is re-exported)
export type { ChatTurnContext } from "@agent-tools/chat";
export { ChatLimitError } from "@agent-tools/chat";
export { DurableObjectChatStore } from "./adapters/durable-object-chat-store.js";
export type { ChildNamespace } from "./adapters/durable-object-child-transport.js";
export { DurableObjectChildTransport } from "./adapters/durable-object-child-transport.js";
export { DurableObjectRunStore } from "./adapters/durable-object-run-store.js";
export { DurableObjectWakeupScheduler } from "./adapters/durable-object-wakeup-scheduler.js";
export { signRunReadToken, verifyRunReadToken } from "./auth/run-read-token.js";
// the child and parent hosts
export { AgentToolChild } from "./child/agent-tool-child.js";
export { AgentToolParent } from "./parent/agent-tool-parent.js";
export { MAX_CANCEL_BODY_BYTES } from "./parent/cancel-request.js";
export type { AgentToolParentRoute } from "./parent/parent-routes.js";
export { parseParentRoute } from "./parent/parent-routes.js";
export { MAX_SUB_CHAT_BODY_BYTES } from "./parent/sub-chat-request.js";
export { routeAgentToolRequest } from "./routing.js";
// WebSockets
export { webSocketUpgrade } from "./websocket-upgrade.js";
