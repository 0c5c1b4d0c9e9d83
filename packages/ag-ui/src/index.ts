export { decodeAgUiCursor, encodeAgUiCursor } from "./cursor.js";
export { AG_UI_CUSTOM_EVENTS, type LaneState } from "./lane.js";
export {
  AgUiProjection,
  type AgUiProjectionOptions,
  type AgUiProjectionState,
  type AgUiSegment,
  type AgUiSource,
  interruptIdOf,
} from "./projection.js";
export { AG_UI_SSE_CONTENT_TYPE, type AgUiStreamOptions, agUiEventStream, agUiResponse } from "./sse.js";
