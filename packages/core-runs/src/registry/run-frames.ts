import type { UIMessageChunk } from "ai";
import {
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolChunkEvent,
  type AgentToolEventFrame,
  type AgentToolLifecycleEvent,
  type AgentToolLogEntry,
  isTerminalStatus,
  type TerminalRunStatus,
} from "../protocol/index.js";
import type { RunRecord } from "./run-record.js";

const withParent = (record: RunRecord) =>
  record.parentToolCallId !== undefined ? { parentToolCallId: record.parentToolCallId } : {};
const replayFlag = (replay: boolean) => (replay ? { replay: true as const } : {});

/** The `started` frame of a run: always revision 1, the run's first status. */
export function startedFrame(record: RunRecord, replay = false): AgentToolEventFrame {
  return {
    type: AGENT_TOOL_EVENT_TYPE,
    ...withParent(record),
    revision: 1,
    ...replayFlag(replay),
    event: {
      kind: "started",
      runId: record.runId,
      agentType: record.agentType,
      displayOrder: record.displayOrder,
      startedAt: record.startedAt,
      ...(record.inputPreview !== undefined ? { inputPreview: record.inputPreview } : {}),
      ...(record.display !== undefined ? { display: record.display } : {}),
      ...(record.detached === true ? { detached: true as const } : {}),
    },
  };
}

/** The terminal lifecycle frame of a finished run, at its current revision; `null` for a live run. */
export function terminalFrame(record: RunRecord, replay = false): AgentToolEventFrame | null {
  if (!isTerminalStatus(record.status)) return null;
  const status: TerminalRunStatus = record.status;
  const { runId } = record;
  const completedAt = record.completedAt !== undefined ? { completedAt: record.completedAt } : {};
  let event: AgentToolLifecycleEvent;
  switch (status) {
    case "completed":
      event = {
        kind: "finished",
        runId,
        summary: record.summary ?? "",
        ...(record.output !== undefined ? { output: record.output } : {}),
        ...completedAt,
      };
      break;
    case "error":
      event = { kind: "error", runId, error: record.error ?? "The run failed", ...completedAt };
      break;
    case "aborted":
      event = {
        kind: "aborted",
        runId,
        ...(record.error !== undefined ? { error: record.error } : {}),
        ...completedAt,
      };
      break;
    case "interrupted":
      event = {
        kind: "interrupted",
        runId,
        error: record.error ?? "The parent stopped waiting for this run",
        // Only what the row knows: a reader must not mistake a default for the parent's knowledge.
        ...(record.reason !== undefined ? { reason: record.reason } : {}),
        ...(record.childStillRunning !== undefined ? { childStillRunning: record.childStillRunning } : {}),
        ...completedAt,
      };
      break;
  }
  return {
    type: AGENT_TOOL_EVENT_TYPE,
    ...withParent(record),
    revision: record.revision,
    ...replayFlag(replay),
    event,
  };
}

/**
 * A durable chunk frame: the child's sequence, forwarded unchanged. Written out for each case (one per chunk of every
 * run): the same fields in the same order as the other frames, without the objects their spreads make.
 */
export function entryFrame(record: RunRecord, entry: AgentToolLogEntry, replay = false): AgentToolEventFrame {
  const type = AGENT_TOOL_EVENT_TYPE;
  const { sequence } = entry;
  const event: AgentToolChunkEvent = { kind: "chunk", runId: record.runId, body: entry.body };
  const { parentToolCallId } = record;
  if (parentToolCallId === undefined) return replay ? { type, sequence, replay, event } : { type, sequence, event };
  return replay ? { type, parentToolCallId, sequence, replay, event } : { type, parentToolCallId, sequence, event };
}

/** An ephemeral chunk frame (progress): no sequence. */
export function ephemeralFrame(record: RunRecord, body: UIMessageChunk, replay = false): AgentToolEventFrame {
  return {
    type: AGENT_TOOL_EVENT_TYPE,
    ...withParent(record),
    ...replayFlag(replay),
    event: { kind: "chunk", runId: record.runId, body },
  };
}

/** The frame telling clients to forget runs. */
export function clearedFrame(runIds: string[], replay = false): AgentToolEventFrame {
  return { type: AGENT_TOOL_EVENT_TYPE, ...replayFlag(replay), event: { kind: "cleared", runIds } };
}
