import { type BaseEvent, EventType, type Interrupt, PROTOCOL_VERSION, type RunFinishedOutcome } from "@ag-ui/core";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_EVENT_TYPE,
  type AgentChatEventFrame,
  type AgentChatTurnStatus,
  type AgentToolEventFrame,
  type AgentToolLifecycleEvent,
  FAILED_TURN_TEXT,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import { AG_UI_CUSTOM_EVENTS, chunkEvents, closeLane, type LaneState, newLane } from "./lane.js";

/** What a projection reads: the parent's run frames and its conversation events, as its event socket carries them. */
export type AgUiSource = AgentToolEventFrame | AgentChatEventFrame;

/**
 * The AG-UI run a stream is in: a turn of the parent's conversation (`turn: true`, its id the turn's), or the runs
 * dispatched outside any turn (from code, or a background run streaming after its turn), under an id of their own.
 */
export type AgUiSegment = {
  runId: string;
  turn: boolean;
  /** The sub-agents live in it, and those that ended in it (an id is never started twice in one AG-UI run). */
  active: string[];
  ended: string[];
  interrupts: Interrupt[];
};

/** Everything a projection holds: what it needs to go on where a stream stopped (see `encodeAgUiCursor`). */
export type AgUiProjectionState = {
  threadId: string;
  segment: AgUiSegment | null;
  lanes: LaneState[];
  /** The turns whose end was projected (the newest ones), so a replayed turn event starts nothing again. */
  endedTurns: string[];
};

export type AgUiProjectionOptions = {
  /** The AG-UI thread: the parent's conversation (e.g. the parent's name). */
  threadId: string;
  /** Where a stream that stopped went on from (`decodeAgUiCursor` of its last event id). */
  state?: AgUiProjectionState;
};

/** The id of the AG-UI interrupt an `interrupted` sub-agent run raises. */
export function interruptIdOf(runId: string): string {
  return `interrupted:${runId}`;
}

const MAX_ENDED_TURNS = 32;

/**
 * Projects a parent's run frames and conversation events to AG-UI 1.0 events. Pure and stateful per stream: it never
 * starts an id twice (a replayed `started`, chunk or terminal that it projected already gives nothing), and what it
 * sends always verifies as an AG-UI stream:
 * - a turn is an AG-UI run: `RUN_STARTED` (run id: the turn id) … `RUN_FINISHED` / `RUN_ERROR`, with the answer's text
 *   and tool calls before its end;
 * - a sub-agent run is `SUBAGENT_STARTED` (`subagentRunId`: the run id, `name`: its agent type, `description`: its
 *   display name, `parentToolCallId`) at dispatch, its child's text, reasoning, tool calls and steps stamped with
 *   `subagentRunId`, then `SUBAGENT_FINISHED` (`completed`, `result`: the summary or output), `SUBAGENT_ERROR`
 *   (`error`, and `aborted` with code `aborted`), or for `interrupted` `SUBAGENT_FINISHED` with the `suspended`
 *   outcome naming an interrupt that the AG-UI run's `RUN_FINISHED` carries (`outcome: interrupt`);
 * - runs outside a turn get an AG-UI run of their own (`agent-tools:<first run id>`), ended when none is live;
 * - a sub-agent still live when its AG-UI run ends is closed `suspended` and continued (started again) in the next.
 */
export class AgUiProjection {
  readonly threadId: string;
  #segment: AgUiSegment | null;
  readonly #lanes = new Map<string, LaneState>();
  #endedTurns: string[];

  constructor(options: AgUiProjectionOptions) {
    this.threadId = options.threadId;
    const state = options.state;
    this.#segment = state?.segment ? structuredClone(state.segment) : null;
    for (const lane of state?.lanes ?? []) this.#lanes.set(lane.runId, structuredClone(lane));
    this.#endedTurns = [...(state?.endedTurns ?? [])];
  }

