import type { UIMessageChunk } from "ai";
import type { AgentToolInterruptedReason } from "./failure.js";
import type { AgentToolDisplay } from "./run-types.js";

/** The `type` of every agent-tool frame on the parent's client connections. */
export const AGENT_TOOL_EVENT_TYPE = "agent-tool-event";

/** A run was dispatched. Always revision 1. */
export type AgentToolStartedEvent = {
  kind: "started";
  runId: string;
  agentType: string;
  inputPreview?: string;
  displayOrder: number;
  display?: AgentToolDisplay;
  startedAt?: number;
  /** Present (`true`) when the run was dispatched in the background: nobody awaits it inside the tool call. */
  detached?: true;
};

/**
 * One `UIMessageChunk` of the child's turn. Durable chunks (text, tools, milestones) carry the frame's
 * `sequence`; ephemeral progress (`data-agent-progress`) carries none.
 */
export type AgentToolChunkEvent = { kind: "chunk"; runId: string; body: UIMessageChunk };

/** Terminal events carry the server time the run ended (`completedAt`, epoch ms) when known. */
export type AgentToolFinishedEvent = {
  kind: "finished";
  runId: string;
  summary: string;
  output?: unknown;
  completedAt?: number;
};
export type AgentToolErrorEvent = { kind: "error"; runId: string; error: string; completedAt?: number };
export type AgentToolAbortedEvent = { kind: "aborted"; runId: string; error?: string; completedAt?: number };
/** `reason` and `childStillRunning` are sent when the parent knows them (a row written by the registry has both). */
export type AgentToolInterruptedEvent = {
  kind: "interrupted";
  runId: string;
  error: string;
  reason?: AgentToolInterruptedReason;
  childStillRunning?: boolean;
  completedAt?: number;
};
/** Runs the server forgot; clients drop them and ignore late frames for them. */
export type AgentToolClearedEvent = { kind: "cleared"; runIds: string[] };

/** Lifecycle events: applied by a client only when their frame's revision is newer than what it holds. */
export type AgentToolLifecycleEvent =
  | AgentToolStartedEvent
  | AgentToolFinishedEvent
  | AgentToolErrorEvent
  | AgentToolAbortedEvent
  | AgentToolInterruptedEvent;

export type AgentToolEvent = AgentToolLifecycleEvent | AgentToolChunkEvent | AgentToolClearedEvent;

/** The JSON text message a parent sends to its clients. */
export type AgentToolEventFrame<TEvent extends AgentToolEvent = AgentToolEvent> = {
  type: typeof AGENT_TOOL_EVENT_TYPE;
  parentToolCallId?: string;
  /** The child's durable log sequence, forwarded unchanged on every path. Absent on ephemeral frames. */
  sequence?: number;
  /** The run's revision, on lifecycle frames. */
  revision?: number;
  replay?: true;
  event: TEvent;
};

/** True for the lifecycle kinds (`started`, `finished`, `error`, `aborted`, `interrupted`). */
export function isLifecycleEvent(event: AgentToolEvent): event is AgentToolLifecycleEvent {
  return event.kind !== "chunk" && event.kind !== "cleared";
}

/** Serialize a frame to the JSON text the wire carries. */
export function encodeAgentToolFrame(frame: AgentToolEventFrame): string {
  return JSON.stringify(frame);
}
