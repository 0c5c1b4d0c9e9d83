import { applyRunPatch, decodeLogEntries, encodeLogEntries, type RunStore } from "@agent-tools/core-runs";
import type { RunRecord, RunRecordPatch, RunStoreFilter, RunUpdateCondition } from "@agent-tools/core-runs/internal";
import type { AgentToolLogEntry } from "@agent-tools/core-runs/protocol";
import {
  type DurableObjectRunStoreStorage,
  fromRunRow,
  LIVE_STATUSES,
  LOG_ROWS,
  openRunRows,
  type RunRow,
  type RunRows,
  type RunStoreTables,
  toRunRow,
} from "./durable-object-run-rows.js";

export type { DurableObjectRunStoreStorage, RunStoreTables } from "./durable-object-run-rows.js";

/** The tables the store owns, for benchmarks and tests that count rows. */
export const RUN_STORE_TABLES = { runs: "agent_tool_runs", log: "agent_tool_log" } as const;

/**
 * Largest JSON text (in UTF-16 code units) written into one log row. workerd caps a row at 2 MB; one code unit
 * is at most 3 bytes of UTF-8, so 600 000 units stay under the cap. An `appendLog` call bigger than this is
 * split into several rows (still one transaction).
 */
const MAX_LOG_ROW_CHARS = 600_000;

/**
 * The size (UTF-8 bytes of the encoded entries) a log row is filled up to. SQLite keeps a row of a `WITHOUT ROWID`
 * table inside its b-tree page only up to about 1 000 bytes (4 KiB pages); past that, the rest goes to an overflow page
 * of its own, a whole 4 KiB even for a few bytes. Rows of at most this size share pages: a run's log costs about its
 * size. Larger appends are split at this size, smaller ones fill the last row up to it.
 */
const TARGET_LOG_ROW_BYTES = 900;

/** How many runs' last log rows a store keeps at most (each a row of under a kilobyte). */
const MAX_KEPT_LOG_TAILS = 256;

/** The last log row of a run; `entries` only when the row is small enough to take more (else `null`). */
type LogTailRow = { first_sequence: number; last_sequence: number; entries: string | null };

type LogBatchRow = {
  first_sequence: number;
  entries: string;
};

/**
 * `RunStore` over a SQLite-backed Durable Object's `ctx.storage.sql`: one store per object, i.e. per agent.
 *
 * Layout, chosen for few row writes (Durable Objects bill and sync per row written):
 * - `agent_tool_runs`: one row per run. The columns the store queries (`run_id`, `status`, `revision`,
 *   `started_at`) are real columns; the rest of the `RunRecord` is one JSON column. Two indexes, so that what a
 *   parent with thousands of retained runs asks often never reads them all: `(started_at, run_id)` (a page of the
 *   newest runs for a client's replay) and the same over live rows only (`status IN ('starting', 'running')`: what
 *   start-up and admission list). An insert writes the row and its index entries; an update touches an index only
 *   when it changes a column the index holds (the status of a live run ending, a moved start).
 * - `agent_tool_log`: rows of consecutive entries (`first_sequence`, `last_sequence`, and the entries in the compact
 *   encoding of `encodeLogEntries`), filled up to about 900 bytes so that SQLite keeps them inside its pages: an
 *   `appendLog` writes one row, or rewrites the last one when that is small, and splits a large batch. A runner
 *   flushing 100 chunks writes one or two rows, not 100. `readLog` reads the rows that reach past `afterSequence`
 *   and filters. Rows of the plain JSON arrays written by earlier versions are read as well. A compacted log
 *   (`compactLog`) is marked by its first row's key: `first_sequence` 0.
 * - With `runsInLog` (a child's own ledger, as `AgentToolChild` opens it), no runs table: each run's row is a row of
 *   the log table, keyed `first_sequence` −1 before its log (see `openRunRows`).
 *
 * Every method does its SQL synchronously inside one call, so it is atomic: a Durable Object runs one event at a
 * time and `ctx.storage.sql` never yields, so nothing interleaves between a read and the write that depends on
 * it. Methods that write more than one statement run in `transactionSync`, so a failure leaves no half write.
 *
 * A store is its tables' only writer (one store per object and tables, as the hosts make them): it keeps the rows of
 * the live runs it wrote, and the last log row of the runs it appended to (or, from a run's insert, that its log is
 * empty), and reads them again without SQL (a run's `getRun`, `updateRun`'s read before its write, `appendLog`'s look
 * at the last row). What it keeps is what it wrote,
 * so it is never stale; a terminal row, a deleted run, a compacted log and a failed statement are forgotten.
 * Must pass `runStoreContractCases` from "@agent-tools/core-runs/testing" (checked inside workerd).
 *
 * @example
 * export class Assistant extends DurableObject<Env> {
 *   readonly store = new DurableObjectRunStore(this.ctx.storage);
 * }
 */