  /** What the projection holds now (a copy). */
  state(): AgUiProjectionState {
    return structuredClone({
      threadId: this.threadId,
      segment: this.#segment,
      lanes: [...this.#lanes.values()],
      endedTurns: this.#endedTurns,
    });
  }

  /** What every run holds (durable sequence and revision), as the event socket's cursors: for a replay of the rest. */
  cursors(): Record<string, { sequence: number; revision: number }> {
    const cursors: Record<string, { sequence: number; revision: number }> = {};
    for (const lane of this.#lanes.values()) cursors[lane.runId] = { sequence: lane.sequence, revision: lane.revision };
    return cursors;
  }

  /** The AG-UI events one frame gives (none for what was projected already). */
  push(source: AgUiSource): BaseEvent[] {
    if (source.type === AGENT_CHAT_EVENT_TYPE) {
      const event = source.event;
      if (event.kind === "turn-started") return this.#turnStarted(event.turnId);
      if (event.kind === "turn-ended") return this.#turnEnded(event.turnId, event.status, event.message);
      return [];
    }
    if (source.type !== AGENT_TOOL_EVENT_TYPE) return [];
    const { event } = source;
    switch (event.kind) {
      case "cleared":
        return event.runIds.flatMap((runId) => this.#cleared(runId));
      case "chunk":
        return this.#chunk(event.runId, source.sequence, event.body);
      case "started": {
        const known = this.#lanes.get(event.runId);
        if (known && known.revision >= (source.revision ?? 1)) return [];
        const lane =
          known ??
          newLane(event.runId, {
            agentType: event.agentType,
            ...(event.display !== undefined ? { display: event.display } : {}),
            ...(source.parentToolCallId !== undefined ? { parentToolCallId: source.parentToolCallId } : {}),
          });
        lane.revision = source.revision ?? 1;
        this.#lanes.set(lane.runId, lane);
        return this.#activate(lane);
      }
      default:
        return this.#terminal(event, source.revision);
    }
  }

  /** Close what is open (the stream ends): live sub-agents `suspended`, then the AG-UI run. */
  close(): BaseEvent[] {
    return this.#closeSegment({ type: "success" });
  }

  #turnStarted(turnId: string): BaseEvent[] {
    if (this.#endedTurns.includes(turnId) || this.#segment?.runId === turnId) return [];
    return [...this.#closeSegment({ type: "success" }), ...this.#open(turnId, true)];
  }

  #turnEnded(turnId: string, status: AgentChatTurnStatus, message: UIMessage | undefined): BaseEvent[] {
    if (this.#endedTurns.includes(turnId)) return [];
    const opening =
      this.#segment?.runId === turnId ? [] : [...this.#closeSegment({ type: "success" }), ...this.#open(turnId, true)];
    this.#endedTurns = [...this.#endedTurns, turnId].slice(-MAX_ENDED_TURNS);
    const answer = message ? answerEvents(message) : [];
    if (status === "error") {
      const text = message ? failureText(message) : undefined;
      return [...opening, ...answer, ...this.#closeSegment({ error: text ?? "The answer failed" })];
    }
    const outcome: RunFinishedOutcome | { interrupt: Interrupt } =
      status === "aborted"
        ? { type: "cancelled" }
        : status === "interrupted"
          ? {
              interrupt: {
                id: `interrupted:turn:${turnId}`,
                reason: "interrupted",
                message: "The answer was interrupted",
              },
            }
          : { type: "success" };
    return [...opening, ...answer, ...this.#closeSegment(outcome)];
  }

  #chunk(runId: string, sequence: number | undefined, body: unknown): BaseEvent[] {
    let lane = this.#lanes.get(runId);
    if (lane && sequence !== undefined && sequence <= lane.sequence) return [];
    if (lane?.status === "ended") return [];
    if (!lane) {
      lane = newLane(runId);
      this.#lanes.set(runId, lane);
    }
    if (sequence !== undefined) lane.sequence = sequence;
    if (this.#endedHere(lane)) return [];
    const events = chunkEvents(lane, body);
    if (events.length === 0) return [];
    return [...this.#activate(lane), ...events];
  }

  #terminal(event: Exclude<AgentToolLifecycleEvent, { kind: "started" }>, revision: number | undefined): BaseEvent[] {
    let lane = this.#lanes.get(event.runId);
    if (lane && revision !== undefined && revision <= lane.revision) return [];
    if (!lane) {
      lane = newLane(event.runId);
      this.#lanes.set(event.runId, lane);
    }
    if (revision !== undefined) lane.revision = revision;
    if (lane.status === "ended") return [];
    if (this.#endedHere(lane)) return this.#repairedHere(lane, event);
    const opening = this.#activate(lane);
    const closing = closeLane(lane);
    const stamp = { subagentRunId: lane.runId };
    const segment = this.#segment as AgUiSegment;
    segment.active = segment.active.filter((runId) => runId !== lane.runId);
    segment.ended.push(lane.runId);
    const interruptId = lane.status === "suspended" ? undefined : interruptIdOf(lane.runId);
    // A later result repairs an interrupted run: its interrupt is no longer pending.
    segment.interrupts = segment.interrupts.filter((interrupt) => interrupt.id !== interruptIdOf(lane.runId));
    let end: BaseEvent;
    switch (event.kind) {
      case "finished":
        lane.status = "ended";
        end = {
          type: EventType.SUBAGENT_FINISHED,
          ...stamp,
          result: event.output !== undefined ? event.output : event.summary,
        } as BaseEvent;
        break;
      case "error":
        lane.status = "ended";
        end = { type: EventType.SUBAGENT_ERROR, ...stamp, message: event.error || "The run failed" } as BaseEvent;
        break;
      case "aborted":
        lane.status = "ended";
        end = {
          type: EventType.SUBAGENT_ERROR,
          ...stamp,
          message: event.error ?? "The run was cancelled",
          code: "aborted",
        } as BaseEvent;
        break;
      case "interrupted": {
        lane.status = "suspended";
        const id = interruptId ?? interruptIdOf(lane.runId);
        segment.interrupts.push({
          id,
          subagentRunId: lane.runId,
          reason: event.reason ?? "interrupted",
          message: event.error,
          ...(lane.parentToolCallId !== undefined ? { toolCallId: lane.parentToolCallId } : {}),
        });
        end = {
          type: EventType.SUBAGENT_FINISHED,
          ...stamp,
          outcome: { type: "suspended", interruptIds: [id] },
        } as BaseEvent;
        break;
      }
    }
    const events = [...opening, ...closing, end];
    if (!segment.turn && segment.active.length === 0) events.push(...this.#closeSegment({ type: "success" }));
    return events;
  }

  #cleared(runId: string): BaseEvent[] {
    const lane = this.#lanes.get(runId);
    if (!lane || lane.status === "ended") return [];
    const wasActive = this.#segment?.active.includes(runId) === true;
    lane.status = "ended";
    if (!wasActive) return [];
    return this.#terminalOfCleared(lane);
  }

  #terminalOfCleared(lane: LaneState): BaseEvent[] {
    const segment = this.#segment as AgUiSegment;
    segment.active = segment.active.filter((runId) => runId !== lane.runId);
    const events = [
      ...closeLane(lane),
      {
        type: EventType.SUBAGENT_ERROR,
        subagentRunId: lane.runId,
        message: "The run was cleared",
        code: "cleared",
      } as BaseEvent,
    ];
    if (!segment.turn && segment.active.length === 0) events.push(...this.#closeSegment({ type: "success" }));
    return events;
  }

  /** True when the lane's sub-agent ended (suspended) in the open AG-UI run: it cannot start again in it. */
  #endedHere(lane: LaneState): boolean {
    return this.#segment?.ended.includes(lane.runId) === true;
  }

  /**
   * An interrupted run repaired to a hard terminal inside the AG-UI run where it was suspended: AG-UI starts an
   * invocation once per run, so its result is told by a `CUSTOM` event (`agent-tools.subagent-repaired`), and its
   * interrupt is no longer pending. In a later AG-UI run it is started again and ended as usual.
   */
  #repairedHere(lane: LaneState, event: Exclude<AgentToolLifecycleEvent, { kind: "started" }>): BaseEvent[] {
    if (event.kind === "interrupted") return [];
    const segment = this.#segment as AgUiSegment;
    segment.interrupts = segment.interrupts.filter((interrupt) => interrupt.id !== interruptIdOf(lane.runId));
    lane.status = "ended";
    const value =
      event.kind === "finished"
        ? { status: "completed", result: event.output !== undefined ? event.output : event.summary }
        : { status: event.kind, message: event.error ?? null };
    return [
      {
        type: EventType.CUSTOM,
        name: AG_UI_CUSTOM_EVENTS.repaired,
        value: { subagentRunId: lane.runId, ...value },
      } as BaseEvent,
    ];
  }

  /** Make the lane a live sub-agent of the open AG-UI run (opening one if none is): `SUBAGENT_STARTED` once per run. */
  #activate(lane: LaneState): BaseEvent[] {
    const opening = this.#segment ? [] : this.#open(`agent-tools:${lane.runId}`, false);
    const segment = this.#segment as AgUiSegment;
    if (segment.active.includes(lane.runId)) return opening;
    segment.active.push(lane.runId);
    const started = {
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: lane.runId,
      name: lane.name,
      ...(lane.description !== undefined ? { description: lane.description } : {}),
      ...(lane.parentToolCallId !== undefined ? { parentToolCallId: lane.parentToolCallId } : {}),
    } as BaseEvent;
    return [...opening, started];
  }

  #open(runId: string, turn: boolean): BaseEvent[] {
    this.#segment = { runId, turn, active: [], ended: [], interrupts: [] };
    return [
      { type: EventType.RUN_STARTED, threadId: this.threadId, runId, protocolVersion: PROTOCOL_VERSION } as BaseEvent,
    ];
  }

  /** End the open AG-UI run: its live sub-agents `suspended`, then `RUN_FINISHED` (or `RUN_ERROR`). */
  #closeSegment(outcome: RunFinishedOutcome | { interrupt: Interrupt } | { error: string }): BaseEvent[] {
    const segment = this.#segment;
    if (!segment) return [];
    this.#segment = null;
    const events: BaseEvent[] = [];
    for (const runId of segment.active) {
      const lane = this.#lanes.get(runId);
      if (!lane) continue;
      events.push(...closeLane(lane), {
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: runId,
        outcome: { type: "suspended" },
      } as BaseEvent);
    }
    const base = { threadId: this.threadId, runId: segment.runId };
    if ("error" in outcome) {
      events.push({ type: EventType.RUN_ERROR, message: outcome.error } as BaseEvent);
      return events;
    }
    const interrupts = [...("interrupt" in outcome ? [outcome.interrupt] : []), ...segment.interrupts];
    const finished: RunFinishedOutcome | undefined =
      "interrupt" in outcome || (outcome.type === "success" && interrupts.length > 0)
        ? { type: "interrupt", interrupts }
        : outcome.type === "success"
          ? undefined
          : outcome;
    events.push({ type: EventType.RUN_FINISHED, ...base, ...(finished ? { outcome: finished } : {}) } as BaseEvent);
    return events;
  }
}

/** The stored answer of a turn as the parent's own AG-UI events: its text, then its tool calls and their results. */
function answerEvents(message: UIMessage): BaseEvent[] {
  const events: BaseEvent[] = [];
  const text = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (text !== "") {
    events.push(
      { type: EventType.TEXT_MESSAGE_START, messageId: message.id, role: "assistant" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: message.id, delta: text } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_END, messageId: message.id } as BaseEvent,
    );
  }
  for (const part of message.parts) {
    const call = part as { type: string; toolCallId?: unknown; input?: unknown; output?: unknown; errorText?: unknown };
    if (typeof call.toolCallId !== "string" || !(call.type.startsWith("tool-") || call.type === "dynamic-tool"))
      continue;
    const toolCallName =
      call.type === "dynamic-tool"
        ? String((part as { toolName?: unknown }).toolName)
        : call.type.slice("tool-".length);
    events.push(
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: call.toolCallId,
        toolCallName,
        parentMessageId: message.id,
      } as BaseEvent,
      {
        type: EventType.TOOL_CALL_ARGS,
        toolCallId: call.toolCallId,
        delta: JSON.stringify(call.input ?? null),
      } as BaseEvent,
      { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId } as BaseEvent,
    );
    const content =
      call.output !== undefined
        ? JSON.stringify(call.output)
        : typeof call.errorText === "string"
          ? call.errorText
          : undefined;
    if (content !== undefined) {
      events.push({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${call.toolCallId}/result`,
        toolCallId: call.toolCallId,
        content,
      } as BaseEvent);
    }
  }
  return events;
}

function failureText(message: UIMessage): string | undefined {
  const text = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  const at = text.lastIndexOf(FAILED_TURN_TEXT);
  return at >= 0 ? text.slice(at).trim() : undefined;
}
