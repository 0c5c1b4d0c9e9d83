import { chatStoreContract } from "./chat-store-contract.js";
import { InMemoryChatStore } from "./in-memory-chat-store.js";

chatStoreContract("InMemoryChatStore keeps the ChatStore contract", () => new InMemoryChatStore());
