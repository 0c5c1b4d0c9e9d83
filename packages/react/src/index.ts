// The reducer and store: framework-free, usable without React.

export type { AgentToolStore } from "./agent-tool-store.js";
export { createAgentToolStore } from "./agent-tool-store.js";
export type { UIMessageAssembly, UIMessageParts } from "./apply-ui-message-chunk.js";
export { applyUIMessageChunk, assembleUIMessageParts, createUIMessageAssembly } from "./apply-ui-message-chunk.js";
export type { AgentToolRunState, AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
export {
  applyAgentToolEvent,
  createAgentToolTimelineState,
  defaultDrillInUrl,
  selectAgentToolCursors,
  selectRunsForToolCall,
  selectUnboundRuns,
} from "./run-timeline.js";
// The React hook.
export type {
  AgentToolEventSource,
  AgentToolMessageEvent,
  AgentToolMessageListener,
  UseAgentToolEventsOptions,
  UseAgentToolEventsResult,
} from "./use-agent-tool-events.js";
export { useAgentToolEvents } from "./use-agent-tool-events.js";
