import type { RunPosition, RunStore, RunStoreFilter, RunUpdateCondition } from "../ports/run-store.js";
import type { AgentToolLogEntry } from "../protocol/index.js";
import { applyRunPatch, hasAttention, type RunRecord, type RunRecordPatch } from "../registry/run-record.js";

/** Call counters of an `InMemoryRunStore`, for tests and benchmarks. */
export type InMemoryRunStoreStats = {
  /**
   * Calls of `insertRun`, `updateRun`, `deleteRuns`, `appendLog` and `compactLog`, whether or not they changed
   * anything.
   */
  writes: number;
  /** Calls of `getRun`, `listRuns` and `readLog`. */
  reads: number;
};

/**
 * `structuredClone` exists in every host this code runs on (Node ≥ 17, workerd, browsers), but not in the ES2022
 * lib the package compiles against (`"types": []`), so it is reached through `globalThis`.
 */
const host = globalThis as unknown as { structuredClone<TValue>(value: TValue): TValue };

function copy<TValue>(value: TValue): TValue {
  return host.structuredClone(value);
}

/**
 * A `RunStore` held in memory: the reference implementation of the port, and the one unit tests use.
 * Passes `runStoreContract`; gives every guarantee listed on `RunStore`:
 * - Every call is atomic: it validates and copies its input before it changes anything, and never awaits in
 *   between, so concurrent calls cannot interleave (two `insertRun`s of one runId: exactly one returns `true`).
 * - Values go in and come out as `structuredClone` copies: callers never share a reference with the store, and a
 *   value that cannot be cloned (a function, say) rejects without storing anything.
 * - `updateRun` merges the patch (a key whose value is `undefined` removes the field) and honours
 *   `expectedRevision`; the row's `runId` is its key and never changes, even if the patch names another.
 * - `listRuns` orders by `startedAt`, then `runId` (UTF-16 code unit order, like SQLite's `BINARY`); a missing or
 *   empty `status` filter returns every row.
 * - Each run's log is an array sorted by sequence: appending in order is O(1) amortized, an out-of-order entry
 *   is inserted in place, a sequence already stored is ignored (the first one wins), and `readLog` finds
 *   `afterSequence` by binary search. A non-finite sequence rejects with a `RangeError`.
 * - `compactLog` swaps the run's array for a sorted copy of the compacted entries and remembers the run as compacted
 *   (until `deleteRuns`).
 *
 * Not durable: everything is lost with the instance.
 */
export class InMemoryRunStore implements RunStore {
  readonly #rows = new Map<string, RunRecord>();
  readonly #logs = new Map<string, AgentToolLogEntry[]>();
  /** Runs whose log `compactLog` replaced, and the last sequence it holds (appends up to it are ignored). */
  readonly #compacted = new Map<string, number>();
  #writes = 0;
  #reads = 0;

