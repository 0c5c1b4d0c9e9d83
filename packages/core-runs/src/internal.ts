// "@agent-tools/core-runs/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/core-runs".
export type { AgentToolOutput, CompletedSteps } from "./agent-tool/index.js";
export { agentToolRunId, assembleMessage, completedSteps } from "./agent-tool/index.js";
export type {
  AgentToolCostFunction,
  ModelCallDecision,
  ModelCallUsage,
  RunBudgetOptions,
  WrappableLanguageModel,
} from "./budget/index.js";
export { budgetExhaustion, budgetedModel, RunBudget, remainingBudget, WRAP_UP_INSTRUCTION } from "./budget/index.js";
export type {
  AgentToolChildRunnerOptions,
  AgentToolOutputContext,
  AgentToolSummaryContext,
  ChildConversationSnapshot,
  FormatAgentToolInput,
} from "./child/index.js";
export {
  DEFAULT_MAX_RECOVERY_ATTEMPTS,
  defaultFormatAgentToolInput,
  inputMessageId,
  toInputMessage,
} from "./child/index.js";
// errors
export type { AgentToolsErrorCode } from "./errors.js";
export { errorMessage, toAgentToolsError } from "./errors.js";
export type {
  CoreRunEvent,
  ExtensionRunEvent,
  RunEvent,
  RunEventChannel,
  RunEventHub,
  RunEventListener,
} from "./events/index.js";
export { AGENT_TOOL_DIAGNOSTICS_CHANNEL, createRunEventHub, loadAgentToolDiagnosticsChannel } from "./events/index.js";
export type {
  LogRetention,
  LogRetentionOptions,
  LogRetentionReport,
  MergedLogEntry,
  RetainLogsPolicy,
} from "./log/index.js";
export {
  DEFAULT_LOG_RETENTION_BATCH,
  DEFAULT_LOG_RETENTION_SETTLE_MS,
  omitVoidedEntries,
  tailItemFromJson,
  tailItemToJson,
} from "./log/index.js";
export { MinHeap } from "./min-heap.js";
export type { SyntheticChatMessage } from "./ports/chat-host.js";
// ports
export type { ChildRef } from "./ports/child-transport.js";
export type { RunEventSink } from "./ports/run-event-sink.js";
export type { RunPosition, RunStoreFilter, RunUpdateCondition } from "./ports/run-store.js";
export type { WakeupScheduler } from "./ports/wakeup-scheduler.js";
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
  clearedFrame,
  entryFrame,
  ephemeralFrame,
  hasAttention,
  inputByteLength,
  makeInputPreview,
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