export class DurableObjectRunStore implements RunStore {
  readonly #storage: DurableObjectRunStoreStorage;
  readonly #tables: RunStoreTables;
  readonly #rows: RunRows;
  /**
   * The rows of the live runs this store wrote, as stored. Made when first needed and dropped once empty, as
   * `#logTails` is: a child object is made per run and stays in memory a while after it, holding no table.
   */
  #liveRows: Map<string, RunRow> | undefined;
  /** The last log row of runs this store appended to (`null`: the run has none), as `#freshEntries` reads it. */
  #logTails: Map<string, LogTailRow | null> | undefined;

  /**
   * `tables` names the two tables (default `RUN_STORE_TABLES`): one object can hold two stores, as a child that runs
   * agent tools itself does (its own run's ledger, and its registry of the runs it dispatches). `indexed: false`
   * leaves the runs table without its indexes, for a store that only ever holds a few runs (a child's own ledger:
   * one run per object), so no write pays for them. `runsInLog: true` goes further for such a store: no runs table,
   * each run's row kept in the log table, so a new object makes one table, not two (one page, 4 KiB, less; in
   * workerd, an awaited run about 1 % faster, 20 at once 4–5 %). It decides the layout of a new object's tables; an object whose runs
   * table exists keeps it. Every store over the same tables must be opened with the same `runsInLog`.
   */
  constructor(
    storage: DurableObjectRunStoreStorage,
    options: { tables?: RunStoreTables; indexed?: boolean; runsInLog?: boolean } = {},
  ) {
    this.#storage = storage;
    this.#tables = options.tables ?? RUN_STORE_TABLES;
    this.#rows = openRunRows(storage, this.#tables, {
      indexed: options.indexed !== false,
      runsInLog: options.runsInLog === true,
    });
  }

  /** Where this store keeps its runs' rows: `"table"` (a runs table) or `"log"` (the log table: `runsInLog`). */
  get layout(): "table" | "log" {
    return this.#rows.layout;
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const kept = this.#liveRows?.get(runId);
    return kept !== undefined ? fromRunRow(kept) : (this.#rows.record(runId) ?? null);
  }

  async insertRun(record: RunRecord): Promise<boolean> {
    const row = toRunRow(record);
    const created = this.#rows.insert(row);
    if (created === undefined) return false;
    this.#keep(row);
    if (!created.hasLog && this.#liveRows?.has(row.run_id)) this.#rememberTail(row.run_id, null);
    return true;
  }

  async updateRun(runId: string, patch: RunRecordPatch, condition: RunUpdateCondition = {}): Promise<RunRecord | null> {
    // Read, merge and write with no await in between: atomic (see the class comment), so two conditional
    // updates with the same expectedRevision cannot both apply.
    const stored = this.#liveRows?.get(runId) ?? this.#rows.get(runId);
    if (stored === undefined) return null;
    if (condition.expectedRevision !== undefined && stored.revision !== condition.expectedRevision) return null;
    const merged = applyRunPatch(fromRunRow(stored), patch);
    const row = toRunRow(merged);
    this.#rows.update(row, stored);
    this.#keep(row);
    return fromRunRow(row);
  }

  /** Keep a row just written while its run is live; forget it (and its log's last row) once it is not. */
  #keep(row: RunRow): void {
    if ((LIVE_STATUSES as readonly string[]).includes(row.status)) {
      this.#liveRows ??= new Map();
      this.#liveRows.set(row.run_id, row);
      return;
    }
    this.#forget(row.run_id);
  }

  async listRuns(filter: RunStoreFilter = {}): Promise<RunRecord[]> {
    return this.#rows.list(filter);
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    const unique = new Set(runIds);
    try {
      this.#storage.transactionSync(() => {
        for (const runId of unique) this.#rows.delete(runId);
      });
    } finally {
      for (const runId of unique) this.#forget(runId);
    }
  }

  /** Read the run's row and its log's last row from SQL next time. */
  #forget(runId: string): void {
    this.#forgetTail(runId);
    this.#liveRows?.delete(runId);
    if (this.#liveRows?.size === 0) this.#liveRows = undefined;
  }

  /** Read the run's log's last row from SQL next time. */
  #forgetTail(runId: string): void {
    this.#logTails?.delete(runId);
    if (this.#logTails?.size === 0) this.#logTails = undefined;
  }

  async appendLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const sql = this.#storage.sql;
    const { fresh, tail, isAppendedPastEnd } = this.#freshEntries(runId, entries);
    if (fresh.length === 0) return;
    // A small last row that the new entries follow on from is written again with them (one row keeps filling up to
    // the target size instead of a row per append); a row that would not change is left alone.
    const extended = tail?.entries != null ? [...parseEntries(tail.entries), ...fresh] : null;
    const batches = splitIntoRows(extended ?? fresh);
    const rewritten = extended !== null && tail !== undefined && batches[0]?.lastSequence !== tail.last_sequence;
    // Forgotten while the statements run: a failed transaction leaves the last row unknown (the table is kept: the
    // row written is kept next).
    const last = batches.at(-1);
    this.#logTails?.delete(runId);
    // The first batch is the last row again: rewritten when it changed, left alone when not.
    const rows = extended !== null && !rewritten ? batches.slice(1) : batches;
    const write = () => {
      for (const [index, batch] of rows.entries()) {
        if (index === 0 && rewritten && tail !== undefined) {
          sql.exec(
            `UPDATE ${this.#tables.log} SET last_sequence = ?, entries = ? WHERE run_id = ? AND first_sequence = ?`,
            batch.lastSequence,
            batch.json,
            runId,
            tail.first_sequence,
          );
          continue;
        }
        sql.exec(
          `INSERT INTO ${this.#tables.log} (run_id, first_sequence, last_sequence, entries) VALUES (?, ?, ?, ?)`,
          runId,
          batch.firstSequence,
          batch.lastSequence,
          batch.json,
        );
      }
    };
    // One statement is atomic by itself (most appends: a burst fits one row); more go in one transaction.
    if (rows.length <= 1) write();
    else this.#storage.transactionSync(write);
    // Appended past the end (the runner's case): the last batch is the log's last row now.
    if (last !== undefined && isAppendedPastEnd) {
      const small = utf8Bytes(last.json) < TARGET_LOG_ROW_BYTES;
      this.#rememberTail(runId, {
        first_sequence: last.firstSequence,
        last_sequence: last.lastSequence,
        entries: small ? last.json : null,
      });
    }
  }

  /** Keep a run's last log row (bounded: a store following many runs at once reads the rest from SQL). */
  #rememberTail(runId: string, tail: LogTailRow | null): void {
    this.#logTails ??= new Map();
    if (this.#logTails.size >= MAX_KEPT_LOG_TAILS && !this.#logTails.has(runId)) return;
    this.#logTails.set(runId, tail);
  }

  async compactLog(runId: string, entries: readonly AgentToolLogEntry[]): Promise<boolean> {
    const sql = this.#storage.sql;
    const unique = new Map<number, AgentToolLogEntry>();
    for (const entry of entries) if (!unique.has(entry.sequence)) unique.set(entry.sequence, entry);
    const sorted = [...unique.values()].sort(bySequence);
    const batches = splitIntoRows(sorted);
    this.#forgetTail(runId);
    return this.#storage.transactionSync(() => {
      if (!this.#rows.has(runId)) return false;
      const rows = sql
        .exec<{ first_sequence: number; last_sequence: number; entries: string }>(
          `SELECT first_sequence, last_sequence, entries FROM ${this.#tables.log} WHERE run_id = ? AND ${LOG_ROWS}
           ORDER BY first_sequence`,
          runId,
        )
        .toArray();
      const through = sorted.at(-1)?.sequence ?? 0;
      const first = rows[0];
      // The log as it is stored, only marked: its first row is keyed 0 and spans every sequence. Rewriting it all
      // would move the same bytes to new places in the table's pages.
      if (first !== undefined && first.first_sequence > 0 && isStored(rows, sorted)) {
        sql.exec(
          `UPDATE ${this.#tables.log} SET first_sequence = 0, last_sequence = ? WHERE run_id = ? AND first_sequence = ?`,
          through,
          runId,
          first.first_sequence,
        );
        return true;
      }
      sql.exec(`DELETE FROM ${this.#tables.log} WHERE run_id = ? AND ${LOG_ROWS}`, runId);
      // The first row is keyed 0 (the mark of a compacted log) and spans every sequence the log stands for.
      for (const [index, batch] of batches.entries()) {
        sql.exec(
          `INSERT INTO ${this.#tables.log} (run_id, first_sequence, last_sequence, entries) VALUES (?, ?, ?, ?)`,
          runId,
          index === 0 ? 0 : batch.firstSequence,
          index === 0 ? through : batch.lastSequence,
          batch.json,
        );
      }
      return true;
    });
  }

  async readLog(runId: string, options: { afterSequence?: number; limit?: number } = {}): Promise<AgentToolLogEntry[]> {
    const { afterSequence = 0, limit } = options;
    if (limit !== undefined && limit <= 0) return [];
    const cursor = this.#storage.sql.exec<LogBatchRow>(
      `SELECT first_sequence, entries FROM ${this.#tables.log}
       WHERE run_id = ? AND last_sequence > ? AND ${LOG_ROWS} ORDER BY first_sequence`,
      runId,
      afterSequence,
    );
    const collected: AgentToolLogEntry[] = [];
    for (const row of cursor) {
      if (limit !== undefined && collected.length >= limit) {
        // Batches come in first_sequence order; once a batch starts past the limit-th smallest sequence
        // collected so far, neither it nor any later batch can make the cut.
        collected.sort(bySequence);
        collected.length = limit;
        const cutoff = collected[limit - 1]?.sequence ?? Number.POSITIVE_INFINITY;
        if (row.first_sequence > cutoff) break;
      }
      for (const entry of parseEntries(row.entries)) {
        if (entry.sequence > afterSequence) collected.push(entry);
      }
    }
    collected.sort(bySequence);
    return limit === undefined ? collected : collected.slice(0, limit);
  }

  /**
   * The entries whose sequence is not stored yet, each sequence once (first occurrence wins), ascending, and the
   * log's last row when they all come after it (its entries only when it is small enough to take more). Reads only
   * the rows whose range overlaps the incoming one: none but the last, when the runner appends past the end.
   */
  #freshEntries(
    runId: string,
    entries: readonly AgentToolLogEntry[],
  ): { fresh: readonly AgentToolLogEntry[]; tail?: LogTailRow; isAppendedPastEnd: boolean } {
    let lowest = Number.POSITIVE_INFINITY;
    let highest = Number.NEGATIVE_INFINITY;
    for (const entry of entries) {
      lowest = Math.min(lowest, entry.sequence);
      highest = Math.max(highest, entry.sequence);
    }
    // Fast path: appending past the end of the stored log (the runner's case) reads one row, not the whole log (or
    // none, when this store wrote that row).
    const kept = this.#logTails?.get(runId);
    const tail =
      kept !== undefined
        ? (kept ?? undefined)
        : this.#storage.sql
            .exec<LogTailRow>(
              `SELECT first_sequence, last_sequence,
                 CASE WHEN first_sequence > 0 AND length(CAST(entries AS BLOB)) < ? THEN entries END AS entries
               FROM ${this.#tables.log} WHERE run_id = ? AND ${LOG_ROWS} ORDER BY first_sequence DESC LIMIT 1`,
              TARGET_LOG_ROW_BYTES,
              runId,
            )
            .toArray()[0];
    if (tail === undefined || tail.last_sequence < lowest) {
      return { fresh: uniqueAscending(entries), ...(tail ? { tail } : {}), isAppendedPastEnd: true };
    }
    const seen = new Set<number>();
    // A compacted log stands for every sequence up to its last: its first row (key 0) spans them all.
    let compactedThrough = Number.NEGATIVE_INFINITY;
    const overlapping = this.#storage.sql.exec<{ first_sequence: number; last_sequence: number; entries: string }>(
      `SELECT first_sequence, last_sequence, entries FROM ${this.#tables.log}
       WHERE run_id = ? AND first_sequence <= ? AND last_sequence >= ? AND ${LOG_ROWS}`,
      runId,
      highest,
      lowest,
    );
    for (const row of overlapping) {
      if (row.first_sequence === 0) compactedThrough = row.last_sequence;
      for (const entry of parseEntries(row.entries)) seen.add(entry.sequence);
    }
    const fresh: AgentToolLogEntry[] = [];
    for (const entry of entries) {
      if (seen.has(entry.sequence) || entry.sequence <= compactedThrough) continue;
      seen.add(entry.sequence);
      fresh.push(entry);
    }
    return { fresh: fresh.sort(bySequence), isAppendedPastEnd: false };
  }
}

