import type { UIMessage, UIMessageChunk } from "ai";
import { assembleMessage } from "./assemble-message.js";
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
import type { AgentToolTree } from "./protocol/index.js";
import {
  type AgentToolMilestone,
  type AgentToolProgressSnapshot,
  type AgentToolRunInspection,
  type AgentToolTailItem,
  type ChildRunStatus,
  nextProgressSnapshot,
} from "./protocol/index.js";
import { getDefaultRunEventHub } from "./run-event-hub.js";
import type { RunRecord } from "./run-record.js";
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
  runScope?: <TResult>(runId: string, run: () => TResult, tree: AgentToolTree | null) => TResult;
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
    live.controller.abort(why);
    await live.done;
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
    return recoverCutOffRun(
      this.#recovery,
      record,
      (claimed, plan) => this.#beginTurn(claimed, plan, { completed: plan.completed, openStep: plan.openStep }),
      () => this.#live.has(runId),
    );
  }

  /** Make the run live here and start its turn in the background (a resumed one when `resume` is given). */
  #beginTurn(
    record: RunRecord,
    log: { lastSequence: number; milestones: AgentToolMilestone[] },
    resume: TurnResume | null,
  ): void {
    const { runId } = record;
    const live: LiveRun = {
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
    const host: ChildTurnHost = {
      definition: this.#definition,
      store: this.#store,
      clock: this.#clock,
      agentType: this.agentType,
      emit: (event) => this.#emit(event),
      appendChunk: (body, milestone) => this.appendChunk(runId, body, milestone),
      publishEphemeral: (body, snapshot) => this.publishEphemeral(runId, body, snapshot),
      inspection: (final) => this.#inspection(final),
      ended: () => this.#live.delete(runId),
      ...(this.#yieldToEventLoop ? { yieldToEventLoop: this.#yieldToEventLoop } : {}),
    };
    const done = this.#runScope(runId, () => runChildTurn(host, record, live, resume), record.tree ?? null);
    live.done = done;
    this.#waitUntil?.(done);
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
