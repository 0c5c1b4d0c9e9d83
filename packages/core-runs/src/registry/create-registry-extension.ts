import { compactStoredLog } from "../log/log-compaction.js";
import { isHardTerminalStatus } from "../protocol/index.js";
import { resolveAgentType } from "./agent-type.js";
import type { CancelHandler, RegistryExtension, RegistryExtensionOptions, RunFollow } from "./registry-extension.js";
import type { RegistryRuntime } from "./registry-runtime.js";
import type { RunAdmission } from "./run-admission.js";
import type { ActivityListener, RunDriver, StopDecision } from "./run-driver.js";
import type { RunDrivers } from "./run-drivers.js";
import { applyRunPatch, type RunRecord } from "./run-record.js";
import type { RunTransitions } from "./run-transitions.js";

/** How many times a state write is tried when the row's revision keeps moving under it. */
const MAX_STATE_WRITES = 5;

/** What the registry hands its extensions. @internal */
export type RegistryInternals = {
  runtime: RegistryRuntime;
  transitions: RunTransitions;
  drivers: RunDrivers;
  admission: RunAdmission;
  generateRunId: () => string;
  cancelHandlers: Set<CancelHandler>;
};

/** @internal */
export function createRegistryExtension<TState>(
  options: RegistryExtensionOptions<TState>,
  internals: RegistryInternals,
): RegistryExtension<TState> {
  const { key, read, settled } = options;
  const { runtime, transitions, drivers, admission, cancelHandlers } = internals;
  const { store } = runtime;
  const stateOf = (record: RunRecord): TState | null => read(record.meta?.[key]);
  if (settled) {
    runtime.attention.register(key, (record) => {
      const state = stateOf(record);
      return state !== null && !settled(state, record);
    });
  }
  /** This extension's attention key for `record` as it will be (none when it does not say when rows are settled). */
  const attentionOf = (record: RunRecord) =>
    settled ? { attention: { [key]: runtime.attention.needs(key, record) || undefined } } : {};

  return {
    key,
    clock: runtime.clock,
    getRun: (runId) => store.getRun(runId),
    listRuns: (filter) => store.listRuns(filter),
    readLog: (runId, readOptions) => store.readLog(runId, readOptions),
    compactLog: (runId) => compactStoredLog(store, runId),
    stateOf,

    async updateState(runId, change, current) {
      let known = current;
      for (let attempt = 0; attempt < MAX_STATE_WRITES; attempt += 1) {
        const record = known ?? (await store.getRun(runId));
        known = undefined;
        const state = record ? stateOf(record) : null;
        if (!record || state === null) return null;
        const next = change(state, record);
        if (next === null) return { record, state };
        const meta = { [key]: next };
        const patch = { meta, ...attentionOf(applyRunPatch(record, { meta })) };
        const updated = await store.updateRun(runId, patch, { expectedRevision: record.revision });
        if (updated) return { record: updated, state: next };
      }
      return null;
    },

    async refreshAttention(record) {
      if (!settled) return;
      const needs = runtime.attention.needs(key, record);
      if (needs === (record.attention?.[key] === true)) return;
      await store.updateRun(record.runId, { attention: { [key]: needs || undefined } });
    },

    admit(child, { state, detached, ...request }) {
      const runId = request.runId ?? internals.generateRunId();
      return admission.admit(resolveAgentType(child), runId, {
        ...request,
        ...(detached !== undefined ? { detached } : {}),
        ...(state !== undefined ? { meta: { [key]: state } } : {}),
      });
    },

    follow: (runId, followOptions = {}) => follow(runId, followOptions.onActivity, internals),
    finalize: (runId, outcome) => transitions.finalize(runId, outcome),
    inspectChild: (run) => runtime.transport.inspect({ agentType: run.agentType, runId: run.runId }),

    async cancelChild(run, reason) {
      try {
        await runtime.transport.cancel({ agentType: run.agentType, runId: run.runId }, reason);
        return true;
      } catch {
        return false;
      }
    },

    async cancelRun(runId, reason) {
      const record = await store.getRun(runId);
      return record ? drivers.cancel(record, reason) : false;
    },

    handleCancel(handler) {
      cancelHandlers.add(handler);
      return () => {
        cancelHandlers.delete(handler);
      };
    },

    onRunFinished: (listener) => transitions.onRunFinished(listener),
    emit: (event) => runtime.emit(event),
  };
}

/** Follow a run unless it is hard-terminal (resolved at once); a stop asked before the lookup applies after it. */
function follow(runId: string, onActivity: ActivityListener | undefined, internals: RegistryInternals): RunFollow {
  let driver: RunDriver | null = null;
  let stopRequest: StopDecision | null = null;
  const done = (async () => {
    const record = await internals.runtime.store.getRun(runId);
    if (!record || isHardTerminalStatus(record.status)) return record;
    const current = internals.drivers.drive(record);
    driver = current;
    if (onActivity) {
      const stopListening = current.onActivity(onActivity);
      current.done.then(stopListening, stopListening);
    }
    return stopRequest !== null ? current.stop(stopRequest) : current.done;
  })();
  return {
    done,
    stop(decide) {
      if (driver) return driver.stop(decide);
      stopRequest = decide;
      return done;
    },
  };
}