/**
 * Each sequence of `entries` once (its first occurrence), ascending: `entries` itself when it is so already (a
 * runner's append: no copy).
 */
function uniqueAscending(entries: readonly AgentToolLogEntry[]): readonly AgentToolLogEntry[] {
  let previous = Number.NEGATIVE_INFINITY;
  for (const entry of entries) {
    if (!(entry.sequence > previous)) {
      const unique = new Map<number, AgentToolLogEntry>();
      for (const each of entries) if (!unique.has(each.sequence)) unique.set(each.sequence, each);
      return [...unique.values()].sort(bySequence);
    }
    previous = entry.sequence;
  }
  return entries;
}

/** Whether `rows` (a run's log rows, in key order) hold exactly `entries`. */
function isStored(rows: ReadonlyArray<{ entries: string }>, entries: readonly AgentToolLogEntry[]): boolean {
  const stored = rows.flatMap((row) => parseEntries(row.entries));
  return stored.length === entries.length && JSON.stringify(stored) === JSON.stringify(entries);
}

/** More than the JSON of a delta's entry but for its text and its part's id: the envelope, the keys, the numbers. */
const DELTA_ENVELOPE_CHARS = 160;

type LogRowBatch = { firstSequence: number; lastSequence: number; json: string };

/**
 * Groups sorted entries into rows of about `TARGET_LOG_ROW_BYTES` (never over `MAX_LOG_ROW_CHARS`), each in the
 * compact encoding of `encodeLogEntries`. A row is cut where the entries' estimated encoded size would pass the target:
 * a delta that continues its part costs its text, any other entry its JSON.
 */
