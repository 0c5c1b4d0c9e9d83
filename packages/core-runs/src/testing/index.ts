// "@agent-tools/core-runs/testing": in-memory ports, a manual clock and wake-up scheduler, scripted children, a
// scripted model, and the contract cases, with no test framework: it runs anywhere (Node, workerd, a browser) and
// needs no vitest. The same contracts registered as vitest tests are in "@agent-tools/core-runs/testing/vitest".

export { acceptedFrameIndexes, adversarialRunFrames } from "./adversarial-frames.js";
export type { ChildTransportContractCase, ContractChildInput } from "./child-transport-contract-cases.js";
export {
  CONTRACT_CHILD_AGENT_TYPE,
  childTransportContractCases,
  contractChildDefinition,
} from "./child-transport-contract-cases.js";
export { textDelta, textPartChunks, words } from "./chunks.js";
export { assertEqual, assertRejects, assertTrue, ContractAssertionError } from "./contract-assert.js";
export type {
  ConversationCalls,
  ConversationModelOptions,
  ConversationPrompt,
  ConversationReply,
  ConversationToolResult,
  ConversationUsage,
  ConversationView,
} from "./conversation-model.js";
export { conversationModel, lastToolResults, lastUserText } from "./conversation-model.js";
export { deferred } from "./deferred.js";
export { inMemoryRegistry } from "./in-memory-registry.js";
export type { InMemoryRunStoreStats } from "./in-memory-run-store.js";
export { InMemoryRunStore } from "./in-memory-run-store.js";
export type { InMemoryTreeSetUp, TreeAgent } from "./in-memory-tree.js";
export { InMemoryTree, inMemoryTree, never, TreeWorld, WorldStop } from "./in-memory-tree.js";
export type { InProcessChildTransportOptions } from "./in-process-child-transport.js";
export { InProcessChildTransport } from "./in-process-child-transport.js";
export type { ManualClockOptions } from "./manual-clock.js";
export { flushMicrotasks, ManualClock, turnEventLoop } from "./manual-clock.js";
export type { ManualWakeupHandler } from "./manual-wakeup-scheduler.js";
export { ManualWakeupScheduler } from "./manual-wakeup-scheduler.js";
export type {
  ReadmeExample,
  ReadmeExampleOptions,
  ReadmeExampleRead,
  ReadmeExampleRun,
} from "./readme-example.js";
export { printedBy, readmeExample, readReadmeExample, runReadmeExample } from "./readme-example.js";
export type { RunStoreContractCase } from "./run-store-contract-cases.js";
export { makeLogEntry, makeRunRecord, runStoreContractCases } from "./run-store-contract-cases.js";
export type { ScriptedRunControl } from "./scripted-child.js";
export { echoChild, ScriptedChild, textChunks } from "./scripted-child.js";
// A scripted language model (the AI SDK's mock model, from "ai/test").
export type { ScriptedModelCall, ScriptedModelPart, ScriptedModelStep } from "./scripted-model.js";
export {
  scriptedModel,
  scriptedUsage,
  textStep,
  toolCallsStep,
  toolResultsSeen,
  unitUsage,
  withUsage,
} from "./scripted-model.js";
export { sdkParts } from "./sdk-parts.js";
export { storeWith } from "./store-with.js";
