// registry
export type { AgentToolOptions, AgentToolOutput, AgentToolPreliminaryOutput } from "./agent-tool.js";
export { agentTool, agentToolModelOutput, agentToolRunId } from "./agent-tool.js";
export type { AgentToolChildReference } from "./agent-type.js";
export { resolveAgentType } from "./agent-type.js";
export type { CompletedSteps } from "./assemble-message.js";
export { assembleMessage, completedSteps } from "./assemble-message.js";
export type { WrappableLanguageModel } from "./budgeted-model.js";
export { budgetedModel, WRAP_UP_INSTRUCTION } from "./budgeted-model.js";
export type {
  AgentToolChildDefinition,
  AgentToolOutputContext,
  AgentToolSummaryContext,
  AgentToolTurnContext,
  AgentToolTurnStream,
} from "./child-definition.js";
export type { FormatAgentToolInput } from "./child-input-message.js";
export { defaultFormatAgentToolInput, inputMessageId, toInputMessage } from "./child-input-message.js";
export type { AgentToolChildRunnerOptions, ChildConversationSnapshot } from "./child-runner.js";
export { AgentToolChildRunner } from "./child-runner.js";
// errors
export type { AgentToolsErrorCode } from "./errors.js";
export { AgentToolsError, errorMessage, toAgentToolsError } from "./errors.js";
export { INPUT_PREVIEW_MAX_CHARS, inputByteLength, makeInputPreview } from "./input-preview.js";
export { decodeLogEntries, encodeLogEntries } from "./log-codec.js";
export type { MergedLogEntry } from "./log-compaction.js";
export { compactRunLog } from "./log-compaction.js";
export type { LogRetention, LogRetentionOptions, LogRetentionReport, RetainLogsPolicy } from "./log-retention.js";
export {
  createLogRetention,
  DEFAULT_LOG_RETENTION_BATCH,
  DEFAULT_LOG_RETENTION_SETTLE_MS,
} from "./log-retention.js";
export { MinHeap } from "./min-heap.js";
export type { ChatHost, SyntheticChatMessage } from "./ports/chat-host.js";
// ports
export type {
  ChildRef,
  ChildStartOptions,
  ChildTransport,
  StartTailOptions,
  TailOptions,
} from "./ports/child-transport.js";
export type { Clock, TimerHandle } from "./ports/clock.js";
export { delay, systemClock } from "./ports/clock.js";
export type { RunEventSink } from "./ports/run-event-sink.js";
export type { RunPosition, RunStore, RunStoreFilter, RunUpdateCondition } from "./ports/run-store.js";
export type { WakeupScheduler } from "./ports/wakeup-scheduler.js";
export { DEFAULT_FOLLOW_WRITE_INTERVAL_MS } from "./position-writer.js";
// protocol (also at "@agent-tools/core-runs/protocol")
export * from "./protocol/index.js";
// the extension seam (detached runs, recovery, a host's own)
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
export type {
  AgentToolCostFunction,
  ModelCallDecision,
  ModelCallUsage,
  RunBudgetOptions,
} from "./run-budget.js";
export { budgetExhaustion, RunBudget, remainingBudget } from "./run-budget.js";
export type { RunEventChannel, RunEventHub, RunEventListener } from "./run-event-hub.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  createRunEventHub,
  getDefaultRunEventHub,
  loadAgentToolDiagnosticsChannel,
} from "./run-event-hub.js";
export type { CoreRunEvent, DispatchRejection, ExtensionRunEvent, RunEvent } from "./run-events.js";
export { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./run-frames.js";
// the run lifecycle as data
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
export { DEFAULT_MAX_RECOVERY_ATTEMPTS } from "./turn-recovery.js";
export { omitVoidedEntries } from "./voided-entry-filter.js";
