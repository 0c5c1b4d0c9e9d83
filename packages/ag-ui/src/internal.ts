// "@agent-tools/ag-ui/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/ag-ui".
export { type AgUiEventId, type AgUiResumeStore, formatAgUiEventId, parseAgUiEventId } from "./cursor.js";
export {
  APPROVAL_RESPONSE_SCHEMA,
  interruptIdOf,
  parseApprovalInterruptId,
  TOOL_APPROVAL_REASON,
} from "./interrupts.js";
export { AG_UI_CUSTOM_EVENTS, type LaneState } from "./lane.js";
export type { AgUiProjectionOptions, AgUiProjectionState, AgUiSegment, AgUiTurnState } from "./projection.js";
export type { AgUiRunRequest } from "./run-input.js";
export { AG_UI_DESCENDANT_TYPE, AG_UI_TURN_CHUNK_TYPE, type AgUiSource } from "./sources.js";
export { AG_UI_SSE_CONTENT_TYPE, type AgUiReplayFrom, type AgUiStreamOptions } from "./sse.js";
export { storedAnswerChunks } from "./stored-messages.js";
export { tokenUsage } from "./token-usage.js";