function splitIntoRows(sorted: readonly AgentToolLogEntry[]): LogRowBatch[] {
  const batches: LogRowBatch[] = [];
  let group: AgentToolLogEntry[] = [];
  let size = 0;
  let chars = 0;
  let previous: AgentToolLogEntry | undefined;
  const flush = () => {
    const first = group[0];
    const last = group.at(-1);
    if (first === undefined || last === undefined) return;
    batches.push({ firstSequence: first.sequence, lastSequence: last.sequence, json: encodeLogEntries(group) });
    group = [];
    size = 0;
    chars = 0;
  };
  for (const entry of sorted) {
    const continued = previous !== undefined && continuesDelta(previous, entry);
    // A delta that continues its part costs its text (and its length); a compacted log's merged delta, its text and
    // a few numbers (its reset before it, a short body, goes in the same segment); any other entry, its JSON less
    // the envelope. Only the last is serialized to be measured: the JSON of a bare delta (no field but its type,
    // part and text) is at most six characters per character of its text and part (`\u0000`) and its envelope.
    const merged = "merged" in entry;
    const isText = continued || merged;
    const text = isText ? deltaText(entry) : "";
    const json = isText && isBareDelta(entry, merged) ? null : JSON.stringify(entry);
    const estimate = isText ? utf8Bytes(text) + (merged ? 40 : 4) : utf8Bytes(json as string) - 20;
    const length = json === null ? 6 * (text.length + deltaPart(entry).length) + DELTA_ENVELOPE_CHARS : json.length;
    if (group.length > 0 && (size + estimate > TARGET_LOG_ROW_BYTES || chars + length > MAX_LOG_ROW_CHARS)) {
      flush();
    }
    group.push(entry);
    size += estimate;
    chars += length + 1;
    previous = entry;
  }
  flush();
  return batches;
}

