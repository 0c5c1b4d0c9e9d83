import {
  AGENT_APPROVAL_PART,
  AGENT_MILESTONE_PART,
  AGENT_PROGRESS_PART,
  type AgentToolApproval,
  type AgentToolDisplay,
  type AgentToolEventFrame,
  type AgentToolInterruptedReason,
  type AgentToolLifecycleEvent,
  type AgentToolMilestone,
  type AgentToolProgressSnapshot,
  type AgentToolStepReset,
  type AgentToolUsage,
  isHardTerminalStatus,
  isVoidedByReset,
  nextProgressSnapshot,
  type RunStatus,
  readApprovalChunk,
  readMilestoneChunk,
  readProgressChunk,
  readStepResetChunk,
  readUIMessageChunkBody,
  readUsageChunk,
  voidedRanges,
} from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";
import {
  applyUIMessageChunk,
  createUIMessageAssembly,
  type UIMessageAssembly,
  type UIMessageParts,
} from "./apply-ui-message-chunk.js";
import {
  type ApprovalEntry,
  foldApprovals,
  insertApprovalEntry,
  NO_APPROVALS,
  withoutVoidedApprovals,
} from "./run-approvals.js";

/**
 * What a client knows of one child run, built from `agent-tool-event` frames. Immutable: a change makes a new
 * object, so `===` tells whether a run changed.
 */
export type AgentToolRunState = {
  readonly runId: string;
  /** `null` until the run's `started` frame arrives (a placeholder made by an earlier frame). */
  readonly agentType: string | null;
  /** The parent tool call that started the run; `null` for an unbound (e.g. detached) run. */
  readonly parentToolCallId: string | null;
  /** Order among the siblings of one tool call (0 until `started` says otherwise). */
  readonly displayOrder: number;
  readonly inputPreview: string | null;
  readonly display: AgentToolDisplay | null;
  readonly status: RunStatus;
  /** The newest lifecycle revision applied (0 for a placeholder). */
  readonly revision: number;
  /** The highest durable sequence held with no gap before it: where a reconnect resumes. */
  readonly lastSequence: number;
  /** The child's assistant message parts, assembled from its durable chunks in sequence order. */
  readonly parts: UIMessageParts;
  readonly summary: string | null;
  /** The structured output of a completed run, if the child gave one. */
  readonly output: unknown;
  readonly error: string | null;
  readonly reason: AgentToolInterruptedReason | null;
  readonly childStillRunning: boolean | null;
  /** The newest progress report (by its server time `at`): ephemeral progress or a milestone. */
  readonly progress: AgentToolProgressSnapshot | null;
  /** Durable milestones, once each, in sequence order. */
  readonly milestones: readonly AgentToolMilestone[];
  /** What the run and everything below it spent, as it last reported (`null`: it reported nothing). */
  readonly usage: AgentToolUsage | null;
  /**
   * The tool calls in the run's tree that needed approval (its own, `path: []`, and its descendants', `path` from its
   * child down to the asker), one per `approvalId`, in the order they were asked, each in its latest state: `pending`
   * until answered, then `approved`, `denied` or `expired` (never pending again). Answer a pending one with
   * `answerAgentToolApproval`; `selectPendingApprovals(run)` lists those that wait.
   */
  readonly approvals: readonly AgentToolApproval[];
  /** The text of the last in-band `error` chunk of the child's stream, if any. */
  readonly streamError: string | null;
  /** Where to drill in to the child's own conversation; `null` while the agentType is unknown. */
  readonly drillInUrl: string | null;
  readonly startedAt: number | null;
  /** True for a run dispatched in the background (`detached`): no tool call waits on it. */
  readonly detached: boolean;
  /**
   * When the run ended (server epoch ms), from the terminal frame applied last; `null` while it is live, or when
   * the server did not say.
   */
  readonly completedAt: number | null;
};

/** One durable chunk kept for reassembly; `sequence` is `null` for a chunk that came without one. */
type LogEntry = { readonly sequence: number | null; readonly body: UIMessageChunk };

/** The kept chunks, newest first: appending in order (the usual case) is O(1) and shares everything before. */
type EntryList = { readonly entry: LogEntry; readonly previous: EntryList | null };

/** Sequences a step reset voided: `from` up to (not including) `until`, the reset's own sequence. */
type VoidedRange = { readonly from: number; readonly until: number };

