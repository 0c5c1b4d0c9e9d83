import type { UIMessage, UIMessageChunk } from "ai";
import { assembleMessage, assembleTurnMessage } from "./assemble-message.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import { toInputMessage } from "./child-input-message.js";
import { type ChildTailOptions, openChildTail } from "./child-tail.js";
import { type ChildTurnHost, runChildTurn, type TurnResume } from "./child-turn.js";
import { AgentToolsError } from "./errors.js";
import type { LiveRun } from "./live-run.js";
import { LiveRunLog } from "./live-run-log.js";
import type { ChildStartOptions } from "./ports/child-transport.js";
import { type Clock, systemClock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import {
  type AgentToolApproval,
  type AgentToolApprovalAnswer,
  type AgentToolBudgetExhaustion,
  type AgentToolMilestone,
  type AgentToolProgressSnapshot,
  type AgentToolRunInspection,
  type AgentToolTailItem,
  type AgentToolTraceContext,
  type AgentToolTree,
  type AgentToolUsage,
  approvalChunk,
  type ChildRunStatus,
  type JsonValue,
  nextProgressSnapshot,
  readApprovalChunk,
  readOwnUsage,
  readUsageChunk,
  usageChunk,
} from "./protocol/index.js";
import { RunBudget } from "./run-budget.js";
import { getDefaultRunEventHub } from "./run-event-hub.js";
import type { RunRecord, RunRecordPatch } from "./run-record.js";
import { DEFAULT_MAX_RECOVERY_ATTEMPTS, recoverCutOffRun, type TurnRecoveryOptions } from "./turn-recovery.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

export type AgentToolChildRunnerOptions = {
  definition: AgentToolChildDefinition;
  /** The child's own storage (one per child instance). */
  store: RunStore;
  clock?: Clock;
  sink?: RunEventSink;
  /**
   * Keep the host alive while a turn runs after `start` returned (e.g. a Durable Object's `ctx.waitUntil`).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** How many times a cut-off turn is resumed before the run ends as `error` (a whole number ≥ 0). Default 3. */
  maxRecoveryAttempts?: number;
  /** Whether to resume a cut-off run (checked before each attempt). Default: always, within the attempts. */
  shouldKeepRecovering?: (run: RunRecord) => boolean;
  /**
   * Execute each turn inside a scope the host provides: `run` is everything the turn does (a resumed step's tool
   * calls, `turn`, reading its stream), so with an `AsyncLocalStorage` keyed by `runId` code deep inside a turn (a
   * tool's `execute`) can tell which run it works for, even with several runs live on one runner. Default: none.
   */
  runScope?: <TResult>(
    runId: string,
    run: () => TResult,
    tree: AgentToolTree | null,
    trace: AgentToolTraceContext | null,
  ) => TResult;
  /**
   * How long a cancelled run waits, at most, for what it dispatched itself (`definition.onCancel`) to end before it
   * records its own end. Default 10 s.
   */
  descendantsTimeoutMs?: number;
  /**
   * Let the host's event loop turn (resolve after a macrotask, e.g. a 0 ms timer). Awaited after a turn's first log
   * entry and after every `MAX_BURST_ENTRIES` entries: a stream that makes its chunks without ever waiting (a mock or
   * cached model, a fast transform) would otherwise hold the host until the turn ends — in a Durable Object, the
   * `start` answer and every tail with it, so the first chunk would leave together with the last. A model paced by
   * the network yields by itself; this adds at most one macrotask per 256 entries. Default: none.
   */
  yieldToEventLoop?: () => Promise<void>;
};

/** A run's conversation as the child holds it at one point: what `getConversation` gives a drill-in. */
export type ChildConversationSnapshot = {
  /** The input as a user message, then the assistant message built from the log (none while it is empty). */
  messages: UIMessage[];
  /** The log sequence the messages hold (0 for an empty log): a tail from here misses and doubles nothing. */
  lastSequence: number;
  /** The run's inspection, with that `lastSequence`; `null` for a run this child does not know. */
  run: AgentToolRunInspection | null;
};

const FALLBACK_CANCEL_REASON = "Cancelled";

/** Default `descendantsTimeoutMs`: 10 s. */
export const DEFAULT_DESCENDANTS_TIMEOUT_MS = 10_000;

/**
 * Runs a child's side of agent-tool runs: idempotent start, one turn per run whose every chunk goes into the
 * durable per-run log with the next sequence, inspect with its `null` contract, tail with no entry lost or
 * doubled across the stored/live edge, and cancel. A host (a Durable Object, a test) owns one runner per child
 * instance and exposes its methods to the parent's `ChildTransport`.
 */
export class AgentToolChildRunner {
  readonly agentType: string;
  readonly #definition: AgentToolChildDefinition;
  readonly #store: RunStore;
  readonly #clock: Clock;
  readonly #sink: RunEventSink;
  readonly #waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  readonly #live = new Map<string, LiveRun>();
  readonly #starting = new Map<string, Promise<AgentToolRunInspection>>();
  readonly #recording = new Set<string>();
  readonly #waking = new Map<string, Promise<RunRecord | null>>();
  readonly #recovery: TurnRecoveryOptions;
  readonly #runScope: NonNullable<AgentToolChildRunnerOptions["runScope"]>;
  readonly #descendantsTimeoutMs: number;
  readonly #yieldToEventLoop: (() => Promise<void>) | undefined;

  constructor(options: AgentToolChildRunnerOptions) {
    this.#definition = options.definition;
    this.agentType = options.definition.agentType;
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    this.#sink = options.sink ?? getDefaultRunEventHub();
    this.#waitUntil = options.waitUntil;
    this.#runScope = options.runScope ?? ((_runId, run) => run());
    this.#descendantsTimeoutMs = options.descendantsTimeoutMs ?? DEFAULT_DESCENDANTS_TIMEOUT_MS;
    this.#yieldToEventLoop = options.yieldToEventLoop;
    const maxRecoveryAttempts = options.maxRecoveryAttempts ?? DEFAULT_MAX_RECOVERY_ATTEMPTS;
    if (!Number.isSafeInteger(maxRecoveryAttempts) || maxRecoveryAttempts < 0) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        `AgentToolChildRunner: maxRecoveryAttempts must be a whole number ≥ 0, got ${maxRecoveryAttempts}`,
      );
    }
    this.#recovery = {
      store: this.#store,
      clock: this.#clock,
      agentType: this.agentType,
      maxRecoveryAttempts,
      shouldKeepRecovering: options.shouldKeepRecovering ?? (() => true),
      canRunToolCalls: typeof options.definition.getTools === "function",
      emit: (event) => this.#emit(event),
    };
  }

  /**
   * Start a run, idempotently: a runId already known returns its inspection and starts no second turn.
   * Resolves once the run is recorded; the turn goes on in the background.
   */
  start(runId: string, input: unknown, options: ChildStartOptions = {}): Promise<AgentToolRunInspection> {
    const inFlight = this.#starting.get(runId);
    if (inFlight !== undefined) return inFlight;
    const started = this.#start(runId, input, options).finally(() => this.#starting.delete(runId));
    this.#starting.set(runId, started);
    return started;
  }

  async #start(runId: string, input: unknown, options: ChildStartOptions): Promise<AgentToolRunInspection> {
    const existing = await this.#wake(runId);
    if (existing) return this.#inspection(existing);
    const now = this.#clock.now();
    const record: RunRecord = {
      runId,
      agentType: this.agentType,
      status: "running",
      revision: 1,
      startedAt: now,
      updatedAt: now,
      displayOrder: 0,
      input,
      lastSequence: 0,
      ...(options.tree !== undefined ? { tree: options.tree } : {}),
      ...(options.trace !== undefined ? { trace: options.trace } : {}),
    };
    this.#recording.add(runId);
    let inserted: boolean;
    try {
      inserted = await this.#store.insertRun(record);
    } catch (error) {
      this.#recording.delete(runId);
      throw error;
    }
    if (!inserted) {
      this.#recording.delete(runId);
      const raced = await this.#store.getRun(runId);
      if (raced) return this.#inspection(raced);
    }
    this.#recording.delete(runId);
    this.#beginTurn(record, { lastSequence: 0, milestones: [] }, null);
    return this.#inspection(record);
  }

  /** The run's snapshot, or `null` when this child has no record of it ("not yet", not failure). */
  async inspect(runId: string): Promise<AgentToolRunInspection | null> {
    const record = await this.#wake(runId);
    if (!record) return null;
    const live = this.#live.get(runId);
    return this.#inspection(record, live);
  }

  /**
   * The run's log entries after `afterSequence`, then live ones, then one `terminal` item. Stopping a tail
   * (cancelling the stream or aborting `signal`) never cancels the run. A tail of an unknown run ends at once.
   */
  tail(runId: string, options: ChildTailOptions = {}): ReadableStream<AgentToolTailItem> {
    return openChildTail(
      {
        store: this.#store,
        wake: (id) => this.#wake(id),
        live: (id) => this.#live.get(id),
        inspection: (record) => this.#inspection(record),
      },
      runId,
      options,
    );
  }

  /**
   * Answer an approval the run waits for (its own, or — through `definition.onApprovalAnswer` — one of a run below it).
   * When the last of its own is answered, the run goes on: its turn continues from the steps it had, the approved
   * tools run (a denied one gets the denial as its result) and the model goes on — no step done again. Resolves
   * whether the approval was found (an unknown or already answered one changes nothing).
   */
  async answerApproval(
    runId: string,
    approvalId: string,
    answer: AgentToolApprovalAnswer,
    status: "approved" | "denied" | "expired" = answer.approved ? "approved" : "denied",
  ): Promise<boolean> {
    await this.#wake(runId);
    const live = this.#live.get(runId);
    const approval = live?.paused?.approvals.find((candidate) => candidate.approvalId === approvalId);
    if (!live?.paused || !approval) {
      if (!this.#definition.onApprovalAnswer) return false;
      try {
        return await this.#definition.onApprovalAnswer(runId, approvalId, answer);
      } catch {
        return false;
      }
    }
    const now = this.#clock.now();
    const reason = answer.reason;
    live.log.append({
      type: "tool-approval-response",
      approvalId,
      approved: answer.approved,
      ...(reason !== undefined ? { reason } : {}),
    } as UIMessageChunk);
    this.appendChunk(
      runId,
      approvalChunk({ ...approval, status, ...(reason !== undefined ? { reason } : {}), at: now }),
    );
    const remaining = live.paused.approvals.filter((candidate) => candidate.approvalId !== approvalId);
    live.paused = { approvals: remaining };
    await live.log.settled();
    await this.#store.updateRun(runId, {
      awaitingApproval: remaining,
      lastSequence: live.log.lastSequence,
      updatedAt: now,
    });
    if (remaining.length === 0) await this.#continueTurn(runId, live);
    return true;
  }

  /** Deny every approval a paused run waited for longer than `timeoutMs` (reason: it expired). */
  async expireApprovals(timeoutMs: number): Promise<number> {
    const now = this.#clock.now();
    let expired = 0;
    for (const [runId, live] of [...this.#live]) {
      for (const approval of live.paused?.approvals ?? []) {
        if (now - approval.at < timeoutMs) continue;
        const answer = { approved: false, reason: "The approval request expired: nobody answered it in time" };
        if (await this.answerApproval(runId, approval.approvalId, answer, "expired")) expired += 1;
      }
    }
    return expired;
  }

  /**
   * When the earliest approval a paused run here waits for expires under `timeoutMs` (`null`: none waits): when the
   * host should call `expireApprovals` next.
   */
  approvalDeadline(timeoutMs: number): number | null {
    let earliest: number | null = null;
    for (const live of this.#live.values()) {
      for (const approval of live.paused?.approvals ?? []) {
        const due = approval.at + timeoutMs;
        if (earliest === null || due < earliest) earliest = due;
      }
    }
    return earliest;
  }

  /** True when run `runId` is live here with a turn executing (not paused waiting for approvals). */
  isExecuting(runId: string): boolean {
    const live = this.#live.get(runId);
    return live !== undefined && live.paused === undefined;
  }

  /**
   * Cancel a live run (→ `aborted`, with `reason`); idempotent, and a no-op on a finished or unknown run. Depth
   * first: what the run dispatched itself (`definition.onCancel`) is cancelled at the same moment its turn is
   * aborted, and the run records its own end only once those have ended (or `descendantsTimeoutMs` passed), so a
   * tree is cancelled from its leaves up. Resolves once the run's end is recorded.
   */
  async cancel(runId: string, reason?: string): Promise<void> {
    await this.#wake(runId);
    const live = this.#live.get(runId);
    if (!live) return;
    const why = reason ?? FALLBACK_CANCEL_REASON;
    live.descendantsEnded ??= this.#cancelDescendants(runId, why);
    if (live.paused) {
      // No turn runs: the run ends here, after what it dispatched.
      await live.descendantsEnded;
      await this.#endPaused(runId, live, why);
      return;
    }
    live.controller.abort(why);
    await live.done;
  }

  /** A paused run is cancelled: it ends `aborted`, what it asked for closed as denied, every tail told. */
  async #endPaused(runId: string, live: LiveRun, reason: string): Promise<void> {
    const record = await this.#store.getRun(runId);
    if (!record || this.#live.get(runId) !== live) return;
    const now = this.#clock.now();
    for (const approval of live.paused?.approvals ?? []) {
      this.appendChunk(runId, approvalChunk({ ...approval, status: "denied", reason, at: now }));
    }
    await live.log.settled();
    const patch: RunRecordPatch = {
      status: "aborted",
      revision: record.revision + 1,
      completedAt: now,
      updatedAt: now,
      error: reason,
      lastSequence: live.log.lastSequence,
      awaitingApproval: [],
      usage: live.budget.total(),
    };
    const final =
      (await this.#store.updateRun(runId, patch).catch(() => null)) ?? ({ ...record, ...patch } as RunRecord);
    this.#live.delete(runId);
    live.log.deliverFinal({ type: "terminal", inspection: this.#inspection(final) });
  }

  /** The turn of a run whose approvals are all answered goes on from everything it logged. */
  async #continueTurn(runId: string, paused: LiveRun): Promise<void> {
    const record = await this.#store.getRun(runId);
    if (!record || this.#live.get(runId) !== paused) return;
    const entries = omitVoidedEntries(await this.#store.readLog(runId));
    const chunks = entries.map((entry) => entry.body);
    const resume: TurnResume = {
      completed: { chunks, message: await assembleTurnMessage(chunks, runId) },
      openStep: null,
    };
    const { paused: _paused, descendantsEnded: _ended, ...rest } = paused;
    const live: LiveRun = { ...rest, controller: new AbortController(), done: Promise.resolve() };
    this.#live.set(runId, live);
    this.#execute(record, live, resume);
  }

  /** Cancel what run `runId` dispatched; resolves once that ended, or the timeout passed (never rejects). */
  #cancelDescendants(runId: string, reason: string): Promise<void> {
    const onCancel = this.#definition.onCancel;
    if (!onCancel) return Promise.resolve();
    const timeoutMs = this.#descendantsTimeoutMs;
    return new Promise<void>((resolve) => {
      const timer = this.#clock.setTimeout(resolve, timeoutMs);
      const settle = () => {
        this.#clock.clearTimeout(timer);
        resolve();
      };
      Promise.resolve()
        .then(() => onCancel.call(this.#definition, runId, reason))
        .then(settle, settle);
    });
  }

  /** Delete the run's storage (cancelling it first if live). Idempotent. */
  async destroy(runId: string): Promise<void> {
    await this.cancel(runId, "Destroyed");
    await this.#store.deleteRuns([runId]);
  }

  /**
   * The run's conversation, for drill-in: the input message and the assistant message built from the log (without
   * the entries a step reset voids). Wakes a cut-off run first, as `inspect` does, so its cut step is voided.
   */
  async getMessages(runId: string): Promise<UIMessage[]> {
    return (await this.getConversation(runId)).messages;
  }

  /**
   * The run's conversation and the log sequence it holds, from one read of the log: a drill-in sends `messages`, then
   * tails from `lastSequence` (nothing doubled, nothing missed). `run` is the run's inspection (`null`: unknown run),
   * with that same `lastSequence`.
   */
  async getConversation(runId: string): Promise<ChildConversationSnapshot> {
    const record = await this.#wake(runId);
    if (!record) return { messages: [], lastSequence: 0, run: null };
    const messages = [toInputMessage(record.input, runId, this.#definition.formatAgentToolInput)];
    const entries = await this.#store.readLog(runId);
    const lastSequence = entries.at(-1)?.sequence ?? 0;
    const assistant = await assembleMessage(
      omitVoidedEntries(entries).map((entry) => entry.body),
      `agent-tool-${runId}-output`,
    );
    if (assistant) messages.push(assistant);
    const current = (await this.#store.getRun(runId)) ?? record;
    const run = { ...this.#inspection(current, this.#live.get(runId)), lastSequence };
    return { messages, lastSequence, run };
  }

  /**
   * Append one durable chunk (e.g. a `data-agent-milestone`) to a live run's log with the next sequence. Used by
   * extension packages; returns the sequence, or `null` when the run is not live here.
   */
  appendChunk(
    runId: string,
    body: UIMessageChunk,
    milestone?: Omit<AgentToolMilestone, "sequence" | "at">,
  ): number | null {
    const live = this.#live.get(runId);
    if (!live) return null;
    const entry = live.log.append(body);
    const approval = readApprovalChunk(body);
    if (approval) live.approvals.set(approval.approvalId, approval);
    if (milestone) {
      live.milestones.push({ ...milestone, sequence: entry.sequence, at: entry.at });
      // A milestone moves the latest snapshot on, keeping what it does not bring itself (the rule clients apply).
      const { name, ...fields } = milestone;
      const given = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
      const report: AgentToolProgressSnapshot = { ...given, milestone: name, at: entry.at };
      const next = nextProgressSnapshot(live.progress, report, "milestone");
      if (next) this.#recordProgress(runId, live, next);
    }
    return entry.sequence;
  }

  /**
   * Send an ephemeral chunk (e.g. `data-agent-progress`) to live tails of a run, without a sequence, and keep
   * `snapshot` as the run's latest progress. Returns false when the run is not live here.
   */
  publishEphemeral(runId: string, body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot): boolean {
    const live = this.#live.get(runId);
    if (!live) return false;
    if (snapshot) this.#recordProgress(runId, live, snapshot);
    live.log.publish({ type: "progress", body, at: this.#clock.now() });
    return true;
  }

  #recordProgress(runId: string, live: LiveRun, snapshot: AgentToolProgressSnapshot): void {
    live.progress = snapshot;
    void this.#store.updateRun(runId, { progress: snapshot }).catch(() => undefined);
  }

  /** The budget of a live run (what it and its subtree spent, what is left), or `null` when it is not live here. */
  budgetOf(runId: string): RunBudget | null {
    return this.#live.get(runId)?.budget ?? null;
  }

  /** A run that run `runId` dispatched reported its subtree's total. */
  recordChildUsage(runId: string, childRunId: string, usage: AgentToolUsage): void {
    this.#live.get(runId)?.budget.recordChild(childRunId, usage);
  }

  /** Run `runId` dispatched one more run. */
  recordDispatch(runId: string): void {
    this.#live.get(runId)?.budget.recordDispatch();
  }

  /** An ancestor's budget ran out: run `runId` gets its wrap-up step, then no other model call. */
  wrapUp(runId: string, reason: AgentToolBudgetExhaustion): void {
    this.#live.get(runId)?.budget.exhaust(reason);
  }

  /** True while this runner is executing the run's turn. */
  isLive(runId: string): boolean {
    return this.#live.has(runId);
  }

  /** The runs whose turns this runner is executing now (a child object that hosts one run has at most one). */
  liveRunIds(): string[] {
    return [...this.#live.keys()];
  }

  /**
   * Load a run's record, resuming a run whose turn was cut off (the host was evicted or restarted mid-turn) from
   * its log: the steps it completed are given back to the turn, not done again. After `maxRecoveryAttempts` (or
   * when `shouldKeepRecovering` says no) the run ends as `error` instead of staying `running` forever.
   * Single-flight per run.
   */
  #wake(runId: string): Promise<RunRecord | null> {
    const inFlight = this.#waking.get(runId);
    if (inFlight !== undefined) return inFlight;
    const waking = this.#wakeOnce(runId).finally(() => this.#waking.delete(runId));
    this.#waking.set(runId, waking);
    return waking;
  }

  async #wakeOnce(runId: string): Promise<RunRecord | null> {
    const record = await this.#store.getRun(runId);
    // A run being recorded right now (between insert and the start of its turn) is not cut off.
    if (record?.status !== "running" || this.#live.has(runId) || this.#recording.has(runId)) return record;
    // A paused run is not cut: it is made live again (its tails can wait), still waiting for its approvals.
    if ((record.awaitingApproval?.length ?? 0) > 0) return this.#wakePaused(record);
    return recoverCutOffRun(
      this.#recovery,
      record,
      (claimed, plan) => this.#beginTurn(claimed, plan, { completed: plan.completed, openStep: plan.openStep }),
      () => this.#live.has(runId),
    );
  }

  /** Make the run live here and start its turn in the background (a resumed one when `resume` is given). */
  /**
   * Make a run that waits for approvals live again, paused. Its row is written before its requests go into the log,
   * and an answer goes into the log before the row: a stop between the two is made good here (requests not in the
   * log are published; answered ones no longer wait, and with none left the turn goes on).
   */
  async #wakePaused(record: RunRecord): Promise<RunRecord> {
    const { runId } = record;
    const entries = await this.#store.readLog(runId);
    let usage: AgentToolUsage | undefined;
    const logged = new Set<string>();
    const answered = new Set<string>();
    for (const entry of entries) {
      usage = readOwnUsage(entry.body) ?? readUsageChunk(entry.body) ?? usage;
      const approval = readApprovalChunk(entry.body);
      if (approval) logged.add(approval.approvalId);
      const body = entry.body as { type: string; approvalId?: unknown };
      if (body.type === "tool-approval-response" && typeof body.approvalId === "string") answered.add(body.approvalId);
    }
    const lastSequence = Math.max(record.lastSequence, entries.at(-1)?.sequence ?? 0);
    const waiting = (record.awaitingApproval ?? []).filter((approval) => !answered.has(approval.approvalId));
    const log = { lastSequence, milestones: record.milestones ?? [], ...(usage ? { usage } : {}) };
    const live = this.#beginTurn({ ...record, awaitingApproval: waiting }, log, "paused");
    for (const approval of waiting) {
      if (!logged.has(approval.approvalId)) this.appendChunk(runId, approvalChunk(approval));
    }
    if (waiting.length === 0) await this.#continueTurn(runId, live);
    return record;
  }

  #beginTurn(
    record: RunRecord,
    log: { lastSequence: number; milestones: AgentToolMilestone[]; usage?: AgentToolUsage },
    resume: TurnResume | null | "paused",
  ): LiveRun {
    const { runId } = record;
    const live: LiveRun = {
      approvals: new Map(),
      budget: new RunBudget({
        budget: record.tree?.budget,
        clock: this.#clock,
        ...(log.usage !== undefined ? { initial: log.usage } : {}),
        // The subtree's total goes into the run's log at each change: its parent (and every client) reads it there.
        onChange: (total) => void this.appendChunk(runId, usageChunk(total, live.budget.own())),
        onExhausted: (reason) => {
          try {
            this.#definition.onBudgetExhausted?.(runId, reason);
          } catch {
            // a definition's hook never breaks the run
          }
        },
      }),
      controller: new AbortController(),
      log: new LiveRunLog({
        store: this.#store,
        clock: this.#clock,
        runId,
        lastSequence: log.lastSequence,
        onStoreError: () => live.controller.abort("store failed"),
      }),
      // A resumed turn's milestones move on from the progress its cut turn had reached.
      progress: record.progress,
      milestones: log.milestones,
      done: Promise.resolve(),
    };
    this.#live.set(runId, live);
    // A resumed run: what the runs it dispatched before spent is read back from their rows.
    if (resume !== null) this.#restoreDispatchedUsage(runId, live);
    if (resume === "paused") {
      live.paused = { approvals: record.awaitingApproval ?? [] };
      for (const approval of live.paused.approvals) live.approvals.set(approval.approvalId, approval);
      return live;
    }
    this.#execute(record, live, resume);
    return live;
  }

  #restoreDispatchedUsage(runId: string, live: LiveRun): void {
    const read = this.#definition.dispatchedUsage;
    if (!read) return;
    const restored = Promise.resolve()
      .then(() => read(runId))
      .then(({ children, dispatched }) => live.budget.restore(children, dispatched))
      .catch(() => undefined);
    this.#waitUntil?.(restored);
  }

  /** Execute a turn of `record`'s run (from `resume`, when it goes on) as `live`, in the run's scope. */
  #execute(record: RunRecord, live: LiveRun, resume: TurnResume | null): void {
    const done = this.#runScope(
      record.runId,
      () => runChildTurn(this.#hostFor(record.runId), record, live, resume),
      record.tree ?? null,
      record.trace ?? null,
    );
    live.done = done;
    this.#waitUntil?.(done);
  }

  /** What executing a turn of run `runId` needs from this runner. */
  #hostFor(runId: string): ChildTurnHost {
    return {
      definition: this.#definition,
      store: this.#store,
      clock: this.#clock,
      agentType: this.agentType,
      emit: (event) => this.#emit(event),
      appendChunk: (body, milestone) => this.appendChunk(runId, body, milestone),
      publishEphemeral: (body, snapshot) => this.publishEphemeral(runId, body, snapshot),
      inspection: (final) => this.#inspection(final),
      ended: () => this.#live.delete(runId),
      pause: (record, waiting) => this.#pause(record, waiting),
      ...(this.#yieldToEventLoop ? { yieldToEventLoop: this.#yieldToEventLoop } : {}),
    };
  }

  /** The run's turn ended on tool calls that need approval: it pauses (live here, tails open) until answered. */
  async #pause(
    record: RunRecord,
    waiting: Array<{ approvalId: string; toolCallId: string; toolName: string; input: unknown }>,
  ): Promise<void> {
    const { runId } = record;
    const live = this.#live.get(runId);
    if (!live) return;
    const now = this.#clock.now();
    const approvals: AgentToolApproval[] = waiting.map((call) => ({
      approvalId: call.approvalId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...(call.input !== undefined ? { input: call.input as JsonValue } : {}),
      path: [],
      status: "pending",
      at: now,
    }));
    live.paused = { approvals };
    // The row first: a run the row says waits is paused again after a restart (and its requests published then, if
    // they did not reach the log).
    await live.log.settled();
    try {
      await this.#store.updateRun(runId, {
        awaitingApproval: approvals,
        lastSequence: live.log.lastSequence,
        usage: live.budget.total(),
        updatedAt: now,
      });
    } catch {
      // Published all the same: a restart before the next write resumes the turn, which asks again.
    }
    for (const approval of approvals) this.appendChunk(runId, approvalChunk(approval));
    await live.log.settled();
    this.#emit({
      type: "agent_tool:child:approval",
      runId,
      agentType: this.agentType,
      pending: approvals.length,
      at: now,
    });
  }

  #inspection(record: RunRecord, live?: LiveRun): AgentToolRunInspection {
    const status: ChildRunStatus =
      record.status === "starting" || record.status === "interrupted" ? "running" : record.status;
    return {
      runId: record.runId,
      status,
      milestones: [...(live?.milestones ?? record.milestones ?? [])],
      lastSequence: live?.log.lastSequence ?? record.lastSequence,
      startedAt: record.startedAt,
      ...(record.summary !== undefined ? { summary: record.summary } : {}),
      ...(record.output !== undefined ? { output: record.output } : {}),
      ...(record.error !== undefined ? { error: record.error } : {}),
      ...(record.progress !== undefined ? { progress: record.progress } : {}),
      ...(record.completedAt !== undefined ? { completedAt: record.completedAt } : {}),
      ...(record.usage !== undefined ? { usage: record.usage } : {}),
      ...(record.budgetExceeded !== undefined ? { budgetExceeded: record.budgetExceeded } : {}),
      ...(waitingFor(record, live).length > 0 ? { awaitingApproval: waitingFor(record, live) } : {}),
    };
  }

  #emit(event: Parameters<RunEventSink["emit"]>[0]): void {
    try {
      this.#sink.emit(event);
    } catch {
      // observability never breaks a run
    }
  }
}

/** The approvals a run waits for: its own pause's (or its row's), and those of runs below it still pending. */
function waitingFor(record: RunRecord, live: LiveRun | undefined): AgentToolApproval[] {
  if (!live) return record.status === "running" ? (record.awaitingApproval ?? []) : [];
  return [...live.approvals.values()].filter((approval) => approval.status === "pending");
}