/** The text a delta chunk adds (its `delta` or `inputTextDelta`), or "". */
function deltaText(entry: AgentToolLogEntry): string {
  const body = entry.body as { delta?: unknown; inputTextDelta?: unknown };
  const text = body.delta ?? body.inputTextDelta;
  return typeof text === "string" ? text : "";
}

/** An entry of a delta with no field but its own (`sequence`, `body`, `at`, `merged`; a body of three). */
function isBareDelta(entry: AgentToolLogEntry, merged: boolean): boolean {
  return Object.keys(entry).length === (merged ? 4 : 3) && Object.keys(entry.body).length === 3;
}

/** The part a delta chunk adds to (its `id` or `toolCallId`), or "". */
function deltaPart(entry: AgentToolLogEntry): string {
  const body = entry.body as { id?: unknown; toolCallId?: unknown };
  const part = body.id ?? body.toolCallId;
  return typeof part === "string" ? part : "";
}

/** Whether `entry` is a delta of the same kind and part as `previous` (the encoding joins them). */
function continuesDelta(previous: AgentToolLogEntry, entry: AgentToolLogEntry): boolean {
  const before = previous.body as { type?: unknown; id?: unknown; toolCallId?: unknown };
  const body = entry.body as { type?: unknown; id?: unknown; toolCallId?: unknown };
  return (
    typeof body.type === "string" &&
    body.type.endsWith("-delta") &&
    body.type === before.type &&
    (body.id ?? body.toolCallId) === (before.id ?? before.toolCallId)
  );
}

/** The UTF-8 length of `text`. */
function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

function parseEntries(json: string): AgentToolLogEntry[] {
  return decodeLogEntries(json);
}

function bySequence(left: AgentToolLogEntry, right: AgentToolLogEntry): number {
  return left.sequence - right.sequence;
}
