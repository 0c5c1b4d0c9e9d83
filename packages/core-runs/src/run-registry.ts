import { type AgentToolChildReference, resolveAgentType } from "./agent-type.js";
import { errorMessage } from "./errors.js";
import { inputByteLength, makeInputPreview } from "./input-preview.js";
import type { ChildRef, ChildTransport } from "./ports/child-transport.js";
import { type Clock, systemClock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import {
  type AgentToolEventFrame,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  type AgentToolResult,
  type AgentToolRunInfo,
  type AgentToolRunInspection,
  type AgentToolTailItem,
  isHardTerminalStatus,
  isLiveStatus,
  isTerminalStatus,
  type RunStatus,
  readProgressChunk,
  type TerminalRunStatus,
} from "./protocol/index.js";
import {
  type AgentToolHooks,
  type AgentToolRegistryOptions,
  type AgentToolRunOutcome,
  type ClearAgentToolRunsOptions,
  DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES,
  type FollowAgentToolRunOptions,
  type ReplayOptions,
  type RunAgentToolOptions,
  type RunFinishedListener,
  type StartAgentToolRunResult,
} from "./registry-options.js";
import { replayRuns } from "./replay-runs.js";
import { getDefaultRunEventHub } from "./run-event-hub.js";
import type { DispatchRejection, RunEvent } from "./run-events.js";
import { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./run-frames.js";
import { type RunRecord, type RunRecordPatch, toRunInfo } from "./run-record.js";
import { failure, toAgentToolResult, toLifecycleResult } from "./run-result.js";

const MAX_TAIL_ATTEMPTS = 3;

type LiveState = {
  /** Set by a cancel that arrived before the child acknowledged start. */
  cancelRequested: string | null;
  /** While the start acknowledgement waits for the tail (#follow): write it now (a cancel arrived). */
  acknowledgeNow?: () => void;
  entries: AgentToolLogEntry[];
  lastSequence: number;
  progress?: AgentToolProgressSnapshot;
  tailController: AbortController;
  cleared: boolean;
  /** Set when a follower stopped waiting: the terminal outcome to record instead of the child's. */
  stoppedWith: AgentToolRunOutcome | null;
  /** Called for every entry or progress item forwarded (re-attach windows are keyed to this). */
  activity: Set<(item: AgentToolTailItem) => void>;
};

/**
 * A parent's registry of agent-tool runs: dispatch (awaited here; detached in `@agent-tools/detached`),
 * idempotency by runId, the concurrency cap, the status machine with revisions, lifecycle hooks through a
 * ledger, frames to clients, replay with cursors, clearing and access checks. One registry per parent; it is
 * the only writer of its store.
 *
 * @example
 * const registry = new AgentToolRegistry({ store, transport, broadcast: (frame) => sendToAll(frame) });
 * const result = await registry.runAgentTool("Researcher", { input: "Find three sources on X" });
 * if (result.ok) console.log(result.summary);
 */
export class AgentToolRegistry {
  readonly store: RunStore;
  readonly transport: ChildTransport;
  readonly clock: Clock;
  readonly #sink: RunEventSink;
  readonly #hooks: AgentToolHooks;
  readonly #broadcast: (frame: AgentToolEventFrame) => void;
  readonly #maxConcurrent: number;
  readonly #overCap: "record" | "refuse";
  readonly #maxInputBytes: number;
  readonly #generateRunId: () => string;
  readonly #waitUntil: ((promise: Promise<unknown>) => void) | undefined;
  /** Runs holding a slot; loaded from the store once, then kept in step by this (single) writer. */
  #slots: Set<string> | null = null;
  #slotsLoading: Promise<Set<string>> | null = null;
  readonly #drivers = new Map<string, Promise<RunRecord | null>>();
  readonly #live = new Map<string, LiveState>();
  readonly #admitting = new Map<string, Promise<StartAgentToolRunResult>>();
  readonly #finishListeners = new Set<RunFinishedListener>();
  readonly #pending = new Set<Promise<void>>();

  constructor(options: AgentToolRegistryOptions) {
    this.store = options.store;
    this.transport = options.transport;
    this.clock = options.clock ?? systemClock;
    this.#sink = options.sink ?? getDefaultRunEventHub();
    this.#hooks = options.hooks ?? {};
    this.#broadcast = options.broadcast ?? (() => {});
    this.#maxConcurrent = options.maxConcurrentAgentTools ?? Number.POSITIVE_INFINITY;
    this.#overCap = options.overCap ?? "record";
    this.#maxInputBytes = options.maxAgentToolInputBytes ?? DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES;
    this.#generateRunId = options.generateRunId ?? (() => crypto.randomUUID());
    this.#waitUntil = options.waitUntil;
  }

  /**
   * Run a child agent and wait for its result. Idempotent by runId: a finished run returns its stored result;
   * a live (or soft-interrupted) one is re-attached; never a second child turn. Expected outcomes are values
   * (`AgentToolFailure`), never throws for them.
   */
  async runAgentTool<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolOptions<TInput>,
  ): Promise<AgentToolResult> {
    const admitted = await this.startAgentToolRun(child, options);
    if (!admitted.ok) return admitted.failure;
    // The signal was linked to the run at admission.
    return this.waitForAgentToolRun(admitted.record.runId);
  }

  /**
   * Admit a dispatch and start driving it in the background (a building block for detached runs): validates
   * the input, applies idempotency and the cap, records the run, fires `onAgentToolStart`, sends `started`.
   * An existing runId returns its row (`created: false`) after checking its agentType.
   */
  startAgentToolRun<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolOptions<TInput> & { detached?: boolean; meta?: Record<string, unknown> },
  ): Promise<StartAgentToolRunResult> {
    const agentType = resolveAgentType(child);
    const runId = options.runId ?? this.#generateRunId();
    // Two concurrent dispatches of one runId: the second waits for the first's admission.
    const inFlight = this.#admitting.get(runId);
    const admission = (inFlight ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.#admit(agentType, runId, options));
    const tracked = admission.finally(() => {
      if (this.#admitting.get(runId) === tracked) this.#admitting.delete(runId);
    });
    this.#admitting.set(runId, tracked);
    return tracked;
  }

  /**
   * Wait for a run's terminal result, driving it (start, tail, finalize) if nobody in this process is.
   * An unknown runId resolves to an `error` failure.
   */
  async waitForAgentToolRun(runId: string, signal?: AbortSignal): Promise<AgentToolResult> {
    const record = await this.store.getRun(runId);
    if (!record) return failure(runId, "unknown", "error", `No agent-tool run with id "${runId}"`);
    if (isTerminalStatus(record.status) && !this.#shouldReattach(record)) {
      return toAgentToolResult(record as RunRecord & { status: TerminalRunStatus });
    }
    const driven = await this.#drive(record, signal);
    const final = driven && !isTerminalStatus(driven.status) ? await this.store.getRun(runId) : driven;
    if (!final || !isTerminalStatus(final.status)) {
      return failure(runId, record.agentType, "aborted", "The run was cleared before it finished");
    }
    return toAgentToolResult(final as RunRecord & { status: TerminalRunStatus });
  }

  /** The run's public info, or `null` when this parent has no such run. */
  async getAgentToolRun(runId: string): Promise<AgentToolRunInfo | null> {
    const record = await this.store.getRun(runId);
    if (!record) return null;
    const progress = this.#live.get(runId)?.progress;
    return toRunInfo(progress ? { ...record, progress } : record);
  }

  /** Every retained run, oldest first. */
  async listAgentToolRuns(options: { status?: readonly RunStatus[] } = {}): Promise<AgentToolRunInfo[]> {
    const records = await this.store.listRuns(options.status ? { status: options.status } : {});
    return records.map((record) => toRunInfo(record));
  }

  /**
   * True when this parent created run `runId` of `agentType`: the guard for drill-in, so that a guessed runId
   * cannot create a child. Always `await` it.
   */
  async hasAgentToolRun(agentType: string, runId: string): Promise<boolean> {
    const record = await this.store.getRun(runId);
    return record !== null && record.agentType === agentType;
  }

  /**
   * Cancel a live run (its child ends `aborted`). Idempotent; returns false for an unknown or finished run.
   */
  async cancelAgentTool(runId: string, reason = "Cancelled by the parent"): Promise<boolean> {
    const record = await this.store.getRun(runId);
    if (!record || !isLiveStatus(record.status)) return false;
    const ref = { agentType: record.agentType, runId };
    const live = this.#live.get(runId);
    if (live && !record.startAcknowledged) {
      // The child may not know the run yet: the driver cancels right after the child acknowledges start.
      live.cancelRequested = reason;
      live.acknowledgeNow?.();
      return true;
    }
    if (!(await this.#cancelChild(ref, reason))) return true;
    if (!this.#drivers.has(runId)) await this.#drive(record);
    return true;
  }

  /** Cancel the child; if it cannot be reached, end the run here (`aborted`) so no slot is held forever. */
  async #cancelChild(ref: ChildRef, reason: string): Promise<boolean> {
    try {
      await this.transport.cancel(ref, reason);
      return true;
    } catch (error) {
      this.#live.get(ref.runId)?.tailController.abort();
      await this.#finalize(ref.runId, {
        status: "aborted",
        error: `${reason} (child unreachable: ${errorMessage(error)})`,
        cause: "child-unreachable",
      });
      return false;
    }
  }

  /**
   * Send retained runs to one connection (`replay: true`). With cursors, only what is newer than the client
   * holds, plus `cleared` for runs it names that no longer exist. Finished runs are replayed from the parent's
   * own copy of their log: their children are not woken.
   */
  async replayAgentToolRuns(
    send: (frame: AgentToolEventFrame) => void,
    options: ReplayOptions = {},
  ): Promise<{ runs: number; frames: number }> {
    const cursors = options.cursors ?? null;
    const { runs, frames, cleared } = await replayRuns({
      store: this.store,
      liveOf: (runId) => this.#live.get(runId),
      send,
      cursors,
    });
    this.#emit({
      type: "agent_tool:replay",
      runs,
      frames,
      cleared,
      withCursors: cursors !== null,
      at: this.clock.now(),
    });
    return { runs, frames };
  }

  /**
   * Forget runs (all, or by status / age): live ones are cancelled first, every child's storage is deleted,
   * clients get one `cleared` frame. Returns the cleared runIds.
   */
  async clearAgentToolRuns(options: ClearAgentToolRunsOptions = {}): Promise<{ runIds: string[] }> {
    const records = await this.store.listRuns(options.status ? { status: options.status } : {});
    const { olderThan } = options;
    const selected = records.filter((record) => {
      if (olderThan === undefined) return true;
      const at = isTerminalStatus(record.status) ? (record.completedAt ?? record.startedAt) : record.startedAt;
      return at < olderThan;
    });
    if (selected.length === 0) return { runIds: [] };
    const runIds = selected.map((record) => record.runId);
    for (const record of selected) {
      const ref = { agentType: record.agentType, runId: record.runId };
      if (isLiveStatus(record.status)) {
        const live = this.#live.get(record.runId);
        if (live) {
          live.cleared = true;
          live.tailController.abort();
        }
        await this.#ignoreFailure(() => this.transport.cancel(ref, "Cleared"));
        // The run ends here (aborted) for hooks and observers; clients forget it through `cleared`.
        const now = this.clock.now();
        this.#emit({
          type: "agent_tool:run:finish",
          runId: record.runId,
          agentType: record.agentType,
          status: "aborted",
          previousStatus: record.status,
          durationMs: Math.max(0, now - record.startedAt),
          at: now,
        });
        this.#background(
          this.#fireFinish({ ...record, status: "aborted", error: "The run was cleared" } as RunRecord & {
            status: TerminalRunStatus;
          }),
        );
      }
      await this.#ignoreFailure(() => this.transport.destroy(ref));
    }
    await this.store.deleteRuns(runIds);
    for (const runId of runIds) {
      this.#slots?.delete(runId);
      this.#live.delete(runId);
    }
    this.#send(clearedFrame(runIds));
    this.#emit({ type: "agent_tool:clear", runIds, at: this.clock.now() });
    return { runIds };
  }

  /**
   * Follow a run to its end (re-attaching to its child, or starting it if the child never acknowledged start),
   * forwarding its entries to clients; the building block of recovery. With `stop`, the follower may give up:
   * the run is then recorded with the outcome passed as the abort reason. Resolves to the run's row at the end
   * (`null` if it was cleared meanwhile). A hard-terminal run resolves at once.
   */
  async followAgentToolRun(runId: string, options: FollowAgentToolRunOptions = {}): Promise<RunRecord | null> {
    const record = await this.store.getRun(runId);
    if (!record || isHardTerminalStatus(record.status)) return record;
    const { stop, onActivity } = options;
    const driving = this.#drive(record);
    const live = this.#live.get(runId);
    if (live && onActivity) live.activity.add(onActivity);
    // Stopping settles at once, even if the transport ignores the abort and the driver stays stuck in it: the
    // outcome is recorded here, the stuck driver is forgotten (a later dispatch starts a fresh one), and if it
    // ever wakes up it records nothing more for this stop.
    let stopped: Promise<RunRecord | null> | null = null;
    let resolveStopped: (record: RunRecord | null) => void = () => {};
    const whenStopped = new Promise<RunRecord | null>((resolve) => {
      resolveStopped = resolve;
    });
    const onStop = () => {
      const current = this.#live.get(runId);
      if (!current || current.stoppedWith || current.cleared) return;
      const outcome: AgentToolRunOutcome = isOutcome(stop?.reason)
        ? stop.reason
        : {
            status: "interrupted",
            reason: "no-progress",
            childStillRunning: true,
            error: "Stopped waiting for the child",
          };
      current.stoppedWith = outcome;
      current.tailController.abort();
      if (this.#drivers.get(runId) === driving) this.#drivers.delete(runId);
      if (this.#live.get(runId) === current) this.#live.delete(runId);
      stopped = this.#finalize(runId, outcome, current);
      resolveStopped(null);
    };
    if (stop?.aborted) onStop();
    else stop?.addEventListener("abort", onStop, { once: true });
    try {
      await Promise.race([driving, whenStopped]);
      return stopped ? await stopped : await driving;
    } finally {
      stop?.removeEventListener("abort", onStop);
      if (live && onActivity) live.activity.delete(onActivity);
    }
  }

  /**
   * Record a terminal outcome for a run this registry is not following (e.g. a budget give-up): status machine,
   * frames, `onAgentToolFinish` and its ledger, exactly as for a run that ended by itself. A hard-terminal row is
   * returned unchanged; `null` for an unknown run.
   */
  finalizeAgentToolRun(runId: string, outcome: AgentToolRunOutcome): Promise<RunRecord | null> {
    return this.#finalize(runId, outcome);
  }

  /**
   * Listen to every terminal transition (extension packages: detached delivery). Listeners run after the row is
   * written and the frame sent, before `onAgentToolFinish`; they are awaited and isolated (a throwing listener
   * stops nothing). Returns a function that removes the listener.
   */
  onRunFinished(listener: RunFinishedListener): () => void {
    this.#finishListeners.add(listener);
    return () => {
      this.#finishListeners.delete(listener);
    };
  }

  /** Emit an observability event through this registry's sink (for extension packages). Never throws. */
  emitRunEvent(event: RunEvent): void {
    this.#emit(event);
  }

  /**
   * Resolve once the hooks started so far (`onAgentToolStart`, `onAgentToolFinish` and its ledger write) have
   * settled. Hooks never hold up runs or their callers; tests and graceful shutdowns can wait for them here.
   */
  async whenIdle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /**
   * Fire `onAgentToolFinish` for terminal rows whose ledger says it was not (a crash between recording and
   * the hook). Call once at start-up; returns how many were delivered.
   */
  async deliverPendingFinishHooks(): Promise<number> {
    if (!this.#hooks.onAgentToolFinish) return 0;
    const records = await this.store.listRuns();
    let delivered = 0;
    for (const record of records) {
      if (isTerminalStatus(record.status) && (record.finishNotifiedRevision ?? 0) < record.revision) {
        await this.#notifyFinish(record as RunRecord & { status: TerminalRunStatus });
        delivered += 1;
      }
    }
    return delivered;
  }

  // ---------------------------------------------------------------------------------------------------------

  async #admit(
    agentType: string,
    runId: string,
    options: RunAgentToolOptions & { detached?: boolean; meta?: Record<string, unknown> },
  ): Promise<StartAgentToolRunResult> {
    const existing = await this.store.getRun(runId);
    if (existing) {
      if (existing.agentType !== agentType) {
        return this.#reject(
          runId,
          agentType,
          "agent-type-mismatch",
          `Run "${runId}" already exists for agent type "${existing.agentType}", not "${agentType}"`,
        );
      }
      if (!isTerminalStatus(existing.status) || this.#shouldReattach(existing)) {
        this.#startDriving(existing, options.signal);
      }
      return { ok: true, record: existing, created: false };
    }
    const bytes = inputByteLength(options.input);
    if (bytes === null) {
      return this.#reject(runId, agentType, "invalid-input", "The input cannot be serialized as JSON");
    }
    if (bytes > this.#maxInputBytes) {
      return this.#reject(
        runId,
        agentType,
        "input-too-large",
        `The input is ${bytes} bytes, over maxAgentToolInputBytes (${this.#maxInputBytes})`,
      );
    }
    const slots = await this.#loadSlots();
    const now = this.clock.now();
    const base: RunRecord = {
      runId,
      agentType,
      status: "starting",
      revision: 1,
      startedAt: now,
      updatedAt: now,
      displayOrder: options.displayOrder ?? 0,
      inputPreview: options.inputPreview ?? makeInputPreview(options.input),
      input: options.input,
      startAcknowledged: false,
      lastSequence: 0,
      ...(options.parentToolCallId !== undefined ? { parentToolCallId: options.parentToolCallId } : {}),
      ...(options.display !== undefined ? { display: options.display } : {}),
      ...(options.detached ? { detached: true } : {}),
      ...(options.meta !== undefined ? { meta: options.meta } : {}),
    };
    const overCap = slots.size >= this.#maxConcurrent;
    const capError = `maxConcurrentAgentTools (${this.#maxConcurrent}) exceeded`;
    if (overCap && this.#overCap === "refuse") return this.#reject(runId, agentType, "max-concurrency", capError);
    // Checked and taken synchronously: no await between the count and the reservation.
    if (!overCap) slots.add(runId);
    // A refused run is recorded as `error` (revision 2: it went starting → error) without its input.
    const { input: _input, ...withoutInput } = base;
    const record: RunRecord = overCap
      ? {
          ...withoutInput,
          status: "error",
          revision: 2,
          completedAt: now,
          error: capError,
          endCause: "max-concurrency",
        }
      : base;
    let inserted: boolean;
    try {
      inserted = await this.store.insertRun(record);
    } catch (error) {
      slots.delete(runId);
      throw error;
    }
    if (!inserted) {
      slots.delete(runId);
      const raced = await this.store.getRun(runId);
      if (raced) return { ok: true, record: raced, created: false };
    }
    this.#emit({
      type: "agent_tool:run:dispatch",
      runId,
      agentType,
      detached: options.detached === true,
      at: now,
      ...(options.parentToolCallId !== undefined ? { parentToolCallId: options.parentToolCallId } : {}),
    });
    this.#send(startedFrame(record));
    // Hooks are isolated in time too: a slow or hanging hook never holds up its run (nor its caller).
    this.#background(
      this.#callHook("onAgentToolStart", record, () => this.#hooks.onAgentToolStart?.(toRunInfo(record))),
    );
    if (overCap) {
      this.#emit({ type: "agent_tool:run:rejected", runId, agentType, rejection: "max-concurrency", at: now });
      await this.#announceTerminal(record as RunRecord & { status: TerminalRunStatus }, "starting");
      return { ok: true, record, created: true, rejection: "max-concurrency" };
    }
    this.#startDriving(record, options.signal);
    return { ok: true, record, created: true };
  }

  #reject(runId: string, agentType: string, rejection: DispatchRejection, error: string): StartAgentToolRunResult {
    this.#emit({ type: "agent_tool:run:rejected", runId, agentType, rejection, at: this.clock.now() });
    return { ok: false, failure: failure(runId, agentType, "error", error), rejection };
  }

  /** An interrupted run whose child may still be running is re-attached on re-dispatch. */
  #shouldReattach(record: RunRecord): boolean {
    return record.status === "interrupted" && record.childStillRunning !== false;
  }

  async #loadSlots(): Promise<Set<string>> {
    if (this.#slots) return this.#slots;
    this.#slotsLoading ??= this.store.listRuns({ status: ["starting", "running"] }).then((records) => {
      this.#slots = new Set(records.map((record) => record.runId));
      return this.#slots;
    });
    return this.#slotsLoading;
  }

  #startDriving(record: RunRecord, signal?: AbortSignal): void {
    const driving = this.#drive(record, signal);
    this.#waitUntil?.(driving);
  }

  /** Start (if not acknowledged), tail and finalize a run; single-flight per runId. */
  #drive(record: RunRecord, signal?: AbortSignal): Promise<RunRecord | null> {
    const { runId } = record;
    const existing = this.#drivers.get(runId);
    if (existing) {
      if (signal) this.#linkSignal(record, signal);
      return existing;
    }
    // The live state exists from this synchronous call on, so followers can attach before the first await.
    const live: LiveState = {
      cancelRequested: null,
      entries: [],
      lastSequence: record.lastSequence,
      tailController: new AbortController(),
      cleared: false,
      stoppedWith: null,
      activity: new Set(),
    };
    this.#live.set(runId, live);
    const driving = this.#runDriver(record, live, signal).finally(() => {
      if (this.#drivers.get(runId) === driving) this.#drivers.delete(runId);
    });
    this.#drivers.set(runId, driving);
    return driving;
  }

  #linkSignal(record: RunRecord, signal: AbortSignal): void {
    const onAbort = () => void this.cancelAgentTool(record.runId, "Aborted by the caller").catch(() => undefined);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }

  async #runDriver(initial: RunRecord, live: LiveState, signal?: AbortSignal): Promise<RunRecord | null> {
    const { runId, agentType } = initial;
    const ref: ChildRef = { agentType, runId };
    const record = initial;
    if (signal) this.#linkSignal(record, signal);
    try {
      if (isLiveStatus(record.status)) (await this.#loadSlots()).add(runId);
      // A run whose child never acknowledged start (also one interrupted before it did) is started, idempotently.
      if (!record.startAcknowledged && record.input !== undefined && !isHardTerminalStatus(record.status)) {
        if (signal?.aborted) {
          return await this.#finalize(runId, {
            status: "aborted",
            error: "Aborted by the caller before the child started",
            cause: "cancelled-before-start",
          });
        }
        try {
          await this.transport.start(ref, record.input);
        } catch (error) {
          return await this.#finalize(runId, {
            status: "error",
            error: `Could not start the child: ${errorMessage(error)}`,
            cause: "start-failed",
          });
        }
        // The acknowledgement is written once the tail is open (#follow): in a Durable Object a write holds every
        // later outgoing call until it is durable, so writing it first would delay the tail by one commit. Until
        // then the row keeps the input, and a restart in between sends the idempotent start again.
        const started = record;
        const acknowledge = async (): Promise<boolean> => {
          const acknowledged = await this.store.updateRun(
            runId,
            {
              // An interrupted run keeps its status until a real result repairs it.
              status: started.status === "starting" ? "running" : started.status,
              revision: started.revision + 1,
              startAcknowledged: true,
              input: undefined,
              updatedAt: this.clock.now(),
            },
            { expectedRevision: started.revision },
          );
          if (!acknowledged) return false;
          this.#emit({ type: "agent_tool:run:start", runId, agentType, at: this.clock.now() });
          if (live.cancelRequested !== null) await this.#cancelChild(ref, live.cancelRequested);
          return true;
        };
        return await this.#follow(record, live, acknowledge);
      } else {
        this.#emit({
          type: "agent_tool:run:reattach",
          runId,
          agentType,
          afterSequence: live.lastSequence,
          at: this.clock.now(),
        });
      }
      return await this.#follow(record, live);
    } finally {
      if (this.#live.get(runId) === live) this.#live.delete(runId);
    }
  }

  /**
   * Tail the child until its terminal, forwarding entries; a few re-tails if the tail is cut off. `acknowledge`
   * (a fresh start) runs once the tail has answered, before anything is forwarded or recorded; if it finds the row
   * changed meanwhile (cancelled, cleared), following stops there.
   */
  async #follow(record: RunRecord, live: LiveState, acknowledge?: () => Promise<boolean>): Promise<RunRecord | null> {
    const { runId, agentType } = record;
    const ref: ChildRef = { agentType, runId };
    // The start acknowledgement (a fresh start), written once: when the tail opens or first answers, when it ends,
    // or at once if a cancel is waiting for it. `acked` stays false if it found the row changed.
    let acked = acknowledge === undefined;
    let acknowledging: Promise<boolean> | null = null;
    const acknowledged = (): Promise<boolean> =>
      (acknowledging ??= (acknowledge ?? (async () => true))().then((ok) => {
        acked = ok;
        delete live.acknowledgeNow;
        return ok;
      }));
    if (!acked) {
      live.acknowledgeNow = () => void acknowledged().catch(() => undefined);
      if (live.cancelRequested !== null && !(await acknowledged())) return this.store.getRun(runId);
    }
    for (let attempt = 1; attempt <= MAX_TAIL_ATTEMPTS; attempt += 1) {
      let terminal: AgentToolRunInspection | null = null;
      try {
        const stream = this.transport.tail(ref, {
          afterSequence: live.lastSequence,
          signal: live.tailController.signal,
          ...(acked ? {} : { onOpen: () => live.acknowledgeNow?.() }),
        });
        for await (const item of stream as unknown as AsyncIterable<AgentToolTailItem>) {
          if (!acked && !(await acknowledged())) break;
          if (live.cleared || live.stoppedWith) break;
          if (item.type === "terminal") {
            terminal = item.inspection;
            break;
          }
          this.#forward(record, live, item);
        }
      } catch {
        // A broken tail: inspect below, and tail again from what we saw.
      }
      if (!acked && !(await acknowledged())) return this.store.getRun(runId);
      if (live.cleared) return null;
      // A follower gave up: it records its outcome itself (see followAgentToolRun).
      if (live.stoppedWith) return this.store.getRun(runId);
      if (!terminal) {
        let inspection: AgentToolRunInspection | null = null;
        try {
          inspection = await this.transport.inspect(ref);
        } catch {
          inspection = null;
        }
        if (inspection && inspection.status !== "running" && inspection.lastSequence <= live.lastSequence) {
          terminal = inspection;
        } else {
          continue;
        }
      }
      return this.#finalizeFromInspection(runId, terminal, live);
    }
    return this.#finalize(runId, {
      status: "interrupted",
      reason: "not-tailable",
      childStillRunning: true,
      error: "The child's stream could not be followed to its end",
    });
  }

  #forward(record: RunRecord, live: LiveState, item: AgentToolTailItem): void {
    for (const listener of live.activity) {
      try {
        listener(item);
      } catch {
        // a follower's bug must not break forwarding
      }
    }
    if (item.type === "entries") {
      for (const entry of item.entries) {
        if (entry.sequence <= live.lastSequence) continue;
        live.lastSequence = entry.sequence;
        live.entries.push(entry);
        this.#send(entryFrame(record, entry));
        const snapshot = readProgressChunk(entry.body, entry.at);
        if (snapshot) this.#progress(record, live, snapshot, entry.sequence);
      }
    } else if (item.type === "progress") {
      this.#send(ephemeralFrame(record, item.body));
      const snapshot = readProgressChunk(item.body, item.at);
      if (snapshot) this.#progress(record, live, snapshot);
    }
  }

  #progress(record: RunRecord, live: LiveState, snapshot: AgentToolProgressSnapshot, sequence?: number): void {
    live.progress = snapshot;
    this.#emit({
      type: "agent_tool:run:progress",
      runId: record.runId,
      agentType: record.agentType,
      at: snapshot.at,
      ...(snapshot.fraction !== undefined ? { fraction: snapshot.fraction } : {}),
      ...(snapshot.phase !== undefined ? { phase: snapshot.phase } : {}),
      ...(snapshot.milestone !== undefined ? { milestone: snapshot.milestone } : {}),
      ...(sequence !== undefined ? { sequence } : {}),
    });
    const onProgress = this.#hooks.onProgress;
    if (onProgress) {
      void this.#callHook("onProgress", record, () =>
        onProgress(toRunInfo({ ...record, progress: snapshot }), snapshot),
      );
    }
  }

  #finalizeFromInspection(runId: string, inspection: AgentToolRunInspection, live: LiveState) {
    const status = inspection.status === "running" ? "error" : inspection.status;
    return this.#finalize(
      runId,
      {
        status,
        ...(inspection.summary !== undefined ? { summary: inspection.summary } : {}),
        ...(inspection.output !== undefined ? { output: inspection.output } : {}),
        ...(inspection.error !== undefined ? { error: inspection.error } : {}),
        ...(inspection.progress !== undefined ? { progress: inspection.progress } : {}),
        cause: "child",
      },
      live,
    );
  }

  /**
   * Record a terminal transition (status machine with revisions): persist the parent's copy of the log, then the
   * row (conditional on its revision), then send the lifecycle frame and fire `onAgentToolFinish`.
   * A hard-terminal row never changes again; `interrupted` may be repaired.
   */
  async #finalize(runId: string, outcome: AgentToolRunOutcome, live?: LiveState): Promise<RunRecord | null> {
    if (live && live.entries.length > 0) {
      await this.store.appendLog(runId, live.entries);
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const current = await this.store.getRun(runId);
      if (!current) return null;
      if (isHardTerminalStatus(current.status)) return current;
      if (current.status === "interrupted" && outcome.status === "interrupted") {
        // Not a transition (the status stays soft): update what the parent knows, quietly — no new revision, no
        // frame, no hook. E.g. a watch that ends tears the child down: childStillRunning becomes false.
        const quiet = await this.store.updateRun(
          runId,
          {
            updatedAt: this.clock.now(),
            ...(outcome.childStillRunning !== undefined ? { childStillRunning: outcome.childStillRunning } : {}),
          },
          { expectedRevision: current.revision },
        );
        if (!quiet) continue;
        return quiet;
      }
      const now = this.clock.now();
      const isHard = isHardTerminalStatus(outcome.status);
      const hasFinishHook = this.#hooks.onAgentToolFinish !== undefined;
      const revision = current.revision + 1;
      const patch: RunRecordPatch = {
        status: outcome.status,
        revision,
        completedAt: now,
        updatedAt: now,
        lastSequence: Math.max(current.lastSequence, live?.lastSequence ?? 0),
        summary: outcome.summary,
        output: outcome.output,
        error: outcome.error,
        reason: isHard ? undefined : outcome.reason,
        endCause: outcome.cause ?? "given-up",
        childStillRunning: isHard ? undefined : outcome.childStillRunning,
        // With no finish hook there is nothing to deliver: the ledger is settled in the same write.
        ...(hasFinishHook ? {} : { finishNotifiedRevision: revision }),
        ...(outcome.progress !== undefined || live?.progress !== undefined
          ? { progress: outcome.progress ?? live?.progress }
          : {}),
      };
      // The input stays on a run whose child never acknowledged start and that may still be started (soft outcome).
      if (!current.startAcknowledged && isHard) patch.input = undefined;
      const updated = await this.store.updateRun(runId, patch, { expectedRevision: current.revision });
      if (!updated) continue;
      this.#slots?.delete(runId);
      await this.#announceTerminal(updated as RunRecord & { status: TerminalRunStatus }, current.status);
      return updated;
    }
    return this.store.getRun(runId);
  }

  async #announceTerminal(record: RunRecord & { status: TerminalRunStatus }, previousStatus: RunStatus) {
    const frame = terminalFrame(record);
    if (frame) this.#send(frame);
    const now = this.clock.now();
    this.#emit({
      type: "agent_tool:run:finish",
      runId: record.runId,
      agentType: record.agentType,
      status: record.status,
      previousStatus,
      durationMs: Math.max(0, (record.completedAt ?? now) - record.startedAt),
      at: now,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      ...(record.endCause !== undefined ? { cause: record.endCause } : {}),
    });
    for (const listener of [...this.#finishListeners]) {
      await this.#callHook("onRunFinished", record, () => listener(record, previousStatus));
    }
    // The caller awaiting the run resolves from the written row; the hook runs beside it (the ledger keeps it
    // at least once across a crash), so a slow or hanging hook never blocks the run's result.
    if (this.#hooks.onAgentToolFinish) this.#background(this.#notifyFinish(record));
  }

  /** Track background work (hooks): kept alive through `waitUntil`, awaited by `whenIdle`. */
  #background(work: Promise<void>): void {
    this.#pending.add(work);
    this.#waitUntil?.(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** The finish ledger: call the hook, then record the revision it was called for. */
  async #notifyFinish(record: RunRecord & { status: TerminalRunStatus }): Promise<void> {
    await this.#fireFinish(record);
    await this.#ignoreFailure(() => this.store.updateRun(record.runId, { finishNotifiedRevision: record.revision }));
  }

  async #fireFinish(record: RunRecord & { status: TerminalRunStatus }): Promise<void> {
    const hook = this.#hooks.onAgentToolFinish;
    if (!hook) return;
    await this.#callHook("onAgentToolFinish", record, () => hook(toRunInfo(record), toLifecycleResult(record)));
  }

  async #callHook(
    hook: string,
    run: Pick<RunRecord, "runId" | "agentType">,
    call: () => void | Promise<void> | undefined,
  ): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.#emit({
        type: "agent_tool:hook:error",
        hook,
        runId: run.runId,
        agentType: run.agentType,
        errorName: error instanceof Error ? error.name : typeof error,
        at: this.clock.now(),
      });
    }
  }

  async #ignoreFailure(call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch {
      // best effort: the caller goes on
    }
  }

  #send(frame: AgentToolEventFrame): void {
    try {
      this.#broadcast(frame);
    } catch {
      // A broken connection must not break the run.
    }
  }

  #emit(event: RunEvent): void {
    try {
      this.#sink.emit(event);
    } catch {
      // observability never breaks a run
    }
  }
}

function isOutcome(value: unknown): value is AgentToolRunOutcome {
  if (typeof value !== "object" || value === null) return false;
  const status = (value as { status?: unknown }).status;
  return status === "completed" || status === "error" || status === "aborted" || status === "interrupted";
}
