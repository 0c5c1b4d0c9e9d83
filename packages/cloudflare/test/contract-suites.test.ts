// Every port contract of contract-suites.ts, in both environments: in Node against the in-memory implementation
// (registered through the package's own vitest helper, as a user registers theirs), and inside workerd against the
// Durable Object adapter (fixtures/contract-worker.ts bundles the same list).
import { fileURLToPath } from "node:url";
import { InMemoryChatStore } from "@agent-tools/chat/testing";
import { chatStoreContract } from "@agent-tools/chat/testing/vitest";
import { contractChildDefinition, InMemoryRunStore, InProcessChildTransport } from "@agent-tools/core-runs/testing";
import { childTransportContract, runStoreContract } from "@agent-tools/core-runs/testing/vitest";
import { describe, expect, it } from "vitest";
import { CONTRACT_PORTS, type ContractPort, contractCaseNames } from "./contract-suites.js";
import { CONTRACT_WORKER_DURABLE_OBJECTS, type ContractCaseResult } from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

/** Registers a contract's cases, in Node, against its in-memory implementation. */
const IN_NODE: Record<ContractPort, () => void> = {
  RunStore: () =>
    runStoreContract("InMemoryRunStore passes the RunStore contract in Node", () => new InMemoryRunStore()),
  ChildTransport: () =>
    childTransportContract(
      "InProcessChildTransport passes the ChildTransport contract in Node",
      () =>
        new InProcessChildTransport({ children: [contractChildDefinition], createStore: () => new InMemoryRunStore() }),
    ),
  ChatStore: () =>
    chatStoreContract("InMemoryChatStore passes the ChatStore contract in Node", () => new InMemoryChatStore()),
};

/** The Durable Object adapter the contract worker runs each contract against. */
const IN_WORKERD: Record<ContractPort, string> = {
  RunStore: "DurableObjectRunStore",
  ChildTransport: "DurableObjectChildTransport",
  ChatStore: "DurableObjectChatStore",
};

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

for (const port of CONTRACT_PORTS) {
  IN_NODE[port]();

  describe(`${IN_WORKERD[port]} passes the ${port} contract inside workerd`, () => {
    it("the worker bundles the same contract cases as Node imports", async () => {
      const names = await worker().fetchJson<string[]>(`/contracts/cases?port=${port}`);
      expect(names).toEqual(contractCaseNames(port));
      expect(names.length).toBeGreaterThan(0);
    });

    for (const name of contractCaseNames(port)) {
      it(name, async () => {
        const result = await worker().fetchJson<ContractCaseResult>(
          `/contracts/run?port=${port}&case=${encodeURIComponent(name)}`,
          { method: "POST" },
        );
        if (!result.ok) expect.fail(result.error);
      });
    }
  });
}

// A child's own ledger keeps its runs' rows in its log table (`runsInLog`): the same contract, on that layout.
describe("DurableObjectRunStore with runsInLog passes the RunStore contract inside workerd", () => {
  for (const name of contractCaseNames("RunStore")) {
    it(name, async () => {
      const result = await worker().fetchJson<ContractCaseResult>(
        `/contracts/run?port=RunStore&case=${encodeURIComponent(name)}&layout=log`,
        { method: "POST" },
      );
      if (!result.ok) expect.fail(result.error);
    });
  }
});
