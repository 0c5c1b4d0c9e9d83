// @agent-tools/chat: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/chat/internal": not API.

// the engine
export type { ChatTurnContext } from "./chat-engine.js";
export { ChatEngine } from "./chat-engine.js";
export { ChatLimitError } from "./chat-limits.js";
export { handleChatRequest } from "./chat-requests.js";
export { EngineChatHost } from "./detached-chat-host.js";
// ports
export type { ChatStore, StoredChatTurn } from "./ports/chat-store.js";
export { RequestBudget } from "./request-budget.js";
