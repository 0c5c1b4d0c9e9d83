// What the workspace's own packages share is at "@agent-tools/ag-ui/internal" (not API).
export { conversationReplay } from "./conversation-replay.js";
export { MemoryAgUiResumeStore } from "./cursor.js";
export { approvalInterruptId } from "./interrupts.js";
export { AgUiProjection } from "./projection.js";
export { type AgUiApprovalAnswer, readAgUiRunInput } from "./run-input.js";
export type { AgUiDescendantFrame, AgUiTurnChunk } from "./sources.js";
export { agUiEventStream, agUiResponse } from "./sse.js";
