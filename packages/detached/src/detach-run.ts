import {
  type AgentToolLifecycleResult,
  type AgentToolRegistry,
  type AgentToolRunInfo,
  AgentToolsError,
  type ChatHost,
  type DetachedRunAgentToolResult,
} from "@agent-tools/core-runs";
import {
  type AgentToolChildReference,
  type RunAgentToolOptions,
  type RunRecord,
  resolveAgentType,
  toLifecycleResult,
  toRunInfo,
  type WakeupScheduler,
} from "@agent-tools/core-runs/internal";
import { isTerminalStatus, type TerminalRunStatus } from "@agent-tools/core-runs/protocol";
import { DEFAULT_DETACHED_MAX_BUDGET_MS, DEFAULT_DETACHED_NO_PROGRESS_BUDGET_MS, resolveBudgets } from "./budget.js";
import {
  DETACHED_META_KEY,
  type DetachedRunState,
  isWatchedAfterGiveUp,
  parseDetachedState,
  readDetachedState,
} from "./detached-state.js";
import type { DetachedRunEvent } from "./events.js";
import {
  DEFAULT_DELIVERY_LEASE_MS,
  DEFAULT_MAX_DELIVERY_ATTEMPTS,
  deliveryTarget,
  nextDeliveryStep,
} from "./finish-delivery.js";
import {
  type DetachedMilestonesOption,
  defaultFormatDetachedMilestone,
  type FormatDetachedMilestone,
  resolveMilestones,
} from "./milestones.js";
import {
  type DetachedNotifyOption,
  defaultFormatDetachedCompletion,
  type FormatDetachedCompletion,
  notifyChat,
  notifySource,
} from "./notify.js";
import { Reconciler, type TickReport } from "./reconcile.js";

/** Default `watchIntervalMs`: while detached runs are followed, the host is woken at least this often (60 s). */
export const DEFAULT_WATCH_INTERVAL_MS = 60_000;

/** Default `watchAfterGiveUpMs`: how long a run given up for no progress is still watched for a late result (1 h). */
export const DEFAULT_WATCH_AFTER_GIVE_UP_MS = 60 * 60 * 1000;

/** The names of `THost`'s methods that can receive a detached result: `(run, result)`. */
export type DetachedFinishMethod<THost> = {
  [K in keyof THost]: THost[K] extends (run: AgentToolRunInfo, result: AgentToolLifecycleResult) => unknown ? K : never;
}[keyof THost] &
  string;

/** What `detached: { … }` may say. */
export type DetachedOptions<THost> = {
  /**
   * The host method that receives `(run, result)` when the run finishes (a name, never a closure: it must
   * survive eviction). Checked at dispatch. Wins over `notify`.
   */
  onFinish?: DetachedFinishMethod<THost>;
  /** Chat hosts: tell the chat when the run finishes, so the model reacts. */
  notify?: DetachedNotifyOption;
  /** Chat hosts: tell the chat when the run reaches one of these milestones. */
  onMilestones?: DetachedMilestonesOption;
  /** Absolute budget (finite, > 0). Default `detachedMaxBudgetMs`. */
  maxBudgetMs?: number;
  /** Silence allowed after the first signal; `0` or `Infinity` disables it. Default `detachedNoProgressBudgetMs`. */
  noProgressBudgetMs?: number;
  /**
   * When the run or turn that dispatched this run is cancelled (a Stop, a cancel of the dispatching run): `"keep"`
   * (default: a background run outlives what started it) or `"cancel"` it too, depth first like an awaited run.
   */
  onParentCancel?: "cancel" | "keep";
};

/** `runAgentToolDetached`'s options: the registry's dispatch options (detached runs take no `signal`). */
export type RunAgentToolDetachedOptions<TInput, THost> = Omit<RunAgentToolOptions<TInput>, "signal"> & {
  detached: true | DetachedOptions<THost>;
};

