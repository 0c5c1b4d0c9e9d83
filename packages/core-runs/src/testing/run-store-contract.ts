import { describe, it } from "vitest";
import type { RunStore } from "../ports/run-store.js";
import { runStoreContractCases } from "./run-store-contract-cases.js";

/**
 * Register the RunStore contract with vitest: `describe(name)` with one `it` per case of `runStoreContractCases`,
 * each on a fresh store from `createStore`. Call it at the top level of a test file.
 *
 * @example
 * runStoreContract("InMemoryRunStore", () => new InMemoryRunStore());
 */
export function runStoreContract(name: string, createStore: () => RunStore | Promise<RunStore>): void {
  describe(name, () => {
    for (const contractCase of runStoreContractCases) {
      it(contractCase.name, async () => {
        await contractCase.run(await createStore());
      });
    }
  });
}
