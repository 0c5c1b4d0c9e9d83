export { conversationReplay } from "./conversation-replay.js";
export {
  type AgUiEventId,
  type AgUiResumeStore,
  formatAgUiEventId,
  MemoryAgUiResumeStore,
  parseAgUiEventId,
} from "./cursor.js";
export {
  APPROVAL_RESPONSE_SCHEMA,
  approvalInterruptId,
  interruptIdOf,
  parseApprovalInterruptId,
  TOOL_APPROVAL_REASON,
} from "./interrupts.js";
export { AG_UI_CUSTOM_EVENTS, type LaneState } from "./lane.js";
export {
  AgUiProjection,
  type AgUiProjectionOptions,
  type AgUiProjectionState,
  type AgUiSegment,
  type AgUiTurnState,
} from "./projection.js";
export { type AgUiApprovalAnswer, type AgUiRunRequest, readAgUiRunInput } from "./run-input.js";
export {
  AG_UI_DESCENDANT_TYPE,
  AG_UI_TURN_CHUNK_TYPE,
  type AgUiDescendantFrame,
  type AgUiSource,
  type AgUiTurnChunk,
} from "./sources.js";
export {
  AG_UI_SSE_CONTENT_TYPE,
  type AgUiReplayFrom,
  type AgUiStreamOptions,
  agUiEventStream,
  agUiResponse,
} from "./sse.js";
export { storedAnswerChunks } from "./stored-messages.js";
export { tokenUsage } from "./token-usage.js";