/** A run's durable chunks and their assembly. */
type RunLog = {
  /** Every sequence from 1 to `contiguous` is held (or voided by a step reset). */
  readonly contiguous: number;
  /** Held sequences past a gap (above `contiguous + 1`), sorted. Empty unless frames came out of order. */
  readonly ahead: readonly number[];
  /** The chunks that make parts, sequenced ones in sequence order. */
  readonly entries: EntryList | null;
  readonly assembly: UIMessageAssembly;
  /** What the run's step resets voided (milestones in them aside). Empty unless a child resumed a cut step. */
  readonly voided: readonly VoidedRange[];
  /** The approval chunks held (not voided), in sequence order: `approvals` is their fold. */
  readonly approvals: readonly ApprovalEntry[];
};

/** Everything a client knows of the runs of one parent connection. Plain, immutable data. */
export type AgentToolTimelineState = {
  readonly runsById: Readonly<Record<string, AgentToolRunState>>;
  /** RunIds in the order they were first seen. */
  readonly runOrder: readonly string[];
  /** RunIds the server cleared: frames for them are ignored. */
  readonly clearedRunIds: Readonly<Record<string, true>>;
  /** @internal */
  readonly logs: Readonly<Record<string, RunLog>>;
};

export type AgentToolTimelineOptions = {
  /**
   * The drill-in address of a run (called whenever the run changes; keep it pure). Default: the relative path
   * `sub/<agentType>/<runId>` (URL-encoded), or `null` while the agentType is unknown.
   */
  drillInUrl?: (run: AgentToolRunState) => string | null;
};

const EMPTY_RECORD: Readonly<Record<string, never>> = Object.freeze({});
const EMPTY_LOG: RunLog = {
  contiguous: 0,
  ahead: [],
  entries: null,
  assembly: createUIMessageAssembly(),
  voided: [],
  approvals: [],
};

/** A timeline that knows no runs. */
export function createAgentToolTimelineState(): AgentToolTimelineState {
  return { runsById: EMPTY_RECORD, runOrder: [], clearedRunIds: EMPTY_RECORD, logs: EMPTY_RECORD };
}

/** The default drill-in address: `sub/<agentType>/<runId>`, relative to the parent agent's route. */
export function defaultDrillInUrl(run: Pick<AgentToolRunState, "agentType" | "runId">): string | null {
  if (run.agentType === null) return null;
  return `sub/${encodeURIComponent(run.agentType)}/${encodeURIComponent(run.runId)}`;
}

const getOwn = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

function placeholderRun(runId: string, parentToolCallId: string | undefined): AgentToolRunState {
  return {
    runId,
    agentType: null,
    parentToolCallId: parentToolCallId ?? null,
    displayOrder: 0,
    inputPreview: null,
    display: null,
    status: "running",
    revision: 0,
    lastSequence: 0,
    parts: EMPTY_LOG.assembly.parts,
    summary: null,
    output: undefined,
    error: null,
    reason: null,
    childStillRunning: null,
    progress: null,
    usage: null,
    approvals: NO_APPROVALS,
    milestones: [],
    streamError: null,
    drillInUrl: null,
    startedAt: null,
    detached: false,
    completedAt: null,
  };
}

/** Index of `value` in a sorted array, or `-(insertion point) - 1` when absent. */
function binarySearch(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const item = sorted[middle] ?? 0;
    if (item === value) return middle;
    if (item < value) low = middle + 1;
    else high = middle - 1;
  }
  return -low - 1;
}

/** The voided range `sequence` is in, if any. */
const voidedRangeOf = (log: RunLog, sequence: number): VoidedRange | undefined =>
  log.voided.find((range) => sequence >= range.from && sequence < range.until);

/** Record a durable sequence as held; `null` when it already was (a duplicate). */
function holdSequence(log: RunLog, sequence: number): RunLog | null {
  if (sequence <= log.contiguous) return null;
  const found = binarySearch(log.ahead, sequence);
  if (found >= 0) return null;
  if (sequence !== log.contiguous + 1) {
    const at = -found - 1;
    return { ...log, ahead: [...log.ahead.slice(0, at), sequence, ...log.ahead.slice(at)] };
  }
  return closeGaps({ ...log, contiguous: sequence });
}

