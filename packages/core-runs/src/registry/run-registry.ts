import { AgentToolsError } from "../errors.js";
import { getDefaultRunEventHub } from "../events/run-event-hub.js";
import { systemClock } from "../ports/clock.js";
import {
  type AgentToolApprovalAnswer,
  type AgentToolBudgetExhaustion,
  type AgentToolEventFrame,
  type AgentToolResult,
  type AgentToolRunInfo,
  type AgentToolUsage,
  isTerminalStatus,
  type RunStatus,
} from "../protocol/index.js";
import { type AgentToolChildReference, resolveAgentType } from "./agent-type.js";
import { clearRuns } from "./clear-runs.js";
import { ConcurrencySlots } from "./concurrency-slots.js";
import { createRegistryExtension } from "./create-registry-extension.js";
import { DEFAULT_FOLLOW_WRITE_INTERVAL_MS } from "./position-writer.js";
import type { CancelHandler, RegistryExtension, RegistryExtensionOptions } from "./registry-extension.js";
import {
  type AgentToolRegistryOptions,
  type ClearAgentToolRunsOptions,
  DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES,
  type ReplayOptions,
  type RunAgentToolOptions,
} from "./registry-options.js";
import { createRegistryRuntime, type RegistryRuntime } from "./registry-runtime.js";
import { type ReplayPageEnd, replayRun, replayRuns } from "./replay-runs.js";
import { RunAdmission } from "./run-admission.js";
import type { RunDriver } from "./run-driver.js";
import { RunDrivers } from "./run-drivers.js";
import { isReattachable, type TerminalRunRecord } from "./run-machine.js";
import { type RunRecord, toRunInfo } from "./run-record.js";
import { failure, toAgentToolResult } from "./run-result.js";
import { RunTransitions } from "./run-transitions.js";
import { resolveTailRetryPolicy } from "./tail-retry-policy.js";

/**
 * A parent's registry of agent-tool runs: awaited dispatch, idempotency by runId, the concurrency cap, the status
 * machine with revisions, lifecycle hooks through a ledger, frames to clients, replay with cursors, cancel, clearing
 * and access checks. One registry per parent; it is the only writer of its runs' lifecycle. Extension packages
 * (detached runs, recovery) work through `extension()`.
 *
 * A facade: the rules are data in `run-machine.ts`; each run is driven by a `RunDriver`.
 *
 * @example
 * const registry = new AgentToolRegistry({ store, transport, broadcast: (frame) => sendToAll(frame) });
 * const result = await registry.runAgentTool("Researcher", { input: "Find three sources on X" });
 * if (result.ok) console.log(result.summary);
 */
export class AgentToolRegistry {
  readonly #runtime: RegistryRuntime;
  readonly #transitions: RunTransitions;
  readonly #drivers: RunDrivers;
  readonly #admission: RunAdmission;
  readonly #slots: ConcurrencySlots;
  readonly #cancelHandlers = new Set<CancelHandler>();
  readonly #generateRunId: () => string;

