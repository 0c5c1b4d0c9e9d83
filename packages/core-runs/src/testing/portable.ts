// "@agent-tools/core-runs/testing/portable": everything in ./testing that does not need vitest, so a host runtime
// (e.g. workerd) can run the contract cases itself.
export type { ChildTransportContractCase, ContractChildInput } from "./child-transport-contract-cases.js";
export {
  CONTRACT_CHILD_AGENT_TYPE,
  childTransportContractCases,
  contractChildDefinition,
} from "./child-transport-contract-cases.js";
export { assertEqual, assertRejects, assertTrue, ContractAssertionError } from "./contract-assert.js";
export type { InMemoryRunStoreStats } from "./in-memory-run-store.js";
export { InMemoryRunStore } from "./in-memory-run-store.js";
export type { InProcessChildTransportOptions } from "./in-process-child-transport.js";
export { InProcessChildTransport } from "./in-process-child-transport.js";
export type { ManualClockOptions } from "./manual-clock.js";
export { flushMicrotasks, ManualClock } from "./manual-clock.js";
export type { ManualWakeupHandler } from "./manual-wakeup-scheduler.js";
export { ManualWakeupScheduler } from "./manual-wakeup-scheduler.js";
export type { RunStoreContractCase } from "./run-store-contract-cases.js";
export { makeLogEntry, makeRunRecord, runStoreContractCases } from "./run-store-contract-cases.js";
export type { ScriptedRunControl } from "./scripted-child.js";
export { echoChild, ScriptedChild, textChunks } from "./scripted-child.js";