/** Move `contiguous` on over the held sequences and voided ranges that now follow on. */
function closeGaps(log: RunLog): RunLog {
  let contiguous = log.contiguous;
  let ahead = log.ahead;
  for (;;) {
    const next = contiguous + 1;
    const range = voidedRangeOf(log, next);
    if (range) contiguous = range.until - 1;
    else if (ahead[0] === next) contiguous = next;
    else break;
    let absorbed = 0;
    while ((ahead[absorbed] ?? Number.POSITIVE_INFINITY) <= contiguous) absorbed += 1;
    if (absorbed > 0) ahead = ahead.slice(absorbed);
  }
  return contiguous === log.contiguous && ahead === log.ahead ? log : { ...log, contiguous, ahead };
}

/**
 * Apply a step reset (sequence `until`, already held): the run's cut step, from `from` on, is void. The chunks of
 * it held here are dropped (milestones stay) and the parts assembled again; the voided sequences count as held, so
 * the cursor goes past those never received; late copies of them are dropped.
 */
function applyStepReset(log: RunLog, reset: AgentToolStepReset, until: number): RunLog {
  const ranges = voidedRanges(reset, until).map(([from, end]) => ({ from, until: end }));
  if (ranges.length === 0) return log;
  const isVoided = (entry: LogEntry) =>
    entry.sequence !== null && isVoidedByReset({ sequence: entry.sequence, body: entry.body }, reset, until);
  const kept: LogEntry[] = [];
  let isChanged = false;
  for (let node = log.entries; node; node = node.previous) {
    if (isVoided(node.entry)) isChanged = true;
    else kept.push(node.entry);
  }
  let next: RunLog = {
    ...log,
    voided: [...log.voided, ...ranges],
    approvals: ranges.reduce(
      (approvals, range) => withoutVoidedApprovals(approvals, range.from, range.until),
      log.approvals,
    ),
  };
  if (isChanged) {
    let entries: EntryList | null = null;
    let assembly = createUIMessageAssembly();
    for (let index = kept.length - 1; index >= 0; index--) {
      const entry = kept[index] as LogEntry;
      entries = { entry, previous: entries };
      assembly = applyUIMessageChunk(assembly, entry.body);
    }
    next = { ...next, entries, assembly };
  }
  return closeGaps(next);
}

/** Put a chunk into a run's log, in sequence order, and bring its assembly up to date. */
function insertEntry(log: RunLog, entry: LogEntry): RunLog {
  // The entry goes after the last entry that is unsequenced or earlier, before the later ones.
  const later: LogEntry[] = [];
  let node = log.entries;
  if (entry.sequence !== null) {
    while (node && node.entry.sequence !== null && node.entry.sequence > entry.sequence) {
      later.push(node.entry);
      node = node.previous;
    }
  }
  if (later.length === 0) {
    return {
      ...log,
      entries: { entry, previous: log.entries },
      assembly: applyUIMessageChunk(log.assembly, entry.body),
    };
  }
  // Out of order (a replay/live race): assemble again from the start, so parts follow sequence order.
  let entries: EntryList | null = { entry, previous: node };
  for (let index = later.length - 1; index >= 0; index--) {
    entries = { entry: later[index] as LogEntry, previous: entries };
  }
  const ordered: LogEntry[] = [];
  for (let item: EntryList | null = entries; item; item = item.previous) ordered.push(item.entry);
  let assembly = createUIMessageAssembly();
  for (let index = ordered.length - 1; index >= 0; index--) {
    assembly = applyUIMessageChunk(assembly, (ordered[index] as LogEntry).body);
  }
  return { ...log, entries, assembly };
}

function insertMilestone(
  milestones: readonly AgentToolMilestone[],
  milestone: AgentToolMilestone,
): readonly AgentToolMilestone[] {
  let index = milestones.length;
  while (index > 0 && (milestones[index - 1]?.sequence ?? 0) > milestone.sequence) index -= 1;
  return [...milestones.slice(0, index), milestone, ...milestones.slice(index)];
}

function withDrillIn(run: AgentToolRunState, options: AgentToolTimelineOptions): AgentToolRunState {
  let drillInUrl: string | null;
  try {
    drillInUrl = (options.drillInUrl ?? defaultDrillInUrl)(run);
  } catch {
    drillInUrl = null;
  }
  if (typeof drillInUrl !== "string") drillInUrl = null;
  return drillInUrl === run.drillInUrl ? run : { ...run, drillInUrl };
}