  constructor(options: AgentToolRegistryOptions) {
    const runtime = createRegistryRuntime({
      store: options.store,
      transport: options.transport,
      clock: options.clock ?? systemClock,
      sink: options.sink ?? getDefaultRunEventHub(),
      hooks: options.hooks ?? {},
      broadcast: options.broadcast ?? (() => {}),
      waitUntil: options.waitUntil,
    });
    this.#runtime = runtime;
    this.#slots = new ConcurrencySlots(options.store);
    this.#transitions = new RunTransitions(runtime, this.#slots);
    this.#drivers = new RunDrivers({
      runtime,
      transitions: this.#transitions,
      slots: this.#slots,
      retry: resolveTailRetryPolicy(options.tailRetry),
      followWriteIntervalMs: options.followWriteIntervalMs ?? DEFAULT_FOLLOW_WRITE_INTERVAL_MS,
    });
    this.#admission = new RunAdmission({
      runtime,
      slots: this.#slots,
      transitions: this.#transitions,
      drive: (record, signal, created) => {
        const driver = this.#drivers.drive(record, signal, created);
        options.waitUntil?.(driver.done);
      },
      maxInputBytes: options.maxAgentToolInputBytes ?? DEFAULT_MAX_AGENT_TOOL_INPUT_BYTES,
      maxConcurrent: options.maxConcurrentAgentTools ?? Number.POSITIVE_INFINITY,
      overCap: options.overCap ?? "record",
      ...(options.position ? { position: options.position } : {}),
      ...(options.onDispatch ? { onDispatch: options.onDispatch } : {}),
      ...(options.traceContext ? { traceContext: options.traceContext } : {}),
    });
    this.#generateRunId = options.generateRunId ?? (() => crypto.randomUUID());
  }

  /**
   * Run a child agent and wait for its result. Idempotent by runId: a finished run returns its stored result;
   * a live (or soft-interrupted) one is re-attached; never a second child turn. Expected outcomes are values
   * (`AgentToolFailure`); it throws only for misuse: `detached: true` belongs to `@agent-tools/detached`.
   */
  async runAgentTool<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolOptions<TInput>,
  ): Promise<AgentToolResult> {
    if ((options as { detached?: unknown }).detached) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        "runAgentTool waits for its run and takes no `detached` option: for a background run use " +
          "runAgentToolDetached from @agent-tools/detached (createDetachedRuns)",
      );
    }
    const agentType = resolveAgentType(child);
    const runId = options.runId ?? this.#generateRunId();
    const { signal, onFrame, ...request } = options;
    // Watching starts before admission, so a new run's `started` frame is not missed.
    const unwatch = onFrame ? this.#runtime.watch(runId, onFrame) : () => {};
    try {
      const admitted = await this.#admission.admit(agentType, runId, request, signal);
      if (!admitted.ok) return admitted.failure;
      if (onFrame && !admitted.created) await this.#replayTo(admitted.record.runId, onFrame);
      // A run admission just created and started driving: its row is the one admission wrote (not read again).
      const driver = admitted.created ? this.#drivers.get(admitted.record.runId) : undefined;
      if (driver) return await this.#settle(driver, admitted.record, signal);
      return await this.waitForAgentToolRun(admitted.record.runId, signal);
    } finally {
      unwatch();
    }
  }

  /** Replay one run to one receiver; a throwing receiver stops its own replay only. */
  async #replayTo(runId: string, receive: (frame: AgentToolEventFrame) => void): Promise<void> {
    const record = await this.#runtime.store.getRun(runId);
    if (!record) return;
    const send = (frame: AgentToolEventFrame) => {
      try {
        receive(frame);
      } catch {
        // the receiver's failure is its own
      }
    };
    await replayRun({ store: this.#runtime.store, record, live: this.#drivers.viewOf(runId), cursor: undefined, send });
  }

  /**
   * Wait for a run's terminal result, driving it (start, tail, finalize) if nobody in this process is. `signal`
   * aborting cancels the run with its reason. An unknown runId resolves to an `error` failure.
   */
  async waitForAgentToolRun(runId: string, signal?: AbortSignal): Promise<AgentToolResult> {
    const record = await this.#runtime.store.getRun(runId);
    if (!record) return failure(runId, "unknown", "error", `No agent-tool run with id "${runId}"`);
    if (isTerminalStatus(record.status) && !isReattachable(record)) {
      return toAgentToolResult(record as TerminalRunRecord);
    }
    return this.#settle(this.#drivers.drive(record, signal), record, signal);
  }

  /** The result of the run `driver` drives (`record`: its row when it was admitted or read); `signal` cancels it. */
  async #settle(driver: RunDriver, record: RunRecord, signal: AbortSignal | undefined): Promise<AgentToolResult> {
    const { runId } = record;
    const unlink = signal ? linkAbort(signal, (reason) => void this.cancelAgentTool(runId, reason)) : () => {};
    let final: Awaited<typeof driver.done>;
    try {
      final = await driver.done;
      if (final && !isTerminalStatus(final.status)) final = await this.#runtime.store.getRun(runId);
    } finally {
      unlink();
    }
    if (!final || !isTerminalStatus(final.status)) {
      return failure(runId, record.agentType, "aborted", "The run was cleared before it finished");
    }
    return toAgentToolResult(final as TerminalRunRecord);
  }

  /** The run's public info, or `null` when this parent has no such run. */
  async getAgentToolRun(runId: string): Promise<AgentToolRunInfo | null> {
    const stored = await this.#runtime.store.getRun(runId);
    if (!stored) return null;
    const record = this.#drivers.present(stored);
    const view = this.#drivers.viewOf(runId);
    return toRunInfo({
      ...record,
      ...(view?.progress ? { progress: view.progress } : {}),
      ...(view?.usage ? { usage: view.usage } : {}),
    });
  }

  /** Every retained run, oldest first. */
  async listAgentToolRuns(options: { status?: readonly RunStatus[] } = {}): Promise<AgentToolRunInfo[]> {
    return (await this.#drivers.list(options.status)).map((record) => toRunInfo(record));
  }

  /**
   * True when this parent created run `runId` of `agentType`: the guard for drill-in, so that a guessed runId
   * cannot create a child. It is async: always `await` it (`if (!(await registry.hasAgentToolRun(…)))`).
   */
  async hasAgentToolRun(agentType: string, runId: string): Promise<boolean> {
    const record = await this.#runtime.store.getRun(runId);
    return record !== null && record.agentType === agentType;
  }

  /**
   * Cancel a run, whoever owns it: a live run's child ends `aborted`; an extension that owns the row (a detached
   * run) decides for it. Idempotent; false for an unknown or finished run.
   */
  async cancelAgentTool(runId: string, reason = "Cancelled by the parent"): Promise<boolean> {
    const record = await this.#runtime.store.getRun(runId);
    if (!record) return false;
    for (const handler of this.#cancelHandlers) {
      const handled = handler(record, reason);
      if (handled) return handled;
    }
    return this.#drivers.cancel(record, reason);
  }

  /**
   * Cancel, with `reason`, every live run dispatched from `from` — a run of this registry's tree (`{ runId }`: the
   * runs whose tree names it as their parent run) or the root of a tree (`{ rootId }`: the runs dispatched from it
   * directly, e.g. a chat turn's) — except those dispatched to outlive it (`onParentCancel: "keep"`), and resolve once
   * each has ended (a child ends after what it dispatched itself: the tree ends from its leaves up). Resolves the
   * runIds it cancelled.
   */
  async cancelDispatchedBy(from: { runId: string } | { rootId: string }, reason: string): Promise<string[]> {
    const live = await this.#runtime.store.listRuns({ status: ["starting", "running"] });
    const cancelled = live.filter((record) => isDispatchedBy(record, from) && record.onParentCancel !== "keep");
    await Promise.all(
      cancelled.map(async (record) => {
        await this.cancelAgentTool(record.runId, reason);
        await this.waitForAgentToolRun(record.runId);
      }),
    );
    return cancelled.map((record) => record.runId);
  }

  /**
   * Tell every live run dispatched from `from` (as `cancelDispatchedBy` picks them) that the budget ran out: each gets
   * one wrap-up model step, then ends with what it has (`interrupted`, `budget-exceeded`). A transport without
   * `wrapUp` cannot tell its children: they run on within their own budgets. Resolves the runIds told.
   */
  async wrapUpDispatchedBy(
    from: { runId: string } | { rootId: string },
    reason: AgentToolBudgetExhaustion,
  ): Promise<string[]> {
    const { transport, store } = this.#runtime;
    if (!transport.wrapUp) return [];
    const live = (await store.listRuns({ status: ["starting", "running"] })).filter((record) =>
      isDispatchedBy(record, from),
    );
    await Promise.all(
      live.map((record) =>
        transport.wrapUp?.({ agentType: record.agentType, runId: record.runId }, reason).catch(() => undefined),
      ),
    );
    return live.map((record) => record.runId);
  }

  /**
   * What the runs dispatched from `from` spent, as their rows last recorded it (by runId), and how many were
   * dispatched (a dispatch refused by the cap not counted): for the budget of a run, or a turn, resumed after a restart.
   */
  async usageDispatchedBy(
    from: { runId: string } | { rootId: string },
  ): Promise<{ children: Array<[string, AgentToolUsage]>; dispatched: number }> {
    const rows = (await this.#runtime.store.listRuns()).filter(
      (record) => isDispatchedBy(record, from) && record.endCause !== "max-concurrency",
    );
    const children = rows.flatMap(
      (record): Array<[string, AgentToolUsage]> => (record.usage ? [[record.runId, record.usage]] : []),
    );
    return { children, dispatched: rows.length };
  }

  /**
   * Pass an answer to the runs dispatched from `from` that are still live: the one whose tree asked for approval
   * `approvalId` takes it (each run checks its own and passes it on to what it dispatched). What a run that dispatches
   * runs itself calls from its `onApprovalAnswer`: it keeps no map of who asked, so it works after a restart too.
   * Resolves whether one took it.
   */
  async answerApprovalDispatchedBy(
    from: { runId: string } | { rootId: string },
    approvalId: string,
    answer: AgentToolApprovalAnswer,
  ): Promise<boolean> {
    const live = (await this.#runtime.store.listRuns({ status: ["starting", "running"] })).filter((record) =>
      isDispatchedBy(record, from),
    );
    for (const record of live) if (await this.answerApproval(record.runId, approvalId, answer)) return true;
    return false;
  }

  /**
   * Answer an approval asked in run `runId`'s tree (the run itself or a run below it: the answer travels down to the
   * asker, whose turn then goes on with no completed step done again). Resolves whether it reached the asker: `false`
   * for an unknown run or approval, one already answered, or a transport without `answerApproval`. Throws an
   * `AgentToolsError` (`INVALID_ARGUMENT`) when the approval was asked below a child whose definition has no
   * `onApprovalAnswer` to pass it down (a wiring error: bind dispatching children with `bindChildRuns`).
   */
  async answerApproval(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    const { transport, store } = this.#runtime;
    const record = await store.getRun(runId);
    if (!record || !transport.answerApproval) return false;
    try {
      return await transport.answerApproval({ agentType: record.agentType, runId }, approvalId, answer);
    } catch (error) {
      // A child wired so that it cannot pass the answer down says so; an unreachable child is "not answered".
      if (AgentToolsError.isInstance(error) && error.code === "INVALID_ARGUMENT") throw error;
      return false;
    }
  }

  /**
   * Send retained runs to one connection (`replay: true`). With cursors, only what is newer than the client holds,
   * plus `cleared` for runs it names that no longer exist. Finished runs are replayed from the parent's own copy of
   * their log: their children are not woken. With `page`, a page of them, newest first (see `ReplayOptions.page`),
   * and where the older ones start.
   */
  async replayAgentToolRuns(
    send: (frame: AgentToolEventFrame) => void,
    options: ReplayOptions = {},
  ): Promise<{ runs: number; frames: number; page?: ReplayPageEnd }> {
    const cursors = options.cursors ?? null;
    const { runs, frames, cleared, page } = await replayRuns({
      store: this.#runtime.store,
      liveOf: (runId) => this.#drivers.viewOf(runId),
      send,
      cursors,
      ...(options.page ? { page: options.page } : {}),
    });
    this.#runtime.emit({
      type: "agent_tool:replay",
      runs,
      frames,
      cleared,
      withCursors: cursors !== null,
      ...(page ? { paged: true } : {}),
      at: this.#runtime.clock.now(),
    });
    return page ? { runs, frames, page } : { runs, frames };
  }

  /**
   * Forget runs (all, or by status / age): live ones are cancelled first, every child's storage is deleted,
   * clients get one `cleared` frame. Returns the cleared runIds.
   */
  clearAgentToolRuns(options: ClearAgentToolRunsOptions = {}): Promise<{ runIds: string[] }> {
    return clearRuns({
      runtime: this.#runtime,
      slots: this.#slots,
      transitions: this.#transitions,
      drivers: this.#drivers,
      options,
    });
  }

  /**
   * Fire `onAgentToolFinish` for terminal rows whose ledger says it was not (a crash between recording and the
   * hook). Call once at start-up; returns how many were delivered.
   */
  deliverPendingFinishHooks(): Promise<number> {
    return this.#transitions.deliverPendingFinishHooks();
  }

  /**
   * Resolve once the hooks started so far (`onAgentToolStart`, `onAgentToolFinish` and its ledger write) have
   * settled. Hooks never hold up runs or their callers; tests and graceful shutdowns can wait for them here.
   */
  whenIdle(): Promise<void> {
    return this.#runtime.whenIdle();
  }

  /**
   * The seam for an extension package: read runs, keep its state under its own `meta` key, admit, follow and
   * finalize runs, reach children, handle cancels, hear of terminal transitions. See `RegistryExtension`.
   */
  extension<TState>(options: RegistryExtensionOptions<TState>): RegistryExtension<TState> {
    return createRegistryExtension(options, {
      runtime: this.#runtime,
      transitions: this.#transitions,
      drivers: this.#drivers,
      admission: this.#admission,
      generateRunId: this.#generateRunId,
      cancelHandlers: this.#cancelHandlers,
    });
  }
}

/** True when `record` was dispatched directly from the run (or tree root) `from`. */
function isDispatchedBy(record: RunRecord, from: { runId: string } | { rootId: string }): boolean {
  const tree = record.tree;
  if (!tree) return false;
  if ("runId" in from) return tree.ancestors.at(-1)?.runId === from.runId;
  return tree.rootId === from.rootId && tree.ancestors.length === 0;
}

/** Call `onAbort` with the signal's reason when it aborts (at once if it has); returns the function that unlinks. */
function linkAbort(signal: AbortSignal, onAbort: (reason: string) => void): () => void {
  const listener = () => onAbort(abortReason(signal));
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener("abort", listener, { once: true });
  return () => signal.removeEventListener("abort", listener);
}

/** The caller's reason: a string or an error's message; a bare `abort()` (an `AbortError`) says who aborted. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === "string" && reason !== "") return reason;
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message !== "") return reason.message;
  return "Aborted by the caller";
}