export type DetachedRunsOptions<THost extends object> = {
  registry: AgentToolRegistry;
  /** The object whose methods `onFinish` names (usually the parent agent itself). */
  host: THost;
  /** Wakes the host for the reconcile tick, also after eviction (a Durable Object alarm). */
  scheduler: WakeupScheduler;
  /** Needed for `notify` and `onMilestones`. */
  chatHost?: ChatHost;
  /** Handler attempts per result before `agent_tool:detached:delivery_failed`. Default 5. */
  maxDeliveryAttempts?: number;
  /** A claim's lease: how long before a crashed or failed delivery is tried again. Default 60 s. */
  deliveryLeaseMs?: number;
  /**
   * True when this host is the only instance that can ever hold its runs' delivery claims (a Durable Object is, by
   * construction). A claim an earlier incarnation left in flight (it crashed, was evicted or redeployed inside a
   * handler) is then orphaned: `start()` takes it back at once instead of waiting for its lease. Never set it for a
   * store that two live processes share. Default false.
   */
  singleInstance?: boolean;
  /** Default absolute budget. Default 24 h. */
  detachedMaxBudgetMs?: number;
  /** Default no-progress budget. Default 1 h. */
  detachedNoProgressBudgetMs?: number;
  formatDetachedCompletion?: FormatDetachedCompletion;
  formatDetachedMilestone?: FormatDetachedMilestone;
  /** How long a run interrupted with its child still running is watched for a late real result. Default 1 h. */
  watchAfterGiveUpMs?: number;
  /** While runs are followed, wake the host at least this often (to follow them again after an eviction). */
  watchIntervalMs?: number;
  /** Keep the host alive for background work (a Durable Object's `ctx.waitUntil`). */
  waitUntil?: (promise: Promise<unknown>) => void;
};

/** Detached runs of one parent. See `createDetachedRuns`. */
export type DetachedRuns<THost> = {
  /**
   * Dispatch a run without waiting for it: resolves at once with `status: "running"`, or `"error"` only when the
   * dispatch was rejected (unknown `onFinish` method, invalid budget, `notify` without a chat host, input refused).
   * Idempotent by runId: a re-dispatch returns the run's real status and starts nothing.
   */
  runAgentToolDetached<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolDetachedOptions<TInput, THost>,
  ): Promise<DetachedRunAgentToolResult>;
  /**
   * Cancel a run; idempotent. Its `aborted` result is delivered once. False for unknown or finished runs. The
   * registry's `cancelAgentTool` does the same for detached runs (this package handles their cancels), so a host can
   * cancel any run with one call.
   */
  cancelAgentTool(runId: string, reason?: string): Promise<boolean>;
  /** The reconcile tick: call it from the host's wake-up (a Durable Object's `alarm()`). */
  tick(): Promise<TickReport>;
  /** Resume after a restart: follow live detached runs again and arm the scheduler for what is outstanding. */
  start(): Promise<void>;
  /** Resolves once background work (deliveries, milestone messages) has settled. */
  whenIdle(): Promise<void>;
  /** Stop listening to the registry and handling its cancels (the host is going away). */
  dispose(): void;
};

/**
 * Detached runs for a parent: dispatch without blocking the turn, absolute and no-progress budgets, and durable
 * delivery of each result to a host method (`onFinish`) or to the chat (`notify`), plus milestones told to the
 * chat. Deadlines and the delivery ledger are data on the run rows (`meta.detached`); `tick()` recomputes them on
 * wake, so nothing is lost to an eviction.
 *
 * Guarantees: a result is delivered exactly once while the host stays up (the live path and the tick racing
 * deliver once) and at least once across a crash (handlers must be idempotent); a throwing handler is retried
 * after the lease with backoff, at most `maxDeliveryAttempts` times. The abort caused by the parent's own
 * teardown is never delivered; a late real result after a give-up is.
 *
 * @example
 * const detached = createDetachedRuns({ registry, host: this, scheduler: new DurableObjectWakeupScheduler(storage) });
 * ctx.waitUntil(detached.start());
 * // in a tool: returns at once
 * await detached.runAgentToolDetached("Importer", { input, detached: { onFinish: "onImportFinished" } });
 * // in alarm():
 * await detached.tick();
 */
