import { isLiveStatus, isTerminalStatus } from "../protocol/index.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import type { ClearAgentToolRunsOptions } from "./registry-options.js";
import type { RegistryRuntime } from "./registry-runtime.js";
import type { RunDrivers } from "./run-drivers.js";
import { clearedFrame } from "./run-frames.js";
import type { RunRecord } from "./run-record.js";
import type { RunTransitions } from "./run-transitions.js";

/** The runs a clear selects: by status, and by age (`completedAt` for finished runs, `startedAt` for others). */
function selectRunsToClear(records: readonly RunRecord[], options: ClearAgentToolRunsOptions): RunRecord[] {
  const { olderThan } = options;
  if (olderThan === undefined) return [...records];
  return records.filter((record) => {
    const at = isTerminalStatus(record.status) ? (record.completedAt ?? record.startedAt) : record.startedAt;
    return at < olderThan;
  });
}

/**
 * Forget runs: live ones are stopped here and their children cancelled first (the run ends `aborted` for hooks and
 * observers), every child's storage is destroyed, the rows and logs deleted, and clients told once with `cleared`.
 * Failures to reach a child never stop the clear.
 * @internal
 */
export async function clearRuns(context: {
  runtime: RegistryRuntime;
  slots: ConcurrencySlots;
  transitions: RunTransitions;
  drivers: RunDrivers;
  options: ClearAgentToolRunsOptions;
}): Promise<{ runIds: string[] }> {
  const { runtime, slots, transitions, drivers, options } = context;
  // The runs as this process knows them: an answered start whose row has not recorded it yet is `running`.
  const records = await drivers.list(options.status);
  const selected = selectRunsToClear(records, options);
  if (selected.length === 0) return { runIds: [] };
  const runIds = selected.map((record) => record.runId);
  for (const record of selected) {
    const ref = { agentType: record.agentType, runId: record.runId };
    // Stop following first, so nothing is written for the run once its rows are gone.
    await drivers.clear(record.runId);
    if (isLiveStatus(record.status)) {
      await ignoreFailure(() => runtime.transport.cancel(ref, "Cleared"));
      transitions.announceCleared(record);
    }
    await ignoreFailure(() => runtime.transport.destroy(ref));
  }
  await runtime.store.deleteRuns(runIds);
  for (const runId of runIds) {
    slots.release(runId);
  }
  runtime.send(clearedFrame(runIds));
  runtime.emit({ type: "agent_tool:clear", runIds, at: runtime.clock.now() });
  return { runIds };
}

async function ignoreFailure(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch {
    // best effort: the clear goes on
  }
}
