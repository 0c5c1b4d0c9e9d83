import { describe, it } from "vitest";
import type { ChatStore } from "../ports/chat-store.js";
import { chatStoreContractCases } from "./chat-store-contract-cases.js";

/**
 * Register the ChatStore contract with vitest: `describe(name)` with one `it` per case of `chatStoreContractCases`,
 * each on a fresh store from `createStore`. Call it at the top level of a test file.
 *
 * @example
 * chatStoreContract("InMemoryChatStore", () => new InMemoryChatStore());
 */
export function chatStoreContract(name: string, createStore: () => ChatStore | Promise<ChatStore>): void {
  describe(name, () => {
    for (const contractCase of chatStoreContractCases) {
      it(contractCase.name, async () => {
        await contractCase.run(await createStore());
      });
    }
  });
}