function putRun(
  state: AgentToolTimelineState,
  run: AgentToolRunState,
  log: RunLog | undefined,
  options: AgentToolTimelineOptions,
): AgentToolTimelineState {
  const isNew = !Object.hasOwn(state.runsById, run.runId);
  return {
    ...state,
    runsById: { ...state.runsById, [run.runId]: withDrillIn(run, options) },
    runOrder: isNew ? [...state.runOrder, run.runId] : state.runOrder,
    logs: log ? { ...state.logs, [run.runId]: log } : state.logs,
  };
}

function applyChunk(
  state: AgentToolTimelineState,
  frame: AgentToolEventFrame,
  runId: string,
  rawBody: unknown,
  options: AgentToolTimelineOptions,
): AgentToolTimelineState {
  const body = readUIMessageChunkBody(rawBody);
  if (body === null) return state;
  const existing = getOwn(state.runsById, runId);
  let run = existing ?? placeholderRun(runId, frame.parentToolCallId);
  const previousLog = getOwn(state.logs, runId) ?? EMPTY_LOG;
  let log = previousLog;
  const { sequence } = frame;
  if (sequence !== undefined) {
    if (voidedRangeOf(log, sequence)) {
      // A chunk of a step a reset voided (a late copy from a replay/live race): dropped, unless it is a milestone
      // this run has not listed yet (milestones stay reached).
      const isNewMilestone =
        body.type === AGENT_MILESTONE_PART && !run.milestones.some((listed) => listed.sequence === sequence);
      if (!isNewMilestone) return state;
      if (sequence > log.contiguous) log = holdSequence(log, sequence) ?? log;
    } else {
      const held = holdSequence(log, sequence);
      if (held === null) return state; // a durable chunk already held: deduped by (runId, sequence)
      log = held;
    }
    const reset = readStepResetChunk(body);
    if (reset) log = applyStepReset(log, reset, sequence);
    if (log.contiguous !== run.lastSequence) run = { ...run, lastSequence: log.contiguous };
  }
  if (run.parentToolCallId === null && frame.parentToolCallId !== undefined) {
    run = { ...run, parentToolCallId: frame.parentToolCallId };
  }
  // Progress and milestones: the newest report by server time wins, whatever order the frames came in; a milestone
  // keeps the bar's fields it does not bring (the rule the server applies, so a replay gives the same progress).
  const report = readProgressChunk(body, run.progress?.at ?? 0);
  const isMilestone = body.type === AGENT_MILESTONE_PART;
  const progress = report && nextProgressSnapshot(run.progress, report, isMilestone ? "milestone" : "progress");
  if (progress) run = { ...run, progress };
  // Usage only grows (each report is the subtree's total so far): the largest one held is the latest, in any order.
  const usage = readUsageChunk(body);
  if (usage && (run.usage === null || usageSize(usage) >= usageSize(run.usage))) run = { ...run, usage };
  // An approval is the run's state too: its chunks are kept (a step reset may void them) and folded.
  const isApproval = body.type === AGENT_APPROVAL_PART;
  const approval = isApproval ? readApprovalChunk(body) : null;
  if (approval)
    log = { ...log, approvals: insertApprovalEntry(log.approvals, { sequence: sequence ?? null, approval }) };
  if (log.approvals !== previousLog.approvals) run = { ...run, approvals: foldApprovals(log.approvals) };
  if (isMilestone) {
    const milestone = readMilestoneChunk(body, sequence ?? run.lastSequence, report?.at ?? 0);
    if (milestone) run = { ...run, milestones: insertMilestone(run.milestones, milestone) };
  }
  // Usage and approvals are the run's state, not parts of its message.
  if (body.type !== AGENT_PROGRESS_PART && usage === null && !isApproval) {
    log = insertEntry(log, { sequence: sequence ?? null, body });
    run = { ...run, parts: log.assembly.parts, streamError: log.assembly.errorText };
  }
  if (run === existing && log === previousLog) return state; // e.g. progress older than what the run shows
  return putRun(state, run, log === previousLog ? undefined : log, options);
}

const TERMINAL_STATUS = {
  finished: "completed",
  error: "error",
  aborted: "aborted",
  interrupted: "interrupted",
} as const satisfies Record<Exclude<AgentToolLifecycleEvent["kind"], "started">, RunStatus>;

