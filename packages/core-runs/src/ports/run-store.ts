import type { AgentToolLogEntry, RunStatus } from "../protocol/index.js";
import type { RunRecord, RunRecordPatch } from "../registry/run-record.js";

/** A run's place in `listRuns` order: by `startedAt`, then `runId` (UTF-16 code unit order). */
export type RunPosition = { startedAt: number; runId: string };

/** Which runs `listRuns` returns, and in which order. */
export type RunStoreFilter = {
  status?: readonly RunStatus[];
  /**
   * `"full"`: only runs whose log holds entries and was never compacted; `"compacted"`: only runs whose log was
   * replaced by `compactLog`. Absent: any.
   */
  log?: "full" | "compacted";
  /** `"desc"`: newest first (default `"asc"`: oldest first). */
  order?: "asc" | "desc";
  /** Only the runs before this position (it excluded): a page of older runs. */
  before?: RunPosition;
  /** Only the runs at or after this position (it included). */
  from?: RunPosition;
  /** At most this many runs, the first in `order` (a whole number ≥ 0). */
  limit?: number;
  /** `true`: only the runs with `attention` (an owner has work left on them; see `RunRecord.attention`). */
  attention?: boolean;
};

/** A conditional update: applied only when the stored row still has this revision. */
export type RunUpdateCondition = {
  expectedRevision?: number;
};

/**
 * Durable storage for agent-tool runs, implemented once per host. One instance belongs to one agent (a parent's
 * registry rows, or a child's own run rows) and holds:
 * - **run rows** (`RunRecord`), keyed by `runId`;
 * - each run's **sequenced log** of `UIMessageChunk`s and milestones.
 *
 * Guarantees an implementation must give (checked by `runStoreContractCases` from "@agent-tools/core-runs/testing",
 * or `runStoreContract` from "@agent-tools/core-runs/testing/vitest";
 * every implementation must pass it):
 * - Every call is atomic. `null` means "not found", never failure; failures reject.
 * - `insertRun` creates only if absent and says whether it did (so two dispatches of one runId cannot both win).
 * - `updateRun` merges the patch as `applyRunPatch` does (a field set to `undefined` is removed; `meta` is
 *   merged per key, so extension packages never overwrite each other's key) and, given `expectedRevision`, applies
 *   only when the stored revision matches; it returns the stored row after the update, or `null` when the row
 *   is missing or the condition failed.
 * - `listRuns` orders by `startedAt`, then `runId`, ascending (descending with `order: "desc"`), keeps the runs
 *   within `before` / `from`, of `status` and with `attention`, and returns the first `limit` of them. A host with
 *   many retained runs answers a bounded filter (`limit`, the live statuses `starting`/`running`, `attention`)
 *   without reading every row.
 * - `appendLog` keeps entries by sequence: an entry whose sequence is already stored is ignored (dedupe), so
 *   appending the same entries twice is harmless. `readLog` returns entries with `sequence > afterSequence`, in
 *   ascending order, at most `limit` of them.
 * - Rows and entries come back as equal values (structured-clone / JSON round trip), never shared references.
 * - `deleteRuns` removes the rows and their logs; unknown ids are ignored.
 * - `compactLog` replaces a run's whole log with `entries` (sorted by sequence, a sequence given twice kept once:
 *   the first) in one atomic step, and marks it compacted (`listRuns({ log: "compacted" })`) until the run is
 *   deleted. It returns `false`, writing nothing, when there is no row for the run. `readLog` then returns those
 *   entries as given, envelope fields of their own included. They stand for every sequence up to their last:
 *   `appendLog` of those is ignored, later ones are added as usual. Compacting with no entries leaves the run with an empty log (neither full nor compacted).
 */
export interface RunStore {
  getRun(runId: string): Promise<RunRecord | null>;
  insertRun(record: RunRecord): Promise<boolean>;
  updateRun(runId: string, patch: RunRecordPatch, condition?: RunUpdateCondition): Promise<RunRecord | null>;
  listRuns(filter?: RunStoreFilter): Promise<RunRecord[]>;
  deleteRuns(runIds: readonly string[]): Promise<void>;
  appendLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<void>;
  readLog(runId: string, options?: { afterSequence?: number; limit?: number }): Promise<AgentToolLogEntry[]>;
  /** Replace a finished run's log with its compacted form (`compactRunLog`); `false` when the run has no row. */
  compactLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<boolean>;
}
