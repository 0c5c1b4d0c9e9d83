import type { UIMessage, UIMessageChunk } from "ai";
import { assembleMessage, type CompletedSteps, completedSteps } from "./assemble-message.js";
import { type FormatAgentToolInput, toInputMessage } from "./child-input-message.js";
import { errorMessage } from "./errors.js";
import { type Clock, systemClock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import type {
  AgentToolLogEntry,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolRunInspection,
  AgentToolTailItem,
  ChildRunStatus,
} from "./protocol/index.js";
import { AGENT_PROGRESS_PART, readMilestoneChunk } from "./protocol/index.js";
import { getDefaultRunEventHub } from "./run-event-hub.js";
import type { RunRecord, RunRecordPatch } from "./run-record.js";
import { TurnObserver } from "./turn-observer.js";

/** What a child turn receives. */
export type AgentToolTurnContext = {
  runId: string;
  input: unknown;
  /**
   * The conversation so far: the input as a user message and, when the turn is resumed after the host was cut
   * off, the assistant message of the steps it had completed (model steps and tool results), so that a
   * `streamText` over these messages goes on from there instead of doing them again.
   */
  messages: UIMessage[];
  /** True when this turn resumes a run whose earlier turn was cut off. */
  resumed: boolean;
  /** The run's milestones so far (a resumed turn can skip reporting them again). */
  milestones: readonly AgentToolMilestone[];
  /** Aborted when the run is cancelled: pass it to `streamText`. */
  abortSignal: AbortSignal;
  clock: Clock;
  /** Record the run's structured output; `getAgentToolOutput` returns it by default. */
  setOutput(output: unknown): void;
  /**
   * Append a durable chunk (e.g. a `data-agent-milestone`) to this run's log with the next sequence, in the same
   * sequence space as the turn's own chunks; pass `milestone` to list it in the run's inspection. Returns the
   * sequence, or `null` once the run has ended.
   */
  appendChunk(body: UIMessageChunk, milestone?: Omit<AgentToolMilestone, "sequence" | "at">): number | null;
  /**
   * Send an ephemeral chunk (e.g. `data-agent-progress`) to live tails without a sequence, and keep `snapshot`
   * (when given) as the run's latest progress on its row. Returns false once the run has ended.
   */
  publishEphemeral(body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot): boolean;
};

/** A turn's chunks: usually `toUIMessageStream({ stream: streamText(…).stream, tools })`. */
export type AgentToolTurnStream = ReadableStream<UIMessageChunk> | AsyncIterable<UIMessageChunk>;

/**
 * A child agent type: how it turns a run's input into one turn of `UIMessageChunk`s, and how the turn becomes a
 * result. Names keep the seed's spelling.
 */
export type AgentToolChildDefinition = {
  /** The agentType parents use; must survive minification (don't rely on class names). */
  agentType: string;
  /** Run one turn. Everything it yields goes into the run's durable log with the next sequence. */
  turn(context: AgentToolTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  /** Default: a string as is, anything else as pretty JSON; message id `agent-tool-${runId}-input`. */
  formatAgentToolInput?: FormatAgentToolInput;
  /** Read right after the turn resolves. Default: what the turn passed to `setOutput`. */
  getAgentToolOutput?(context: { runId: string; input: unknown; output: unknown }): unknown;
  /** Default: the turn's assistant text (last step with text), else the output as text. */
  getAgentToolSummary?(context: { runId: string; output: unknown; text: string }): string;
};

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
  /** How many times a cut-off turn is resumed before the run ends as `error`. Default 3. */
  maxRecoveryAttempts?: number;
  /** Whether to resume a cut-off run (checked before each attempt). Default: always, within the attempts. */
  shouldKeepRecovering?: (run: RunRecord) => boolean;
};

/** Default `maxRecoveryAttempts`. */
export const DEFAULT_MAX_RECOVERY_ATTEMPTS = 3;

/** The error a run ends with when its cut-off turn cannot be resumed. */
export const INTERRUPTED_CHILD_ERROR = "interrupted before the child could finish";

type TailListener = (item: AgentToolTailItem) => void;

/** How many log entries wait in `pending` (held in a few `entries` items). */
function pendingEntries(pending: readonly AgentToolTailItem[]): number {
  let count = 0;
  for (const item of pending) if (item.type === "entries") count += item.entries.length;
  return count;
}

type LiveRun = {
  controller: AbortController;
  listeners: Set<TailListener>;
  lastSequence: number;
  /**
   * Entries and ephemeral items not yet delivered, in order: entries wait for their write, the rest for them.
   * Consecutive entries share one `entries` item (appended to until the next flush takes it).
   */
  pending: AgentToolTailItem[];
  /** The latest progress snapshot (also persisted on the row). */
  progress: AgentToolProgressSnapshot | undefined;
  flushing: Promise<void> | null;
  /** Set while the turn is mid-burst: its chunks are written when the burst ends. */
  holdFlush?: boolean;
  storeError: unknown;
  milestones: AgentToolMilestone[];
  done: Promise<void>;
};

const MAX_TAIL_PAGE = 500;
const MAX_BURST = 256;
const READ_WOULD_WAIT = Symbol("read would wait");

const FALLBACK_CANCEL_REASON = "Cancelled";

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
  readonly #maxRecoveryAttempts: number;
  readonly #shouldKeepRecovering: (run: RunRecord) => boolean;

  constructor(options: AgentToolChildRunnerOptions) {
    this.#maxRecoveryAttempts = options.maxRecoveryAttempts ?? DEFAULT_MAX_RECOVERY_ATTEMPTS;
    this.#shouldKeepRecovering = options.shouldKeepRecovering ?? (() => true);
    this.#definition = options.definition;
    this.agentType = options.definition.agentType;
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    this.#sink = options.sink ?? getDefaultRunEventHub();
    this.#waitUntil = options.waitUntil;
  }

  /**
   * Start a run, idempotently: a runId already known returns its inspection and starts no second turn.
   * Resolves once the run is recorded; the turn goes on in the background.
   */
  start(runId: string, input: unknown): Promise<AgentToolRunInspection> {
    const inFlight = this.#starting.get(runId);
    if (inFlight !== undefined) return inFlight;
    const started = this.#start(runId, input).finally(() => this.#starting.delete(runId));
    this.#starting.set(runId, started);
    return started;
  }

  async #start(runId: string, input: unknown): Promise<AgentToolRunInspection> {
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
    const live = this.#beginLive(runId, 0, []);
    this.#recording.delete(runId);
    const done = this.#runTurn(record, live, null);
    live.done = done;
    this.#waitUntil?.(done);
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
  tail(
    runId: string,
    options: { afterSequence?: number; signal?: AbortSignal; onOpen?: () => void } = {},
  ): ReadableStream<AgentToolTailItem> {
    let cursor = options.afterSequence ?? 0;
    let unsubscribe = () => {};
    let closed = false;
    const close = (controller: ReadableStreamDefaultController<AgentToolTailItem>) => {
      if (closed) return;
      closed = true;
      unsubscribe();
      options.signal?.removeEventListener("abort", onAbort);
      try {
        controller.close();
      } catch {
        // already closed or cancelled by the reader
      }
    };
    let onAbort = () => {};
    return new ReadableStream<AgentToolTailItem>({
      start: async (controller) => {
        onAbort = () => close(controller);
        if (options.signal?.aborted) return close(controller);
        options.signal?.addEventListener("abort", onAbort, { once: true });
        const record = await this.#wake(runId);
        try {
          options.onOpen?.();
        } catch {
          // the caller's notification; the tail goes on
        }
        if (!record || closed) return close(controller);
        // Subscribe before draining: entries written during the drain are buffered, then deduped by sequence.
        const live = this.#live.get(runId);
        const buffered: AgentToolTailItem[] = [];
        let draining = true;
        const deliver = (item: AgentToolTailItem) => {
          if (closed) return;
          if (item.type === "entries") {
            const after = cursor;
            const fresh = item.entries.filter((entry) => entry.sequence > after);
            const last = fresh.at(-1);
            if (!last) return;
            cursor = last.sequence;
            controller.enqueue(fresh.length === item.entries.length ? item : { type: "entries", entries: fresh });
            return;
          }
          controller.enqueue(item);
          if (item.type === "terminal") close(controller);
        };
        if (live) {
          const listener: TailListener = (item) => (draining ? buffered.push(item) : deliver(item));
          live.listeners.add(listener);
          unsubscribe = () => live.listeners.delete(listener);
        }
        try {
          for (;;) {
            const page = await this.#store.readLog(runId, { afterSequence: cursor, limit: MAX_TAIL_PAGE });
            if (page.length > 0) deliver({ type: "entries", entries: page });
            if (page.length < MAX_TAIL_PAGE || closed) break;
          }
        } catch (error) {
          if (!closed) controller.error(error);
          closed = true;
          unsubscribe();
          return;
        }
        draining = false;
        // A tail that attaches mid-run starts from the latest progress (ephemeral frames sent before it are gone).
        const progress = live?.progress;
        if (live && progress && !closed) {
          const body = { type: AGENT_PROGRESS_PART, data: progress, transient: true } as unknown as UIMessageChunk;
          deliver({ type: "progress", body, at: progress.at, catchUp: true });
        }
        for (const item of buffered.splice(0)) deliver(item);
        if (!live && !closed) {
          const final = (await this.#store.getRun(runId)) ?? record;
          deliver({ type: "terminal", inspection: this.#inspection(final) });
        }
      },
      cancel: () => {
        closed = true;
        unsubscribe();
        options.signal?.removeEventListener("abort", onAbort);
      },
    });
  }

  /** Cancel a live run (→ `aborted`); idempotent, and a no-op on a finished or unknown run. */
  async cancel(runId: string, reason?: string): Promise<void> {
    await this.#wake(runId);
    const live = this.#live.get(runId);
    if (!live) return;
    live.controller.abort(reason ?? FALLBACK_CANCEL_REASON);
    await live.done;
  }

  /** Delete the run's storage (cancelling it first if live). Idempotent. */
  async destroy(runId: string): Promise<void> {
    await this.cancel(runId, "Destroyed");
    await this.#store.deleteRuns([runId]);
  }

  /** The run's conversation, for drill-in: the input message and the assistant message built from the log. */
  async getMessages(runId: string): Promise<UIMessage[]> {
    const record = await this.#store.getRun(runId);
    if (!record) return [];
    const messages = [toInputMessage(record.input, runId, this.#definition.formatAgentToolInput)];
    const entries = await this.#store.readLog(runId);
    const assistant = await assembleMessage(
      entries.map((entry) => entry.body),
      `agent-tool-${runId}-output`,
    );
    if (assistant) messages.push(assistant);
    return messages;
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
    const entry = this.#enqueue(runId, live, body);
    if (milestone) {
      live.milestones.push({ ...milestone, sequence: entry.sequence, at: entry.at });
      // A milestone moves the latest snapshot on, keeping what it does not bring itself (the bar's fraction and
      // message, and persisted data: a milestone's own data lives in the log).
      const { name, data: _data, ...fields } = milestone;
      const given = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
      this.#recordProgress(runId, live, { ...live.progress, ...given, milestone: name, at: entry.at });
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
    this.#deliverEphemeral(live, { type: "progress", body, at: this.#clock.now() });
    return true;
  }

  /** Deliver an ephemeral item now, or after the entries still being written (so it never overtakes them). */
  #deliverEphemeral(live: LiveRun, item: AgentToolTailItem & { type: "progress" }): void {
    if (live.flushing || live.pending.length > 0) {
      live.pending.push(item);
      return;
    }
    for (const listener of live.listeners) listener(item);
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
    const attempts = (record.recoveryAttempts ?? 0) + 1;
    let keepGoing = attempts <= this.#maxRecoveryAttempts;
    if (keepGoing) {
      try {
        keepGoing = this.#shouldKeepRecovering(record);
      } catch {
        keepGoing = false;
      }
    }
    const now = this.#clock.now();
    this.#emit({
      type: "agent_tool:child:recover",
      runId,
      agentType: this.agentType,
      attempt: attempts,
      outcome: keepGoing ? "resumed" : "gave-up",
      at: now,
    });
    if (!keepGoing) {
      const ended = await this.#store.updateRun(
        runId,
        {
          status: "error",
          error: INTERRUPTED_CHILD_ERROR,
          revision: record.revision + 1,
          completedAt: now,
          updatedAt: now,
          recoveryAttempts: attempts,
        },
        { expectedRevision: record.revision },
      );
      return ended ?? (await this.#store.getRun(runId));
    }
    const claimed = await this.#store.updateRun(
      runId,
      { recoveryAttempts: attempts, updatedAt: now },
      { expectedRevision: record.revision },
    );
    if (!claimed) return this.#store.getRun(runId);
    if (this.#live.has(runId)) return claimed;
    const entries = await this.#store.readLog(runId);
    const lastSequence = entries.at(-1)?.sequence ?? 0;
    const milestones = entries.flatMap((entry) => {
      const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
      return milestone ? [milestone] : [];
    });
    const live = this.#beginLive(runId, lastSequence, milestones);
    const done = this.#runTurn(claimed, live, await completedSteps(entries, runId));
    live.done = done;
    this.#waitUntil?.(done);
    return claimed;
  }

  #beginLive(runId: string, lastSequence: number, milestones: AgentToolMilestone[]): LiveRun {
    const live: LiveRun = {
      controller: new AbortController(),
      listeners: new Set(),
      lastSequence,
      pending: [],
      progress: undefined,
      flushing: null,
      storeError: undefined,
      milestones,
      done: Promise.resolve(),
    };
    this.#live.set(runId, live);
    return live;
  }

  #enqueue(runId: string, live: LiveRun, body: UIMessageChunk): AgentToolLogEntry {
    live.lastSequence += 1;
    const entry: AgentToolLogEntry = { sequence: live.lastSequence, body, at: this.#clock.now() };
    const last = live.pending.at(-1);
    if (last?.type === "entries") last.entries.push(entry);
    else live.pending.push({ type: "entries", entries: [entry] });
    // Group commit: everything enqueued while a write is in flight goes out in the next single append.
    if (!live.holdFlush) live.flushing ??= this.#flush(runId, live);
    return entry;
  }

  async #flush(runId: string, live: LiveRun): Promise<void> {
    try {
      while (live.pending.length > 0) {
        const batch = live.pending.splice(0);
        const entries = batch.flatMap((item) => (item.type === "entries" ? item.entries : []));
        if (entries.length > 0) await this.#store.appendLog(runId, entries);
        for (const item of batch) {
          for (const listener of live.listeners) listener(item);
        }
      }
    } catch (error) {
      live.storeError = error;
      live.pending.length = 0;
      live.controller.abort("store failed");
    } finally {
      live.flushing = null;
    }
  }

  async #runTurn(record: RunRecord, live: LiveRun, resume: CompletedSteps | null): Promise<void> {
    const { runId } = record;
    const observer = new TurnObserver();
    // A resumed turn's summary and tool bookkeeping start from the steps it had completed.
    for (const chunk of resume?.chunks ?? []) observer.observe(chunk);
    const signal = live.controller.signal;
    let output: unknown;
    let thrown: unknown;
    let entries = 0;
    this.#emit({
      type: "agent_tool:child:turn:start",
      runId,
      agentType: this.agentType,
      resumed: resume !== null,
      at: this.#clock.now(),
    });
    try {
      const messages = [toInputMessage(record.input, runId, this.#definition.formatAgentToolInput)];
      if (resume?.message) messages.push(resume.message);
      const stream = await this.#definition.turn({
        runId,
        input: record.input,
        messages,
        resumed: resume !== null,
        milestones: live.milestones,
        abortSignal: signal,
        clock: this.#clock,
        setOutput: (value) => {
          output = value;
        },
        appendChunk: (body, milestone) => this.appendChunk(runId, body, milestone),
        publishEphemeral: (body, snapshot) => this.publishEphemeral(runId, body, snapshot),
      });
      const reader = toReader(stream);
      const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        while (!signal.aborted) {
          const pending = reader.read();
          let result = await Promise.race([
            pending,
            Promise.resolve().then((): typeof READ_WOULD_WAIT => READ_WOULD_WAIT),
          ]);
          if (result === READ_WOULD_WAIT) {
            // The turn has nothing more ready: write what it produced so far (one append per burst).
            live.holdFlush = false;
            if (live.pending.length > 0) live.flushing ??= this.#flush(runId, live);
            result = await pending;
          }
          live.holdFlush = pendingEntries(live.pending) < MAX_BURST;
          const { done, value } = result;
          if (done || signal.aborted) break;
          if (isTransient(value)) {
            this.#deliverEphemeral(live, { type: "progress", body: value, at: this.#clock.now() });
            continue;
          }
          observer.observe(value);
          this.#enqueue(runId, live, value);
          entries += 1;
        }
      } finally {
        live.holdFlush = false;
        if (live.pending.length > 0) live.flushing ??= this.#flush(runId, live);
        signal.removeEventListener("abort", onAbort);
        reader.releaseLock?.();
      }
    } catch (error) {
      thrown = error;
    }
    while (live.flushing !== null) await live.flushing;

    let status: ChildRunStatus;
    let error: string | undefined;
    let summary: string | undefined;
    if (live.storeError !== undefined) {
      status = "error";
      error = `The child could not store its log: ${errorMessage(live.storeError)}`;
    } else if (signal.aborted) {
      status = "aborted";
      error = typeof signal.reason === "string" ? signal.reason : errorMessage(signal.reason);
    } else if (thrown !== undefined) {
      status = "error";
      error = errorMessage(thrown);
    } else if (observer.error !== undefined) {
      status = "error";
      error = observer.error;
    } else if (observer.unexecutedTools.length > 0) {
      status = "error";
      error = `The child called ${observer.unexecutedTools.map((name) => `"${name}"`).join(", ")}, which has no server-side execution; client-side tools are not available in an agent-tool run`;
    } else {
      status = "completed";
      try {
        const definition = this.#definition;
        if (definition.getAgentToolOutput)
          output = await definition.getAgentToolOutput({ runId, input: record.input, output });
        summary = definition.getAgentToolSummary
          ? definition.getAgentToolSummary({ runId, output, text: observer.text })
          : observer.text || outputAsText(output);
      } catch (hookError) {
        status = "error";
        error = `Reading the child's output failed: ${errorMessage(hookError)}`;
        output = undefined;
      }
    }

    const now = this.#clock.now();
    const patch: RunRecordPatch = {
      status,
      revision: record.revision + 1,
      completedAt: now,
      updatedAt: now,
      lastSequence: live.lastSequence,
      milestones: live.milestones,
      ...(summary !== undefined ? { summary } : {}),
      ...(error !== undefined ? { error } : {}),
      ...(status === "completed" && output !== undefined ? { output } : {}),
    };
    let final = { ...record, ...patch } as RunRecord;
    try {
      final = (await this.#store.updateRun(runId, patch)) ?? final;
    } catch {
      // The terminal is still delivered to live tails; a later wake repairs the stored row.
    }
    this.#live.delete(runId);
    this.#emit({ type: "agent_tool:child:turn:finish", runId, agentType: this.agentType, status, entries, at: now });
    const terminal: AgentToolTailItem = { type: "terminal", inspection: this.#inspection(final) };
    for (const listener of [...live.listeners]) listener(terminal);
  }

  #inspection(record: RunRecord, live?: LiveRun): AgentToolRunInspection {
    const status: ChildRunStatus =
      record.status === "starting" || record.status === "interrupted" ? "running" : record.status;
    return {
      runId: record.runId,
      status,
      milestones: [...(live?.milestones ?? record.milestones ?? [])],
      lastSequence: live?.lastSequence ?? record.lastSequence,
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

function isTransient(chunk: UIMessageChunk): boolean {
  return (chunk as { transient?: unknown }).transient === true;
}

function outputAsText(output: unknown): string {
  if (output === undefined || output === null) return "";
  if (typeof output === "string") return output;
  try {
    return JSON.stringify(output) ?? "";
  } catch {
    return String(output);
  }
}

function toReader(stream: AgentToolTurnStream): ReadableStreamDefaultReader<UIMessageChunk> {
  if (stream instanceof ReadableStream) return stream.getReader();
  const iterator = stream[Symbol.asyncIterator]();
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  }).getReader();
}