function applyLifecycle(
  state: AgentToolTimelineState,
  frame: AgentToolEventFrame,
  event: AgentToolLifecycleEvent,
  options: AgentToolTimelineOptions,
): AgentToolTimelineState {
  const existing = getOwn(state.runsById, event.runId);
  let run = existing ?? placeholderRun(event.runId, frame.parentToolCallId);
  if (run.parentToolCallId === null && frame.parentToolCallId !== undefined) {
    run = { ...run, parentToolCallId: frame.parentToolCallId };
  }
  // `started` fills in who the run is, whenever it arrives; whether it may change the status is the revision's say.
  if (event.kind === "started" && run.agentType === null) {
    run = {
      ...run,
      agentType: event.agentType,
      displayOrder: event.displayOrder,
      inputPreview: event.inputPreview ?? null,
      display: event.display ?? null,
      startedAt: event.startedAt ?? null,
      detached: event.detached === true,
    };
  }
  const isNewer =
    frame.revision !== undefined
      ? frame.revision > run.revision
      : // A frame without a revision (an older server): a terminal applies unless the run is hard terminal.
        event.kind !== "started" && !isHardTerminalStatus(run.status);
  if (isNewer) {
    const revision = Math.max(run.revision, frame.revision ?? 0);
    if (event.kind === "started") {
      run = { ...run, revision, status: "running" };
    } else {
      run = {
        ...run,
        revision,
        status: TERMINAL_STATUS[event.kind],
        summary: event.kind === "finished" ? event.summary : null,
        output: event.kind === "finished" ? event.output : undefined,
        error: event.kind === "finished" ? null : (event.error ?? null),
        // A repair (interrupted → a hard terminal) clears these.
        reason: event.kind === "interrupted" ? (event.reason ?? null) : null,
        childStillRunning: event.kind === "interrupted" ? (event.childStillRunning ?? null) : null,
        completedAt: event.completedAt ?? null,
      };
    }
  }
  if (existing === run) return state;
  return putRun(state, run, undefined, options);
}

function clearRuns(state: AgentToolTimelineState, runIds: readonly string[]): AgentToolTimelineState {
  const fresh = runIds.filter((runId) => !Object.hasOwn(state.clearedRunIds, runId));
  if (fresh.length === 0) return state;
  const forget = new Set(fresh);
  const runOrder = state.runOrder.filter((runId) => !forget.has(runId));
  // Object.fromEntries defines own properties: a runId such as "__proto__" stays an ordinary key.
  const keep = <T>(record: Readonly<Record<string, T>>): Record<string, T> =>
    Object.fromEntries(
      runOrder.flatMap((runId) => {
        const value = getOwn(record, runId);
        return value === undefined ? [] : [[runId, value] as const];
      }),
    );
  return {
    runsById: keep(state.runsById),
    runOrder,
    clearedRunIds: { ...state.clearedRunIds, ...Object.fromEntries(fresh.map((runId) => [runId, true as const])) },
    logs: keep(state.logs),
  };
}

/**
 * Apply one `agent-tool-event` frame to a timeline: pure (the state and frame are never changed; the same inputs
 * give the same result) and total (it never throws on a parsed frame). Returns the same state object when the
 * frame changes nothing. The rules (SPEC §6):
 * - durable chunks are deduped by `(runId, sequence)` and assembled in sequence order, whatever order they arrive in;
 * - a lifecycle frame changes the status only when its revision is newer than the run's (a late `started` never
 *   revives a finished run; a repair `interrupted → completed` is applied);
 * - a frame for an unknown run creates a placeholder (status `running`, agentType `null`) that `started` fills in;
 * - `cleared` forgets runs, and later frames for them are ignored;
 * - `data-agent-progress` (ephemeral) and `data-agent-milestone` (durable) update `progress`; milestones are listed
 *   once each. Every other durable chunk goes to `parts`, as the AI SDK's `readUIMessageStream` would assemble it.
 *
 * @example
 * const state = frames.reduce((timeline, frame) => applyAgentToolEvent(timeline, frame), createAgentToolTimelineState());
 */
export function applyAgentToolEvent(
  state: AgentToolTimelineState,
  frame: AgentToolEventFrame,
  options: AgentToolTimelineOptions = {},
): AgentToolTimelineState {
  const { event } = frame;
  if (event.kind === "cleared") return clearRuns(state, event.runIds);
  if (Object.hasOwn(state.clearedRunIds, event.runId)) return state;
  if (event.kind === "chunk") return applyChunk(state, frame, event.runId, event.body, options);
  return applyLifecycle(state, frame, event, options);
}

/** How far a usage report got (a later report of one run is never smaller). */
function usageSize(usage: AgentToolUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.runs + (usage.cost ?? 0);
}
