// The run registry: the facade, its options, the run machine as data, the driver per run, admission, transitions, replay, the extension seam.
export type { AgentToolChildReference } from "./agent-type.js";
export { resolveAgentType } from "./agent-type.js";
export { INPUT_PREVIEW_MAX_CHARS, inputByteLength, makeInputPreview } from "./input-preview.js";
export { DEFAULT_FOLLOW_WRITE_INTERVAL_MS } from "./position-writer.js";
export type {
  ActivityListener,
  CancelHandler,
  RegistryExtension,
  RegistryExtensionOptions,
  RunFollow,
  StopDecision,
} from "./registry-extension.js";
export type {
  AgentToolHooks,
  AgentToolRegistryOptions,
  AgentToolRunOutcome,
  AgentToolTraceRequest,
  ClearAgentToolRunsOptions,
  ReplayOptions,
  RunAgentToolOptions,
  RunFinishedListener,
  StartAgentToolRunResult,
} from "./registry-options.js";
export { DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES } from "./registry-options.js";
export type { ReplayPlan } from "./replay-runs.js";
export { planReplay } from "./replay-runs.js";
export { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./run-frames.js";
export type {
  AdmissionDecision,
  AdmissionInput,
  AdmissionRequest,
  FollowedPosition,
  TerminalDecision,
  TerminalRunRecord,
} from "./run-machine.js";
export {
  childOutcome,
  decideAdmission,
  decideTerminal,
  isFinishHookPending,
  isReattachable,
  needsStart,
  startAcknowledgedPatch,
} from "./run-machine.js";
export type { RunRecord, RunRecordPatch } from "./run-record.js";
export { applyRunPatch, hasAttention, toRunInfo } from "./run-record.js";
export { AgentToolRegistry } from "./run-registry.js";
export { failure, toAgentToolResult, toLifecycleResult } from "./run-result.js";
export type { TailRetryDecision, TailRetryPolicy, TailRetryState } from "./tail-retry-policy.js";
export { DEFAULT_TAIL_RETRY_POLICY, nextTailRetry } from "./tail-retry-policy.js";
