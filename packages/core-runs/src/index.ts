// registry
export type { AgentToolOptions, AgentToolOutput, AgentToolPreliminaryOutput } from "./agent-tool/agent-tool.js";
export { agentTool, agentToolModelOutput, agentToolRunId } from "./agent-tool/agent-tool.js";
export type { CompletedSteps } from "./agent-tool/assemble-message.js";
export { assembleMessage, completedSteps } from "./agent-tool/assemble-message.js";
export type { WrappableLanguageModel } from "./budget/budgeted-model.js";
export { budgetedModel, WRAP_UP_INSTRUCTION } from "./budget/budgeted-model.js";
export type {
  AgentToolCostFunction,
  ModelCallDecision,
  ModelCallUsage,
  RunBudgetOptions,
} from "./budget/run-budget.js";
export { budgetExhaustion, RunBudget, remainingBudget } from "./budget/run-budget.js";
export type {
  AgentToolChildDefinition,
  AgentToolOutputContext,
  AgentToolSummaryContext,
  AgentToolTurnContext,
  AgentToolTurnStream,
} from "./child/child-definition.js";
export type { FormatAgentToolInput } from "./child/child-input-message.js";
export { defaultFormatAgentToolInput, inputMessageId, toInputMessage } from "./child/child-input-message.js";
export type { AgentToolChildRunnerOptions, ChildConversationSnapshot } from "./child/child-runner.js";
export { AgentToolChildRunner } from "./child/child-runner.js";
export { DEFAULT_MAX_RECOVERY_ATTEMPTS } from "./child/turn-recovery.js";
// errors
export type { AgentToolsErrorCode } from "./errors.js";
export { AgentToolsError, errorMessage, toAgentToolsError } from "./errors.js";
export type { RunEventChannel, RunEventHub, RunEventListener } from "./events/run-event-hub.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  createRunEventHub,
  getDefaultRunEventHub,
  loadAgentToolDiagnosticsChannel,
} from "./events/run-event-hub.js";
export type { CoreRunEvent, DispatchRejection, ExtensionRunEvent, RunEvent } from "./events/run-events.js";
export { decodeLogEntries, encodeLogEntries } from "./log/log-codec.js";
export type { MergedLogEntry } from "./log/log-compaction.js";
export { compactRunLog } from "./log/log-compaction.js";
export type { LogRetention, LogRetentionOptions, LogRetentionReport, RetainLogsPolicy } from "./log/log-retention.js";
export {
  createLogRetention,
  DEFAULT_LOG_RETENTION_BATCH,
  DEFAULT_LOG_RETENTION_SETTLE_MS,
} from "./log/log-retention.js";
export { omitVoidedEntries } from "./log/voided-entry-filter.js";
export { MinHeap } from "./min-heap.js";
export type { ChatHost, SyntheticChatMessage } from "./ports/chat-host.js";
// ports
export type { ChildRef, ChildStartOptions, ChildTransport, TailOptions } from "./ports/child-transport.js";
export type { Clock, TimerHandle } from "./ports/clock.js";
export { delay, systemClock } from "./ports/clock.js";
export type { RunEventSink } from "./ports/run-event-sink.js";
export type { RunPosition, RunStore, RunStoreFilter, RunUpdateCondition } from "./ports/run-store.js";
export type { WakeupScheduler } from "./ports/wakeup-scheduler.js";
// protocol (also at "@agent-tools/core-runs/protocol")
export * from "./protocol/index.js";
export type { AgentToolChildReference } from "./registry/agent-type.js";
export { resolveAgentType } from "./registry/agent-type.js";
export { INPUT_PREVIEW_MAX_CHARS, inputByteLength, makeInputPreview } from "./registry/input-preview.js";
export { DEFAULT_FOLLOW_WRITE_INTERVAL_MS } from "./registry/position-writer.js";
// the extension seam (detached runs, recovery, a host's own)
export type {
  ActivityListener,
  CancelHandler,
  RegistryExtension,
  RegistryExtensionOptions,
  RunFollow,
  StopDecision,
} from "./registry/registry-extension.js";
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
} from "./registry/registry-options.js";
export { DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES } from "./registry/registry-options.js";
export type { ReplayPlan } from "./registry/replay-runs.js";
export { planReplay } from "./registry/replay-runs.js";
export { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./registry/run-frames.js";
// the run lifecycle as data
export type {
  AdmissionDecision,
  AdmissionInput,
  AdmissionRequest,
  FollowedPosition,
  TerminalDecision,
  TerminalRunRecord,
} from "./registry/run-machine.js";
export {
  childOutcome,
  decideAdmission,
  decideTerminal,
  isFinishHookPending,
  isReattachable,
  needsStart,
  startAcknowledgedPatch,
} from "./registry/run-machine.js";
export type { RunRecord, RunRecordPatch } from "./registry/run-record.js";
export { applyRunPatch, hasAttention, toRunInfo } from "./registry/run-record.js";
export { AgentToolRegistry } from "./registry/run-registry.js";
export { failure, toAgentToolResult, toLifecycleResult } from "./registry/run-result.js";
export type { TailRetryDecision, TailRetryPolicy, TailRetryState } from "./registry/tail-retry-policy.js";
export { DEFAULT_TAIL_RETRY_POLICY, nextTailRetry } from "./registry/tail-retry-policy.js";
// the turn engine (a turn on a step journal; @experimental)
export type {
  DecidedCallOptions,
  JournalEntry,
  JournaledApproval,
  JournaledCall,
  JournalFold,
  ResumePlan,
  RunTurnOptions,
  ToolExecuteWrapper,
  ToolJournalGate,
  TurnApprovalRequest,
  TurnHost,
  TurnJournal,
  TurnOutcome,
  TurnStreamContext,
} from "./turn/index.js";
export {
  AGENT_OUTPUT_PART,
  bindChildRuns,
  bindConversationTurns,
  callsNeedingApproval,
  emptyFold,
  foldEntry,
  foldJournal,
  isJournalFact,
  journalTools,
  NOT_RUN_TEXT,
  noToolText,
  outputChunk,
  planResume,
  readOutputChunk,
  ridesAlong,
  runDecidedCall,
  runTurn,
  TreeBinding,
  TurnRecord,
  turnRootId,
  undecidedCalls,
  waitsForNext,
  wrapToolExecutes,
} from "./turn/index.js";
