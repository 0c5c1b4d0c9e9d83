// "@agent-tools/core-runs/testing": in-memory ports, a manual clock and wake-up scheduler, scripted children, a
// scripted model, and the contract cases, with no test framework: it runs anywhere (Node, workerd, a browser) and
// needs no vitest. The same contracts registered as vitest tests are in "@agent-tools/core-runs/testing/vitest".
export type { ChildTransportContractCase, ContractChildInput } from "./child-transport-contract-cases.js";
export {
  CONTRACT_CHILD_AGENT_TYPE,
  childTransportContractCases,
  contractChildDefinition,
} from "./child-transport-contract-cases.js";
export { assertEqual, assertRejects, assertTrue, ContractAssertionError } from "./contract-assert.js";
export type { InMemoryRunStoreStats } from "./in-memory-run-store.js";
export { InMemoryRunStore } from "./in-memory-run-store.js";
export type { TreeAgent } from "./in-memory-tree.js";
export { InMemoryTree, never, TreeWorld, WorldStop } from "./in-memory-tree.js";
export type { InProcessChildTransportOptions } from "./in-process-child-transport.js";
export { InProcessChildTransport } from "./in-process-child-transport.js";
export type { ManualClockOptions } from "./manual-clock.js";
export { flushMicrotasks, ManualClock, turnEventLoop } from "./manual-clock.js";
export type { ManualWakeupHandler } from "./manual-wakeup-scheduler.js";
export { ManualWakeupScheduler } from "./manual-wakeup-scheduler.js";
export type { RunStoreContractCase } from "./run-store-contract-cases.js";
export { makeLogEntry, makeRunRecord, runStoreContractCases } from "./run-store-contract-cases.js";
export type { ScriptedRunControl } from "./scripted-child.js";
export { echoChild, ScriptedChild, textChunks } from "./scripted-child.js";
// A scripted language model (the AI SDK's mock model, from "ai/test").
export type { ScriptedModelCall, ScriptedModelPart, ScriptedModelStep } from "./scripted-model.js";
export { scriptedModel, scriptedUsage, textStep, toolCallsStep, toolResultsSeen, withUsage } from "./scripted-model.js";
