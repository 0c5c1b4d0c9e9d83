import type { RunStore } from "../ports/run-store.js";

/**
 * A `RunStore` that is `store` but for the methods in `overrides`: every other method forwards to `store`. For a test
 * that holds, breaks or counts one of a store's methods (`storeWith(inner, { readLog: … })`).
 *
 * @experimental
 */
export function storeWith(store: RunStore, overrides: Partial<RunStore> = {}): RunStore {
  return {
    getRun: (runId) => store.getRun(runId),
    insertRun: (record) => store.insertRun(record),
    updateRun: (runId, patch, condition) => store.updateRun(runId, patch, condition),
    listRuns: (filter) => store.listRuns(filter),
    deleteRuns: (runIds) => store.deleteRuns(runIds),
    appendLog: (runId, entries) => store.appendLog(runId, entries),
    compactLog: (runId, entries) => store.compactLog(runId, entries),
    readLog: (runId, options) => store.readLog(runId, options),
    ...overrides,
  };
}
