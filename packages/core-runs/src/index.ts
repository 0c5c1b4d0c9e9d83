// registry
export type {
  AgentToolOptions,
  AgentToolOutput,
  AgentToolPreliminaryOutput,
  CompletedSteps,
} from "./agent-tool/index.js";
export {
  agentTool,
  agentToolModelOutput,
  agentToolRunId,
  assembleMessage,
  completedSteps,
} from "./agent-tool/index.js";
export type {
  AgentToolCostFunction,
  ModelCallDecision,
  ModelCallUsage,
  RunBudgetOptions,
  WrappableLanguageModel,
} from "./budget/index.js";
export { budgetExhaustion, budgetedModel, RunBudget, remainingBudget, WRAP_UP_INSTRUCTION } from "./budget/index.js";
export type {
  AgentToolChildDefinition,
  AgentToolChildRunnerOptions,
  AgentToolOutputContext,
  AgentToolSummaryContext,
  AgentToolTurnContext,
  AgentToolTurnStream,
  ChildConversationSnapshot,
  FormatAgentToolInput,
} from "./child/index.js";
export {
  AgentToolChildRunner,
  DEFAULT_MAX_RECOVERY_ATTEMPTS,
  defaultFormatAgentToolInput,
  inputMessageId,
  toInputMessage,
} from "./child/index.js";
// errors
export type { AgentToolsErrorCode } from "./errors.js";
export { AgentToolsError, errorMessage, toAgentToolsError } from "./errors.js";
export type {
  CoreRunEvent,
  DispatchRejection,
  ExtensionRunEvent,
  RunEvent,
  RunEventChannel,
  RunEventHub,
  RunEventListener,
} from "./events/index.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  createRunEventHub,
  getDefaultRunEventHub,
  loadAgentToolDiagnosticsChannel,
} from "./events/index.js";
export type {
  LogRetention,
  LogRetentionOptions,
  LogRetentionReport,
  MergedLogEntry,
  RetainLogsPolicy,
} from "./log/index.js";
export {
  compactRunLog,
  createLogRetention,
  DEFAULT_LOG_RETENTION_BATCH,
  DEFAULT_LOG_RETENTION_SETTLE_MS,
  decodeLogEntries,
  encodeLogEntries,
  omitVoidedEntries,
} from "./log/index.js";
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
// the extension seam (detached runs, recovery, a host's own)
// the run lifecycle as data
export type {
  ActivityListener,
  AdmissionDecision,
  AdmissionInput,
  AdmissionRequest,
  AgentToolChildReference,
  AgentToolHooks,
  AgentToolRegistryOptions,
  AgentToolRunOutcome,
  AgentToolTraceRequest,
  CancelHandler,
  ClearAgentToolRunsOptions,
  FollowedPosition,
  RegistryExtension,
  RegistryExtensionOptions,
  ReplayOptions,
  ReplayPlan,
  RunAgentToolOptions,
  RunFinishedListener,
  RunFollow,
  RunRecord,
  RunRecordPatch,
  StartAgentToolRunResult,
  StopDecision,
  TailRetryDecision,
  TailRetryPolicy,
  TailRetryState,
  TerminalDecision,
  TerminalRunRecord,
} from "./registry/index.js";
export {
  AgentToolRegistry,
  applyRunPatch,
  childOutcome,
  clearedFrame,
  DEFAULT_FOLLOW_WRITE_INTERVAL_MS,
  DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES,
  DEFAULT_TAIL_RETRY_POLICY,
  decideAdmission,
  decideTerminal,
  entryFrame,
  ephemeralFrame,
  failure,
  hasAttention,
  INPUT_PREVIEW_MAX_CHARS,
  inputByteLength,
  isFinishHookPending,
  isReattachable,
  makeInputPreview,
  needsStart,
  nextTailRetry,
  planReplay,
  resolveAgentType,
  startAcknowledgedPatch,
  startedFrame,
  terminalFrame,
  toAgentToolResult,
  toLifecycleResult,
  toRunInfo,
} from "./registry/index.js";
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
