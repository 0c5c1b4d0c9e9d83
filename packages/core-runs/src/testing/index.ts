// "@agent-tools/core-runs/testing": in-memory ports, a manual clock and wake-up scheduler, scripted children, and
// the contract suites as vitest tests. Without vitest, use "@agent-tools/core-runs/testing/portable".
export { childTransportContract } from "./child-transport-contract.js";
export * from "./portable.js";
export { runStoreContract } from "./run-store-contract.js";
// A scripted language model (the AI SDK's mock model); not in ./testing/portable, it loads "ai/test".
export type { ScriptedModelCall, ScriptedModelPart, ScriptedModelStep } from "./scripted-model.js";
export { scriptedModel, scriptedUsage, textStep, toolCallsStep, toolResultsSeen } from "./scripted-model.js";
