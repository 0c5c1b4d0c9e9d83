// DurableObjectChatStore keeps the ChatStore contract inside workerd: the same cases the in-memory store passes in
// Node, values of several MB (split across rows) among them.
import { fileURLToPath } from "node:url";
import { chatStoreContractCases } from "@agent-tools/chat/testing";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_WORKER_DURABLE_OBJECTS, type ContractCaseResult } from "./fixtures/contract-worker-api.js";

const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));

let persist: PersistDirectory;
let host: MiniflareHost;

beforeAll(async () => {
  persist = await createPersistDirectory();
  host = await MiniflareHost.start({
    scriptPath: await bundleWorker(CONTRACT_WORKER),
    durableObjects: CONTRACT_WORKER_DURABLE_OBJECTS,
    persistDirectory: persist.path,
  });
});

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
});

describe("DurableObjectChatStore passes the ChatStore contract inside workerd", () => {
  it("the worker bundles the same contract cases as Node imports", async () => {
    const names = await host.fetchJson<string[]>("/chat-contract/cases");
    expect(names).toEqual(chatStoreContractCases.map((contractCase) => contractCase.name));
    expect(names.length).toBeGreaterThan(0);
  });

  for (const { name } of chatStoreContractCases) {
    it(name, async () => {
      const result = await host.fetchJson<ContractCaseResult>(`/chat-contract/run?case=${encodeURIComponent(name)}`, {
        method: "POST",
      });
      if (!result.ok) expect.fail(result.error);
    });
  }
});
