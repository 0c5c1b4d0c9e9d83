import { type BaseEvent, EventType, type Interrupt, PROTOCOL_VERSION, type RunFinishedOutcome } from "@ag-ui/core";
import {
  AGENT_CHAT_EVENT_TYPE,
  type AgentChatEvent,
  type AgentChatTurnStatus,
  type AgentToolApproval,
  type AgentToolEventFrame,
  type AgentToolFrameCursor,
  type AgentToolLifecycleEvent,
  type AgentToolUsage,
  acceptAgentToolFrame,
  definedProps,
  FAILED_TURN_TEXT,
  NO_FRAMES_ACCEPTED,
  readApprovalChunk,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import { approvalInterrupt, interruptIdOf } from "./interrupts.js";
import { AG_UI_CUSTOM_EVENTS, answerLane, chunkEvents, closeLane, type LaneState, newLane, readChunk } from "./lane.js";
import { AG_UI_DESCENDANT_TYPE, AG_UI_TURN_CHUNK_TYPE, type AgUiSource, type AgUiTurnChunk } from "./sources.js";
import { messageEvents, storedAnswerChunks } from "./stored-messages.js";
import { tokenUsage, usageSince } from "./token-usage.js";

/**
 * The AG-UI run a stream is in: a segment of a turn of the parent's conversation (`turnId`), or of the runs dispatched
 * outside any turn. A turn is one AG-UI run unless an approval interrupts it: then the next AG-UI run continues it.
 */
export type AgUiSegment = {
  runId: string;
  turnId: string | null;
  /** The sub-agents live in it, and those that ended in it (an id is never started twice in one AG-UI run). */
  active: string[];
  ended: string[];
  /** The interrupts its `interrupted` sub-agents raised. */
  interrupts: Interrupt[];
};

/** The turn in flight, as the stream knows it. */
export type AgUiTurnState = {
  turnId: string;
  /** The parent's own answer (its lane), from its first chunk. */
  answer: LaneState | null;
  /** How many of the answer's chunks were projected (a stream following the turn again drops the ones it has). */
  chunks: number;
  /** What the turn's tree spent so far, and what the last AG-UI run of the turn reported of it. */
  usage?: AgentToolUsage;
  reported?: AgentToolUsage;
  /** The AG-UI runs of the turn so far. */
  segments: number;
};

/** Everything a projection holds: what it needs to go on where a stream stopped. */
export type AgUiProjectionState = {
  threadId: string;
  segment: AgUiSegment | null;
  turn: AgUiTurnState | null;
  lanes: LaneState[];
  /** Frames of sub-agents waiting for the tool call that started them, in order. */
  held: Array<{ path: string[]; frame: AgentToolEventFrame }>;
  /** The approvals waiting for an answer (as interrupts), and the ids of those answered lately. */
  approvals: Interrupt[];
  answered: string[];
  /** The turns whose end was projected (the newest ones), so a replayed turn starts nothing again. */
  endedTurns: string[];
  /** The stored conversation's messages projected, in order (`count: -1` once it was rewritten), the last one's id. */
  conversation: { count: number; last?: string };
  /** The newest messages projected (a message told twice is projected once). */
  recentMessages: string[];
  /** Messages said before their turn's AG-UI run started: told at its start. */
  pending: UIMessage[];
  /** The next AG-UI run starts with an empty `MESSAGES_SNAPSHOT`: the client drops what it holds, the stream restates it. */
  reset: boolean;
  /** The id the next AG-UI run takes (a run the client asked for, e.g. one that answers an interrupt). */
  nextRunId?: string;
};

export type AgUiProjectionOptions = {
  /** The AG-UI thread: the parent's conversation (e.g. the parent's name). */
  threadId: string;
  /** Where a stream that stopped went on from. */
  state?: AgUiProjectionState;
  /** Start with an empty `MESSAGES_SNAPSHOT` in the first AG-UI run (a client that holds a past it must drop). */
  reset?: boolean;
  /**
   * The sources carry the answer of the turn in flight as it streams (`AgUiTurnChunk`s, from its first): a run its
   * tool call started waits for that call, even before the answer's first chunk came (a replay of the turn in flight
   * sends its runs first). Without, a run waits only once the answer's chunks come; a turn's stored answer
   * (`turn-ended`) lets the runs it names through in place either way.
   */
  followsAnswer?: boolean;
};

const MAX_ENDED_TURNS = 32;
const MAX_RECENT = 64;

const keep = <T>(list: T[], item: T, max: number) => [...list.filter((other) => other !== item), item].slice(-max);

/**
 * Projects a parent's run frames (at every depth), its answer's chunks and its conversation events to AG-UI 1.0
 * events. Pure and stateful per stream: it never starts an id twice (a replayed `started`, chunk or terminal that it
 * projected already gives nothing), and what it sends always verifies as an AG-UI stream:
 * - a turn is an AG-UI run: `RUN_STARTED` (run id: the turn id), the user's message, the answer's text and tool calls
 *   as they stream, `RUN_FINISHED` (with the turn's usage by model) / `RUN_ERROR`;
 * - a run is a sub-agent (`SUBAGENT_STARTED` with `parentToolCallId`, and `parentSubagentRunId` below the top level;
 *   its events stamped with `subagentRunId`) that starts only after the tool call that started it;
 * - an approval asked anywhere in the tree ends the AG-UI run: the asking sub-agent `suspended` with its interrupt's
 *   id, the others `suspended`, `RUN_FINISHED` with the `interrupt` outcome; what follows the answer is the next run;
 * - runs outside a turn get an AG-UI run of their own (`agent-tools:<first run id>`), ended when none is live;
 * - a sub-agent still live when its AG-UI run ends is closed `suspended` and continued (started again) in the next.
 */
export class AgUiProjection {
  readonly threadId: string;
  #state: AgUiProjectionState;
  readonly #lanes = new Map<string, LaneState>();
  readonly #followsAnswer: boolean;

  constructor(options: AgUiProjectionOptions) {
    this.threadId = options.threadId;
    this.#followsAnswer = options.followsAnswer === true;
    const state = options.state ? structuredClone(options.state) : emptyState(options.threadId);
    if (options.reset) state.reset = true;
    this.#state = state;
    for (const lane of state.lanes) this.#lanes.set(lane.runId, lane);
  }

  /** What the projection holds now (a copy). */
  state(): AgUiProjectionState {
    return structuredClone({ ...this.#state, lanes: [...this.#lanes.values()] });
  }

  /** What every top-level run holds (durable sequence and revision), as the event socket's cursors. */
  cursors(): Record<string, { sequence: number; revision: number }> {
    const cursors: Record<string, { sequence: number; revision: number }> = {};
    for (const lane of this.#lanes.values()) {
      if (lane.path.length === 1) cursors[lane.runId] = { sequence: lane.sequence, revision: lane.revision };
    }
    return cursors;
  }

  /** How many of the stored conversation's messages the stream told, and the last one's id (`count: -1`: unknown). */
  conversation(): { count: number; last?: string } {
    return { ...this.#state.conversation };
  }

  /** The AG-UI run open now (`null` between runs). */
  get runId(): string | null {
    return this.#state.segment?.runId ?? null;
  }

  /** The approvals waiting for an answer, as interrupts. */
  pendingInterrupts(): Interrupt[] {
    return structuredClone(this.#state.approvals);
  }

  /** True while a sub-agent is live (or waits for its tool call). */
  get hasLiveRuns(): boolean {
    return [...this.#lanes.values()].some((lane) => lane.status === "live" && !lane.root);
  }

  /** The turn in flight, if the stream knows of one. */
  get turnId(): string | null {
    return this.#state.turn?.turnId ?? null;
  }

  /** The AG-UI events one source gives (none for what was projected already). */
  push(source: AgUiSource): BaseEvent[] {
    switch (source.type) {
      case AGENT_CHAT_EVENT_TYPE:
        return this.#chatEvent(source.event);
      case AG_UI_TURN_CHUNK_TYPE:
        return this.#turnChunk(source);
      case AG_UI_DESCENDANT_TYPE:
        return this.#frame(source.path, source.frame);
      default:
        return this.#frame([], source);
    }
  }

  /**
   * Start AG-UI run `runId` now (one the client asked for: it continues the turn in flight, or the runs outside
   * turns): the open run, if any, is closed first.
   */
  begin(runId: string): BaseEvent[] {
    const closing = this.#closeSegment({ type: "success" });
    this.#state.nextRunId = runId;
    return [...closing, ...this.#open()];
  }

  /** Close what is open (the stream ends): waiting sub-agents are let through, live ones `suspended`, then the run. */
  close(): BaseEvent[] {
    const events = this.#releaseWhere(() => true);
    if (this.#state.pending.length > 0 && !this.#state.segment) events.push(...this.#open("agent-tools:conversation"));
    events.push(...this.#closeSegment({ type: "success" }));
    return events;
  }

  // --- the conversation ---

  #chatEvent(event: AgentChatEvent): BaseEvent[] {
    switch (event.kind) {
      case "message":
        return this.#message(event.message);
      case "turn-started":
        return this.#turnStarted(event.turnId);
      case "turn-ended":
        return this.#turnEnded(event.turnId, event.status, event.message, event.usage);
      case "turn-usage":
        if (this.#state.turn?.turnId === event.turnId) this.#state.turn.usage = event.usage;
        return [];
      case "history":
        // Rewritten (an edit, a regenerate): what the stream told no longer lines up with what is stored.
        this.#state.conversation = { count: -1 };
        return [];
    }
  }

  #message(message: UIMessage): BaseEvent[] {
    if (!this.#told(message.id)) return [];
    // A user's message opens its turn: it is told once the turn's AG-UI run started.
    if (message.role === "user" || !this.#state.segment) {
      this.#state.pending.push(message);
      return [];
    }
    return messageEvents(message);
  }

  /** Count a message of the conversation as told; false when it was already. */
  #told(messageId: string): boolean {
    const state = this.#state;
    if (state.recentMessages.includes(messageId)) return false;
    state.recentMessages = keep(state.recentMessages, messageId, MAX_RECENT);
    if (state.conversation.count >= 0) state.conversation = { count: state.conversation.count + 1, last: messageId };
    return true;
  }

  #turnStarted(turnId: string): BaseEvent[] {
    const state = this.#state;
    if (state.endedTurns.includes(turnId) || state.turn?.turnId === turnId) return [];
    const closing = this.#closeSegment({ type: "success" });
    state.turn = { turnId, answer: null, chunks: 0, segments: 0 };
    return [...closing, ...this.#open()];
  }

  #turnEnded(
    turnId: string,
    status: AgentChatTurnStatus,
    message: UIMessage | undefined,
    usage: AgentToolUsage | undefined,
  ): BaseEvent[] {
    const state = this.#state;
    if (state.endedTurns.includes(turnId)) return [];
    const events = state.turn?.turnId === turnId ? [] : this.#turnStarted(turnId);
    const turn = state.turn as AgUiTurnState;
    if (usage) turn.usage = usage;
    // A stream that did not follow the turn tells its stored answer now.
    if (message && turn.chunks === 0) {
      storedAnswerChunks(message).forEach((chunk, index) => {
        events.push(...this.#turnChunk({ type: AG_UI_TURN_CHUNK_TYPE, turnId, index, chunk }));
      });
    }
    if (message) this.#told(message.id);
    // Runs its answer never named (e.g. dispatched from code during the turn) are let through before it ends.
    events.push(...this.#releaseWhere((lane) => lane.parentLaneId === undefined));
    if (!state.segment) events.push(...this.#open());
    state.endedTurns = keep(state.endedTurns, turnId, MAX_ENDED_TURNS);
    if (status === "error") {
      const text = message ? failureText(message) : undefined;
      events.push(...this.#closeSegment({ error: text ?? "The answer failed" }));
    } else {
      events.push(
        ...this.#closeSegment(
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
              : { type: "success" },
        ),
      );
    }
    state.turn = null;
    return events;
  }

  #turnChunk(source: AgUiTurnChunk): BaseEvent[] {
    const state = this.#state;
    if (state.endedTurns.includes(source.turnId)) return [];
    const opening = state.turn?.turnId === source.turnId ? [] : this.#turnStarted(source.turnId);
    const turn = state.turn as AgUiTurnState;
    if (source.index < turn.chunks) return opening;
    turn.chunks = source.index + 1;
    const chunk = readChunk(source.chunk);
    if (chunk === null) return opening;
    if (!turn.answer) {
      const messageId = chunk.type === "start" && typeof chunk["messageId"] === "string" ? chunk["messageId"] : null;
      turn.answer = answerLane(messageId ?? source.turnId);
    }
    const answer = turn.answer;
    const calls = answer.calls.length;
    const events = chunkEvents(answer, chunk);
    if (events.length === 0) return opening;
    const segmentOpening = state.segment ? [] : this.#open();
    return [...opening, ...segmentOpening, ...events, ...this.#released(answer, calls)];
  }

  // --- runs, at every depth ---

  #frame(prefix: readonly string[], frame: AgentToolEventFrame): BaseEvent[] {
    const { event } = frame;
    if (event.kind === "cleared") return event.runIds.flatMap((runId) => this.#cleared([...prefix, runId]));
    const path = [...prefix, event.runId];
    const laneId = path.join("/");
    const known = this.#lanes.get(laneId);
    if (known?.waiting) {
      this.#state.held.push({ path: [...prefix], frame });
      return [];
    }
    if (!acceptAgentToolFrame(laneCursor(known), frame).accepted) return [];
    switch (event.kind) {
      case "chunk":
        return this.#chunk(path, frame.sequence, event.body);
      case "started": {
        const started = newLane(path, {
          agentType: event.agentType,
          ...definedProps({ display: event.display, parentToolCallId: frame.parentToolCallId }),
        });
        // A placeholder (a run some other frame named first) learns who it is.
        const lane = known ? Object.assign(known, identityOf(started)) : started;
        lane.revision = frame.revision ?? 1;
        this.#lanes.set(laneId, lane);
        const isHere = this.#state.segment?.active.includes(laneId) === true;
        if (!isHere && this.#mustWait(lane)) {
          lane.waiting = true;
          return [];
        }
        return this.#activate(lane);
      }
      default:
        return this.#terminal(path, event, frame.revision);
    }
  }

  /**
   * A sub-agent waits for the tool call that started it: below the top level, until the sub-agent above made it; at
   * the top, while the stream follows a turn whose answer has not made it yet (the turn's end lets it through).
   */
  #mustWait(lane: LaneState): boolean {
    const call = lane.parentToolCallId;
    if (lane.status !== "live") return false;
    if (lane.parentLaneId !== undefined) {
      const parent = this.#lanes.get(lane.parentLaneId);
      // The sub-agent above is yet to come: its frames let this one through.
      if (!parent) return call !== undefined;
      if (parent.status === "ended") return false;
      return parent.waiting === true || (call !== undefined && !parent.calls.includes(call));
    }
    const turn = this.#state.turn;
    if (call === undefined || turn === null) return false;
    if (!turn.answer) return this.#followsAnswer;
    return !turn.answer.calls.includes(call);
  }

  /** Let through the sub-agents the lane's calls since `before` started (their held frames projected now, in order). */
  #released(lane: LaneState, before: number): BaseEvent[] {
    const calls = lane.calls.slice(before);
    if (calls.length === 0) return [];
    const parentLaneId = lane.root ? undefined : lane.runId;
    return this.#releaseWhere(
      (waiting) =>
        waiting.parentLaneId === parentLaneId &&
        waiting.parentToolCallId !== undefined &&
        calls.includes(waiting.parentToolCallId),
    );
  }

  /** Let the waiting sub-agents `which` picks through: their start, then their held frames, in order. */
  #releaseWhere(which: (lane: LaneState) => boolean): BaseEvent[] {
    const events: BaseEvent[] = [];
    for (const lane of [...this.#lanes.values()]) {
      if (!lane.waiting || !which(lane)) continue;
      delete lane.waiting;
      if (lane.revision > 0 && lane.status !== "ended") events.push(...this.#activate(lane));
      const mine = this.#state.held.filter((held) => [...held.path, runIdOf(held.frame)].join("/") === lane.runId);
      this.#state.held = this.#state.held.filter((held) => !mine.includes(held));
      for (const held of mine) events.push(...this.#frame(held.path, held.frame));
    }
    return events;
  }

  #chunk(path: string[], sequence: number | undefined, body: unknown): BaseEvent[] {
    const laneId = path.join("/");
    let lane = this.#lanes.get(laneId);
    if (lane?.status === "ended") return [];
    if (!lane) {
      lane = newLane(path);
      this.#lanes.set(laneId, lane);
    }
    if (sequence !== undefined) lane.sequence = sequence;
    const approval = readApprovalChunk(readChunk(body));
    if (approval) return this.#approval(lane.path, approval);
    if (this.#endedHere(lane)) return [];
    const calls = lane.calls.length;
    const events = chunkEvents(lane, body);
    if (events.length === 0) return [];
    return [...this.#activate(lane), ...events, ...this.#released(lane, calls)];
  }

  #terminal(
    path: string[],
    event: Exclude<AgentToolLifecycleEvent, { kind: "started" }>,
    revision: number | undefined,
  ): BaseEvent[] {
    const laneId = path.join("/");
    let lane = this.#lanes.get(laneId);
    if (!lane) {
      lane = newLane(path);
      this.#lanes.set(laneId, lane);
    }
    if (revision !== undefined) lane.revision = revision;
    if (lane.status === "ended") return [];
    // What it started and still waits is told before its end.
    const children = this.#releaseWhere((waiting) => waiting.parentLaneId === laneId);
    if (this.#endedHere(lane)) return [...children, ...this.#repairedHere(lane, event)];
    const opening = this.#activate(lane);
    const closing = closeLane(lane);
    const stamp = { subagentRunId: lane.runId };
    const segment = this.#state.segment as AgUiSegment;
    segment.active = segment.active.filter((runId) => runId !== lane.runId);
    segment.ended.push(lane.runId);
    const interruptId = interruptIdOf(lane.runId);
    // A later result repairs an interrupted run: its interrupt is no longer pending.
    segment.interrupts = segment.interrupts.filter((interrupt) => interrupt.id !== interruptId);
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
        segment.interrupts.push({
          id: interruptId,
          subagentRunId: lane.runId,
          reason: event.reason ?? "interrupted",
          message: event.error,
          ...(lane.parentToolCallId !== undefined ? { toolCallId: lane.parentToolCallId } : {}),
        });
        end = {
          type: EventType.SUBAGENT_FINISHED,
          ...stamp,
          outcome: { type: "suspended", interruptIds: [interruptId] },
        } as BaseEvent;
        break;
      }
    }
    const events = [...children, ...opening, ...closing, end];
    if (segment.turnId === null && segment.active.length === 0) events.push(...this.#closeSegment({ type: "success" }));
    return events;
  }

  /**
   * An approval read in the log of the lane at `holder` (the run that asks, or one above it, re-publishing it): a
   * pending one is an interrupt, which ends the AG-UI run (once, whichever copy comes first); an answered one is
   * pending no more.
   */
  #approval(holder: readonly string[], approval: AgentToolApproval): BaseEvent[] {
    const state = this.#state;
    const { interrupt, asker, askerTypes } = approvalInterrupt(holder, approval);
    if (approval.status !== "pending") {
      state.approvals = state.approvals.filter((pending) => pending.id !== interrupt.id);
      state.answered = keep(state.answered, interrupt.id, MAX_RECENT);
      return [];
    }
    if (state.answered.includes(interrupt.id) || state.approvals.some((pending) => pending.id === interrupt.id)) {
      return [];
    }
    state.approvals.push(interrupt);
    // The runs between the holder and the one that asks, as far as this stream knows of them.
    asker.slice(holder.length).forEach((_, index) => {
      const path = asker.slice(0, holder.length + index + 1);
      const laneId = path.join("/");
      if (!this.#lanes.has(laneId)) {
        this.#lanes.set(laneId, { ...newLane(path), name: askerTypes[index] ?? laneId });
      }
    });
    const askerLane = this.#lanes.get(asker.join("/")) as LaneState;
    const opening = state.segment ? [] : this.#open(`agent-tools:${asker[0]}`);
    const activating = askerLane.waiting || askerLane.status === "ended" ? [] : this.#activate(askerLane);
    return [...opening, ...activating, ...this.#closeSegment({ type: "success" })];
  }

  #cleared(path: string[]): BaseEvent[] {
    const lane = this.#lanes.get(path.join("/"));
    if (!lane || lane.status === "ended") return [];
    const wasActive = this.#state.segment?.active.includes(lane.runId) === true;
    lane.status = "ended";
    delete lane.waiting;
    this.#state.held = this.#state.held.filter((held) => [...held.path, runIdOf(held.frame)].join("/") !== lane.runId);
    if (!wasActive) return [];
    const segment = this.#state.segment as AgUiSegment;
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
    if (segment.turnId === null && segment.active.length === 0) events.push(...this.#closeSegment({ type: "success" }));
    return events;
  }

  /** True when the lane's sub-agent ended (or was suspended) in the open AG-UI run: it cannot start again in it. */
  #endedHere(lane: LaneState): boolean {
    return this.#state.segment?.ended.includes(lane.runId) === true;
  }

  /**
   * An interrupted run repaired to a hard terminal inside the AG-UI run where it was suspended: AG-UI starts an
   * invocation once per run, so its result is told by a `CUSTOM` event (`agent-tools.subagent-repaired`), and its
   * interrupt is no longer pending. In a later AG-UI run it is started again and ended as usual.
   */
  #repairedHere(lane: LaneState, event: Exclude<AgentToolLifecycleEvent, { kind: "started" }>): BaseEvent[] {
    if (event.kind === "interrupted") return [];
    const segment = this.#state.segment as AgUiSegment;
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

  /**
   * Make the lane a live sub-agent of the open AG-UI run (opening one if none is, and starting the sub-agents above it
   * first): `SUBAGENT_STARTED` once per run.
   */
  #activate(lane: LaneState): BaseEvent[] {
    const opening = this.#state.segment ? [] : this.#open(`agent-tools:${lane.path[0] ?? lane.runId}`);
    const segment = this.#state.segment as AgUiSegment;
    if (segment.active.includes(lane.runId)) return opening;
    const events = [...opening];
    const parent = lane.parentLaneId === undefined ? undefined : this.#lanes.get(lane.parentLaneId);
    if (parent && parent.status !== "ended" && !parent.waiting && !segment.ended.includes(parent.runId)) {
      events.push(...this.#activate(parent));
    }
    const isParentHere =
      parent !== undefined && (segment.active.includes(parent.runId) || segment.ended.includes(parent.runId));
    segment.active.push(lane.runId);
    events.push({
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: lane.runId,
      name: lane.name,
      ...(lane.description !== undefined ? { description: lane.description } : {}),
      ...(isParentHere ? { parentSubagentRunId: parent.runId } : {}),
      ...(lane.parentToolCallId !== undefined ? { parentToolCallId: lane.parentToolCallId } : {}),
    } as BaseEvent);
    return events;
  }

  /**
   * Open an AG-UI run: the one the client asked for, else the turn's (its id, then `<turn id>:<n>` for the runs that
   * continue it), else `outsideRunId` (runs outside any turn). The messages said before it are told in it.
   */
  #open(outsideRunId = "agent-tools"): BaseEvent[] {
    const state = this.#state;
    const turn = state.turn;
    const runId =
      state.nextRunId ??
      (turn ? (turn.segments === 0 ? turn.turnId : `${turn.turnId}:${turn.segments}`) : outsideRunId);
    delete state.nextRunId;
    if (turn) turn.segments += 1;
    state.segment = { runId, turnId: turn?.turnId ?? null, active: [], ended: [], interrupts: [] };
    const events: BaseEvent[] = [
      { type: EventType.RUN_STARTED, threadId: this.threadId, runId, protocolVersion: PROTOCOL_VERSION } as BaseEvent,
    ];
    if (state.reset) {
      state.reset = false;
      events.push({ type: EventType.MESSAGES_SNAPSHOT, messages: [] } as BaseEvent);
    }
    // A user's message waits for its turn; anything else is told in the first run that comes.
    const told = turn ? state.pending : state.pending.filter((message) => message.role !== "user");
    state.pending = state.pending.filter((message) => !told.includes(message));
    for (const message of told) events.push(...messageEvents(message));
    return events;
  }

  /**
   * End the open AG-UI run: its live sub-agents `suspended` (each naming the approvals it asks), the answer's open
   * streams closed, then `RUN_FINISHED` — its outcome `interrupt` while approvals wait (unless the turn was
   * cancelled), with the turn's usage since its last run — or `RUN_ERROR`.
   */
  #closeSegment(outcome: RunFinishedOutcome | { interrupt: Interrupt } | { error: string }): BaseEvent[] {
    const state = this.#state;
    const segment = state.segment;
    if (!segment) return [];
    state.segment = null;
    const events: BaseEvent[] = [];
    const active = segment.active
      .map((runId) => this.#lanes.get(runId))
      .filter((lane): lane is LaneState => lane !== undefined)
      .sort((a, b) => b.path.length - a.path.length);
    for (const lane of active) {
      const asked = state.approvals.filter((interrupt) => interrupt.subagentRunId === lane.runId);
      events.push(...closeLane(lane), {
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: lane.runId,
        outcome: {
          type: "suspended",
          ...(asked.length > 0 ? { interruptIds: asked.map((interrupt) => interrupt.id) } : {}),
        },
      } as BaseEvent);
    }
    const turn = state.turn;
    if (turn?.answer && segment.turnId === turn.turnId) events.push(...closeLane(turn.answer));
    const usage =
      turn && segment.turnId === turn.turnId && turn.usage ? tokenUsage(usageSince(turn.usage, turn.reported)) : [];
    if (turn && segment.turnId === turn.turnId && turn.usage) turn.reported = turn.usage;
    const spent = usage.length > 0 ? { usage } : {};
    if ("error" in outcome) {
      events.push({ type: EventType.RUN_ERROR, message: outcome.error, ...spent } as BaseEvent);
      return events;
    }
    const interrupts = [
      ...("interrupt" in outcome ? [outcome.interrupt] : []),
      ...segment.interrupts,
      ...state.approvals,
    ];
    const finished: RunFinishedOutcome | undefined =
      "type" in outcome && outcome.type === "cancelled"
        ? outcome
        : interrupts.length > 0
          ? { type: "interrupt", interrupts }
          : undefined;
    events.push({
      type: EventType.RUN_FINISHED,
      threadId: this.threadId,
      runId: segment.runId,
      ...(finished ? { outcome: finished } : {}),
      ...spent,
    } as BaseEvent);
    return events;
  }
}

function emptyState(threadId: string): AgUiProjectionState {
  return {
    threadId,
    segment: null,
    turn: null,
    lanes: [],
    held: [],
    approvals: [],
    answered: [],
    endedTurns: [],
    conversation: { count: 0 },
    recentMessages: [],
    pending: [],
    reset: false,
  };
}

/** Who a run is, from its `started` frame: what a placeholder lane learns when it comes. */
function identityOf(lane: LaneState): Partial<LaneState> {
  return {
    name: lane.name,
    ...definedProps({ description: lane.description, parentToolCallId: lane.parentToolCallId }),
  };
}

/**
 * What a lane told, as the protocol's frame cursor (`acceptAgentToolFrame` decides what is new): its revision and
 * status, and its highest sequence as if every one below it were held. A stream cannot take back or reorder what it
 * told, so a chunk at or below that mark (a replay, or a gap filled late) is dropped. An ended lane counts as hard
 * terminal (which one does not matter to the rule).
 */
function laneCursor(lane: LaneState | undefined): AgentToolFrameCursor {
  if (!lane) return NO_FRAMES_ACCEPTED;
  const status = { live: lane.revision > 0 ? "running" : null, suspended: "interrupted", ended: "completed" } as const;
  return { ...NO_FRAMES_ACCEPTED, contiguous: lane.sequence, revision: lane.revision, status: status[lane.status] };
}

function runIdOf(frame: AgentToolEventFrame): string {
  return frame.event.kind === "cleared" ? "" : frame.event.runId;
}

function failureText(message: UIMessage): string | undefined {
  const text = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  const at = text.lastIndexOf(FAILED_TURN_TEXT);
  return at >= 0 ? text.slice(at).trim() : undefined;
}
