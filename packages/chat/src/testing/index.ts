// "@agent-tools/chat/testing": the in-memory ChatStore and the ChatStore contract cases, with no test framework (they
// run in Node, workerd or a browser). The same contract registered as vitest tests is in "…/testing/vitest".
export type { ChatStoreContractCase } from "./chat-store-contract-cases.js";
export { chatStoreContractCases, makeChatMessage, makeStoredTurn } from "./chat-store-contract-cases.js";
export type { InMemoryChatStoreStats } from "./in-memory-chat-store.js";
export { InMemoryChatStore } from "./in-memory-chat-store.js";
