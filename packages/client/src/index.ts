// The reducer and store: pure, framework-free.

// From the wire protocol, what a client needs to build its own connect URLs and frames.
export type { AgentToolCursors, AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
export { AGENT_TOOL_CURSORS_PARAM, encodeAgentToolCursors } from "@agent-tools/core-runs/protocol";
export type { AgentToolStore } from "./agent-tool-store.js";
export { createAgentToolStore } from "./agent-tool-store.js";
export type { UIMessageAssembly, UIMessageParts } from "./apply-ui-message-chunk.js";
export { applyUIMessageChunk, assembleUIMessageParts, createUIMessageAssembly } from "./apply-ui-message-chunk.js";
export type { AgentToolRunState, AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
export { applyAgentToolEvent, createAgentToolTimelineState, defaultDrillInUrl } from "./run-timeline.js";
export { selectAgentToolCursors, selectRunsForToolCall, selectUnboundRuns } from "./timeline-selectors.js";
