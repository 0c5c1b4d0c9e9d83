import { describe, it } from "vitest";
import type { ChildTransport } from "../ports/child-transport.js";
import { childTransportContractCases } from "./child-transport-contract-cases.js";

/**
 * Register the child transport contract as vitest tests. `create` gives a transport whose child side has
 * `contractChildDefinition` registered under `CONTRACT_CHILD_AGENT_TYPE`.
 */
export function childTransportContract(name: string, create: () => ChildTransport | Promise<ChildTransport>): void {
  describe(name, () => {
    for (const contractCase of childTransportContractCases) {
      it(contractCase.name, async () => {
        const transport = await create();
        let next = 0;
        await contractCase.run(transport, () => {
          next += 1;
          return `contract-${next}`;
        });
      });
    }
  });
}
