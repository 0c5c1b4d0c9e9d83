// DurableObjectChatStore keeps the ChatStore contract inside workerd: the same cases the in-memory store passes in
// Node, values of several MB (split across rows) among them.
import { fileURLToPath } from "node:url";
import { chatStoreContractCases } from "@agent-tools/chat/testing";
import { describe, expect, it } from "vitest";
import { CONTRACT_WORKER_DURABLE_OBJECTS, type ContractCaseResult } from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

describe("DurableObjectChatStore passes the ChatStore contract inside workerd", () => {
  it("the worker bundles the same contract cases as Node imports", async () => {
    const names = await worker().fetchJson<string[]>("/chat-contract/cases");
    expect(names).toEqual(chatStoreContractCases.map((contractCase) => contractCase.name));
    expect(names.length).toBeGreaterThan(0);
  });

  for (const { name } of chatStoreContractCases) {
    it(name, async () => {
      const result = await worker().fetchJson<ContractCaseResult>(
        `/chat-contract/run?case=${encodeURIComponent(name)}`,
        {
          method: "POST",
        },
      );
      if (!result.ok) expect.fail(result.error);
    });
  }
});
