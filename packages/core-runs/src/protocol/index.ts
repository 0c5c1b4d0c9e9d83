export { foldApprovalStates, isAnsweredApproval, mergeApproval, withLatestApprovals } from "./approval-state.js";
export type {
  AgentToolApproval,
  AgentToolApprovalAnswer,
  AgentToolApprovalStatus,
  ApprovalReasonReading,
} from "./approvals.js";
export {
  AGENT_APPROVAL_PART,
  approvalChunk,
  MAX_APPROVAL_REASON_LENGTH,
  readApprovalChunk,
  readApprovalReason,
} from "./approvals.js";
export {
  AGENT_TOOL_BATCH_PARAM,
  AGENT_TOOL_BATCH_VERSION,
  asksForAgentToolBatches,
  MAX_AGENT_TOOL_BATCH_LENGTH,
  packAgentToolBatches,
  unpackAgentToolMessage,
} from "./batches.js";
export type { AgentChatEvent, AgentChatEventFrame, AgentChatTurnStatus } from "./chat-events.js";
export {
  AGENT_CHAT_EVENT_TYPE,
  encodeAgentChatEventFrame,
  FAILED_TURN_TEXT,
  parseAgentChatEventFrame,
  STOPPED_TOOL_CALL_TEXT,
  UNFINISHED_TOOL_CALL_TEXT,
} from "./chat-events.js";
export type { AgentChatMessageRun } from "./chat-message-run.js";
export { readChatMessageRun } from "./chat-message-run.js";
export type { AgentToolCursor, AgentToolCursors } from "./cursors.js";
export { AGENT_TOOL_CURSORS_PARAM, encodeAgentToolCursors, parseAgentToolCursors } from "./cursors.js";
export { definedProps } from "./defined-props.js";
export type {
  AgentToolChildChunkFrame,
  AgentToolChildMessagesFrame,
  AgentToolDrillInFrame,
  ParseAgentToolDrillInFrameResult,
} from "./drill-in.js";
export {
  AGENT_TOOL_CHILD_CHUNK_TYPE,
  AGENT_TOOL_CHILD_MESSAGES_TYPE,
  encodeAgentToolDrillInFrame,
  parseAgentToolDrillInFrame,
  readUIMessageChunkBody,
} from "./drill-in.js";
export type {
  AgentToolFailure,
  AgentToolInterruptedReason,
  AgentToolPartialResult,
  AgentToolResult,
  AgentToolSuccess,
  DispatchRejection,
} from "./failure.js";
export { AGENT_TOOL_INTERRUPTED_REASONS, isAgentToolFailure, isAgentToolInterruptedReason } from "./failure.js";
export type { AgentToolFrameAcceptance, AgentToolFrameCursor } from "./frame-acceptance.js";
export { acceptAgentToolFrame, NO_FRAMES_ACCEPTED, TERMINAL_STATUS_OF_KIND } from "./frame-acceptance.js";
export type {
  AgentToolAbortedEvent,
  AgentToolChunkEvent,
  AgentToolClearedEvent,
  AgentToolErrorEvent,
  AgentToolEvent,
  AgentToolEventFrame,
  AgentToolFinishedEvent,
  AgentToolInterruptedEvent,
  AgentToolLifecycleEvent,
  AgentToolStartedEvent,
} from "./frames.js";
export { AGENT_TOOL_EVENT_TYPE, encodeAgentToolFrame, isLifecycleEvent } from "./frames.js";
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "./json-value.js";
export type { ParseAgentToolFrameResult } from "./parse-frame.js";
export { parseAgentToolFrame } from "./parse-frame.js";
export {
  AGENT_MILESTONE_PART,
  AGENT_PROGRESS_PART,
  nextProgressSnapshot,
  readMilestoneChunk,
  readProgressChunk,
} from "./progress-parts.js";
export type {
  AgentToolPageFrame,
  AgentToolPageRequest,
  AgentToolRunPosition,
} from "./replay-pages.js";
export {
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_REQUEST_TYPE,
  AGENT_TOOL_PAGE_TYPE,
  encodeAgentToolPosition,
  MAX_AGENT_TOOL_PAGE,
  parseAgentToolPageFrame,
  parseAgentToolPageLimit,
  parseAgentToolPageRequest,
  parseAgentToolPosition,
} from "./replay-pages.js";
export { outputMessageId } from "./run-messages.js";
export type {
  AgentToolDisplay,
  AgentToolEndCause,
  AgentToolLifecycleResult,
  AgentToolLogEntry,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolRunInfo,
  AgentToolRunInspection,
  AgentToolTailItem,
  ChildRunStatus,
  DetachedRunAgentToolResult,
} from "./run-types.js";
export type { HardTerminalRunStatus, LiveRunStatus, RunStatus, TerminalRunStatus } from "./status.js";
export { isHardTerminalStatus, isLiveStatus, isRunStatus, isTerminalStatus, RUN_STATUSES } from "./status.js";
export type { AgentToolStepReset, AgentToolVoidedRange } from "./step-reset.js";
export {
  AGENT_STEP_RESET_PART,
  isVoidedByReset,
  readStepResetChunk,
  stepResetChunk,
  stepResetVoiding,
  voidedRanges,
} from "./step-reset.js";
export { tailItemEntries } from "./tail-items.js";
export { AGENT_TOOL_STARTED_PART, readToolStartedChunk, toolStartedChunk } from "./tool-started.js";
export type { AgentToolTraceContext } from "./trace.js";
export { readAgentToolTraceContext } from "./trace.js";
export type { AgentToolBudget, AgentToolPosition, AgentToolTree, AgentToolTreeNode } from "./tree.js";
export {
  AGENT_TOOL_BUDGET_FIELDS,
  dispatchTree,
  narrowBudget,
  positionOf,
  readAgentToolBudget,
  readAgentToolTree,
  treeDepth,
} from "./tree.js";
export { isObject, stringifyForText } from "./unknown-values.js";
export type { AgentToolBudgetExhaustion, AgentToolModelUsage, AgentToolUsage } from "./usage.js";
export {
  AGENT_USAGE_PART,
  addUsage,
  NO_USAGE,
  readOwnUsage,
  readUsageChunk,
  usageChunk,
  usageTokens,
} from "./usage.js";