  /** A snapshot of the call counters since construction or the last `resetStats()`. */
  get stats(): InMemoryRunStoreStats {
    return { writes: this.#writes, reads: this.#reads };
  }

  /** Set both call counters back to 0 (e.g. after a benchmark's setup). */
  resetStats(): void {
    this.#writes = 0;
    this.#reads = 0;
  }

  /** A copy of the row, or `null` when no run has this id. */
  async getRun(runId: string): Promise<RunRecord | null> {
    this.#reads++;
    const row = this.#rows.get(runId);
    return row === undefined ? null : copy(row);
  }

  /** Store a copy of `record` unless its runId exists; `true` when it was stored. */
  async insertRun(record: RunRecord): Promise<boolean> {
    this.#writes++;
    if (this.#rows.has(record.runId)) return false;
    this.#rows.set(record.runId, copy(record));
    return true;
  }

  /**
   * Merge `patch` into the row (an `undefined` value removes the field) when the row exists and, given
   * `expectedRevision`, still has that revision. Resolves a copy of the stored row, or `null` when nothing
   * was changed.
   */
  async updateRun(runId: string, patch: RunRecordPatch, condition?: RunUpdateCondition): Promise<RunRecord | null> {
    this.#writes++;
    const row = this.#rows.get(runId);
    if (row === undefined) return null;
    const expectedRevision = condition?.expectedRevision;
    if (expectedRevision !== undefined && row.revision !== expectedRevision) return null;
    const updated = applyRunPatch(row, copy(patch));
    this.#rows.set(runId, updated);
    return copy(updated);
  }

  /**
   * Copies of the rows, ordered by `startedAt` then `runId` (newest first with `order: "desc"`), keeping only
   * `filter.status` when it is non-empty, only runs whose log is full (or compacted) when `filter.log` says so, and the
   * positions within `before` / `from`, at most `limit` of them.
   */
  async listRuns(filter?: RunStoreFilter): Promise<RunRecord[]> {
    this.#reads++;
    const statuses = filter?.status;
    const wanted = statuses !== undefined && statuses.length > 0 ? new Set(statuses) : null;
    const { before, from, limit } = filter ?? {};
    const rows: RunRecord[] = [];
    for (const row of this.#rows.values()) {
      if (wanted !== null && !wanted.has(row.status)) continue;
      if (filter?.log !== undefined && this.#logState(row.runId) !== filter.log) continue;
      if (filter?.attention === true && !hasAttention(row)) continue;
      if (before !== undefined && compareRuns(row, before) >= 0) continue;
      if (from !== undefined && compareRuns(row, from) < 0) continue;
      rows.push(row);
    }
    rows.sort(compareRuns);
    if (filter?.order === "desc") rows.reverse();
    return (limit === undefined ? rows : rows.slice(0, Math.max(0, limit))).map(copy);
  }

  /** Remove the rows and the logs of `runIds`; unknown ids are ignored. */
  async deleteRuns(runIds: readonly string[]): Promise<void> {
    this.#writes++;
    for (const runId of runIds) {
      this.#rows.delete(runId);
      this.#logs.delete(runId);
      this.#compacted.delete(runId);
    }
  }

  /** Replace the run's log with copies of `entries` (sorted, each sequence once) and mark it compacted. */
  async compactLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<boolean> {
    this.#writes++;
    if (!this.#rows.has(runId)) return false;
    this.#checkSequences("compactLog", entries);
    const unique = new Map<number, AgentToolLogEntry>();
    for (const entry of copy(entries)) if (!unique.has(entry.sequence)) unique.set(entry.sequence, entry);
    const log = [...unique.values()].sort((left, right) => left.sequence - right.sequence);
    if (log.length === 0) {
      this.#logs.delete(runId);
      this.#compacted.delete(runId);
      return true;
    }
    this.#logs.set(runId, log);
    this.#compacted.set(runId, (log.at(-1) as AgentToolLogEntry).sequence);
    return true;
  }

  #logState(runId: string): "full" | "compacted" | "empty" {
    if ((this.#logs.get(runId)?.length ?? 0) === 0) return "empty";
    return this.#compacted.has(runId) ? "compacted" : "full";
  }

  #checkSequences(method: string, entries: readonly AgentToolLogEntry[]): void {
    for (const entry of entries) {
      if (!Number.isFinite(entry.sequence)) {
        throw new RangeError(`InMemoryRunStore.${method}: sequence must be a finite number, got ${entry.sequence}`);
      }
    }
  }

  /** Add copies of `entries` to the run's log, skipping sequences already stored (the first one wins). */
  async appendLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<void> {
    this.#writes++;
    if (entries.length === 0) return;
    this.#checkSequences("appendLog", entries);
    const compactedThrough = this.#compacted.get(runId) ?? Number.NEGATIVE_INFINITY;
    const copies = copy(entries).filter((entry) => entry.sequence > compactedThrough);
    let log = this.#logs.get(runId);
    if (log === undefined) {
      log = [];
      this.#logs.set(runId, log);
    }
    for (const entry of copies) {
      const last = log[log.length - 1];
      if (last === undefined || entry.sequence > last.sequence) {
        log.push(entry);
        continue;
      }
      const index = firstIndexAtOrAfter(log, entry.sequence);
      if (log[index]?.sequence === entry.sequence) continue;
      log.splice(index, 0, entry);
    }
  }

  /**
   * Copies of the run's entries with `sequence > afterSequence` (all when absent), in ascending order, at most
   * `limit` of them (all when absent; none when ≤ 0). An unknown run has an empty log.
   */
  async readLog(runId: string, options?: { afterSequence?: number; limit?: number }): Promise<AgentToolLogEntry[]> {
    this.#reads++;
    const log = this.#logs.get(runId);
    if (log === undefined) return [];
    const afterSequence = options?.afterSequence;
    const start = afterSequence === undefined ? 0 : firstIndexAfter(log, afterSequence);
    const limit = options?.limit;
    const end = limit === undefined ? log.length : start + Math.max(0, limit);
    return log.slice(start, end).map(copy);
  }
}

function compareRuns(a: RunPosition, b: RunPosition): number {
  if (a.startedAt !== b.startedAt) return a.startedAt - b.startedAt;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}

/** The index of the first entry whose sequence is ≥ `sequence` (`log.length` when none). */
function firstIndexAtOrAfter(log: readonly AgentToolLogEntry[], sequence: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((log[middle] as AgentToolLogEntry).sequence < sequence) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of the first entry whose sequence is > `sequence` (`log.length` when none). */
function firstIndexAfter(log: readonly AgentToolLogEntry[], sequence: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((log[middle] as AgentToolLogEntry).sequence <= sequence) low = middle + 1;
    else high = middle;
  }
  return low;
}