export function createDetachedRuns<THost extends object>(options: DetachedRunsOptions<THost>): DetachedRuns<THost> {
  const { registry, host, chatHost } = options;
  const extension = registry.extension({
    key: DETACHED_META_KEY,
    read: parseDetachedState,
    // A finished run needs this package until its result is delivered (or skipped) and it is no longer watched: its
    // row keeps attention until then, so a start-up finds it without reading every retained run.
    settled: (state, record) =>
      nextDeliveryStep(record, state, 0).kind === "none" && !isWatchedAfterGiveUp(record, state),
  });
  const emit = (event: DetachedRunEvent) => extension.emit(event);
  const formatCompletion = options.formatDetachedCompletion ?? defaultFormatDetachedCompletion;
  const defaults = {
    maxBudgetMs: options.detachedMaxBudgetMs ?? DEFAULT_DETACHED_MAX_BUDGET_MS,
    noProgressBudgetMs: options.detachedNoProgressBudgetMs ?? DEFAULT_DETACHED_NO_PROGRESS_BUDGET_MS,
  };

  const handle = async (record: RunRecord & { status: TerminalRunStatus }, state: DetachedRunState) => {
    const run = toRunInfo(record);
    const result = toLifecycleResult(record);
    const target = deliveryTarget(state);
    switch (target) {
      case "onFinish": {
        const name = state.onFinish as string;
        const method = (host as Record<string, unknown>)[name];
        if (typeof method !== "function") {
          throw new AgentToolsError("INVALID_ARGUMENT", `The host has no method "${name}" to receive the result`);
        }
        await method.call(host, run, result);
        return;
      }
      case "notify": {
        if (!chatHost) throw new AgentToolsError("INVALID_ARGUMENT", "notify needs a chatHost");
        await notifyChat(chatHost, run, result, { source: state.notify?.source as string, format: formatCompletion });
        return;
      }
      case "none":
        return;
    }
  };

  const reconciler = new Reconciler({
    extension,
    scheduler: options.scheduler,
    chatHost,
    emit,
    handle,
    formatDetachedMilestone: options.formatDetachedMilestone ?? defaultFormatDetachedMilestone,
    maxDeliveryAttempts: Math.max(1, options.maxDeliveryAttempts ?? DEFAULT_MAX_DELIVERY_ATTEMPTS),
    deliveryLeaseMs: options.deliveryLeaseMs ?? DEFAULT_DELIVERY_LEASE_MS,
    incarnation: crypto.randomUUID(),
    singleInstance: options.singleInstance === true,
    watchAfterGiveUpMs: options.watchAfterGiveUpMs ?? DEFAULT_WATCH_AFTER_GIVE_UP_MS,
    watchIntervalMs: options.watchIntervalMs ?? DEFAULT_WATCH_INTERVAL_MS,
    waitUntil: options.waitUntil,
  });

  // The live fast path: every terminal transition of a detached run is looked at at once.
  const stopListening = extension.onRunFinished((record) => {
    if (record.detached === true && readDetachedState(record)) reconciler.poke(record.runId);
  });
  // One cancel for every run: the registry's `cancelAgentTool` hands detached rows to this package.
  const stopHandlingCancels = extension.handleCancel((record, reason) =>
    record.detached === true && readDetachedState(record) ? reconciler.cancel(record.runId, reason) : null,
  );

  /** Why these options cannot be accepted, or the state to store. */
  const prepare = (settings: DetachedOptions<THost>): { error: string } | { state: DetachedRunState } => {
    const budgets = resolveBudgets(settings, defaults);
    if (!budgets.ok) return { error: budgets.error };
    if (settings.onFinish !== undefined) {
      const method = (host as Record<string, unknown>)[settings.onFinish];
      if (typeof method !== "function") {
        return { error: `onFinish names "${String(settings.onFinish)}", which is not a method of the host` };
      }
    }
    if (
      settings.onParentCancel !== undefined &&
      settings.onParentCancel !== "cancel" &&
      settings.onParentCancel !== "keep"
    ) {
      return { error: `onParentCancel must be "cancel" or "keep", not ${JSON.stringify(settings.onParentCancel)}` };
    }
    const milestones = resolveMilestones(settings.onMilestones);
    if ((settings.notify !== undefined || milestones) && !chatHost) {
      return { error: "notify and onMilestones need a chatHost (createDetachedRuns({ chatHost }))" };
    }
    const now = extension.clock.now();
    return {
      state: {
        version: 1,
        ...(settings.onFinish !== undefined ? { onFinish: settings.onFinish } : {}),
        ...(settings.notify !== undefined ? { notify: { source: notifySource(settings.notify) } } : {}),
        ...(milestones ? { milestones } : {}),
        maxBudgetMs: budgets.maxBudgetMs,
        noProgressBudgetMs: budgets.noProgressBudgetMs,
        budgetDeadline: now + budgets.maxBudgetMs,
        delivery: { settledRevision: 0 },
      },
    };
  };

  return {
    async runAgentToolDetached(child, dispatchOptions) {
      const agentType = resolveAgentType(child);
      // Detached runs ignore `signal` (the type has none; a caller bypassing it is ignored too).
      const {
        detached,
        signal: _signal,
        ...rest
      } = dispatchOptions as RunAgentToolDetachedOptions<unknown, THost> & {
        signal?: AbortSignal;
      };
      const runId = rest.runId ?? crypto.randomUUID();
      if (_signal !== undefined) {
        emit({ type: "agent_tool:detached:signal_ignored", runId, agentType, at: extension.clock.now() });
      }
      const prepared = prepare(detached === true ? {} : detached);
      if ("error" in prepared) {
        emit({ type: "agent_tool:detached:rejected", runId, agentType, at: extension.clock.now() });
        return { runId, agentType, status: "error", error: prepared.error, rejection: "invalid-options" };
      }
      const { state } = prepared;
      const onParentCancel = (detached === true ? undefined : detached.onParentCancel) ?? "keep";
      const admitted = await extension.admit(agentType, { ...rest, runId, detached: true, state, onParentCancel });
      if (!admitted.ok) {
        return { runId, agentType, status: "error", error: admitted.failure.error, rejection: admitted.rejection };
      }
      const { record, created } = admitted;
      const stored = readDetachedState(record);
      if (stored && !isTerminalStatus(record.status)) reconciler.adopt(record, stored);
      if (created) {
        emit({
          type: "agent_tool:detached:dispatch",
          runId,
          agentType,
          target: deliveryTarget(state),
          maxBudgetMs: state.maxBudgetMs,
          noProgressBudgetMs: state.noProgressBudgetMs,
          milestones: state.milestones?.names.length ?? 0,
          at: extension.clock.now(),
        });
      }
      const result = publicResult(record);
      return admitted.rejection ? { ...result, rejection: admitted.rejection } : result;
    },
    cancelAgentTool: (runId, reason = "Cancelled by the parent") => reconciler.cancel(runId, reason),
    tick: () => reconciler.tick(),
    start: () => reconciler.start(),
    whenIdle: () => reconciler.whenIdle(),
    dispose: () => {
      stopListening();
      stopHandlingCancels();
    },
  };
}

/** What a dispatch returns for a row: a live run is `running`; a finished one its real status (and error). */
function publicResult(record: RunRecord): DetachedRunAgentToolResult {
  const status = record.status === "starting" ? "running" : record.status;
  return {
    runId: record.runId,
    agentType: record.agentType,
    status,
    ...(isTerminalStatus(record.status) && record.error !== undefined ? { error: record.error } : {}),
  };
}
