// "@agent-tools/chat/testing/vitest": the ChatStore contract registered as vitest tests. Only this subpath imports
// vitest; the cases themselves and the in-memory store are in "@agent-tools/chat/testing".
export { chatStoreContract } from "./chat-store-contract.js";
