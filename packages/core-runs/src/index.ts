// @agent-tools/core-runs: run child chat agents as tools. This root is what a user of the package writes (its
// README's examples and API tables); the wire format is also at "@agent-tools/core-runs/protocol", the in-memory
// ports and contract cases at "@agent-tools/core-runs/testing". What the workspace's own packages share is at
// "@agent-tools/core-runs/internal": not API.

// agentTool() for the AI SDK
export type { AgentToolOptions, AgentToolPreliminaryOutput } from "./agent-tool/index.js";
export { agentTool, agentToolModelOutput } from "./agent-tool/index.js";
// the child runner
export type { AgentToolChildDefinition, AgentToolTurnContext, AgentToolTurnStream } from "./child/index.js";
export { AgentToolChildRunner } from "./child/index.js";
// errors
export { AgentToolsError } from "./errors.js";
// events
export type { DispatchRejection } from "./events/index.js";
export { getDefaultRunEventHub } from "./events/index.js";
// a run's log
export { compactRunLog, createLogRetention, decodeLogEntries, encodeLogEntries } from "./log/index.js";
// ports
export type { ChatHost } from "./ports/chat-host.js";
export type { ChildStartOptions, ChildTransport, StartTailOptions, TailOptions } from "./ports/child-transport.js";
export type { Clock, TimerHandle } from "./ports/clock.js";
export { delay, systemClock } from "./ports/clock.js";
export type { RunStore } from "./ports/run-store.js";
// the wire format (all of it at "@agent-tools/core-runs/protocol")
export type {
  AgentChatMessageRun,
  AgentToolApproval,
  AgentToolBudget,
  AgentToolEventFrame,
  AgentToolFailure,
  AgentToolInterruptedReason,
  AgentToolLifecycleResult,
  AgentToolProgressSnapshot,
  AgentToolResult,
  AgentToolRunInfo,
  AgentToolRunInspection,
  AgentToolTailItem,
  AgentToolTree,
  AgentToolUsage,
  DetachedRunAgentToolResult,
  JsonValue,
  RunStatus,
} from "./protocol/index.js";
export {
  AGENT_MILESTONE_PART,
  AGENT_TOOL_CURSORS_PARAM,
  encodeAgentToolCursors,
  encodeAgentToolFrame,
  isAgentToolFailure,
  isVoidedByReset,
  MAX_APPROVAL_REASON_LENGTH,
  mergeApproval,
  narrowBudget,
  nextProgressSnapshot,
  parseAgentToolCursors,
  parseAgentToolFrame,
  readApprovalChunk,
  readApprovalReason,
  readChatMessageRun,
  readProgressChunk,
} from "./protocol/index.js";
// the registry: the facade, the extension seam, and the run lifecycle as data
export type { RegistryExtension } from "./registry/index.js";
export {
  AgentToolRegistry,
  applyRunPatch,
  childOutcome,
  DEFAULT_FOLLOW_WRITE_INTERVAL_MS,
  DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES,
  DEFAULT_TAIL_RETRY_POLICY,
  decideAdmission,
  decideTerminal,
  failure,
  INPUT_PREVIEW_MAX_CHARS,
  isFinishHookPending,
  isReattachable,
  needsStart,
  nextTailRetry,
  planReplay,
} from "./registry/index.js";
