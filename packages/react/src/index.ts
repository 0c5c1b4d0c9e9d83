// The types the hook's results are made of (from @agent-tools/client).
export type { AgentToolRunState, AgentToolTimelineState } from "@agent-tools/client";
export type {
  AgentToolEventSource,
  AgentToolMessageEvent,
  AgentToolMessageListener,
  UseAgentToolEventsOptions,
  UseAgentToolEventsResult,
} from "./use-agent-tool-events.js";
export { useAgentToolEvents } from "./use-agent-tool-events.js";
