import { hasAttention, type RunRecord, type RunStoreFilter } from "@agent-tools/core-runs/internal";

/**
 * The part of `ctx.storage` the store uses (a SQLite-backed Durable Object's storage satisfies it). Narrow on
 * purpose, so a test can wrap `sql` to count the rows each call writes.
 */
export type DurableObjectRunStoreStorage = {
  readonly sql: Pick<SqlStorage, "exec">;
  transactionSync<T>(closure: () => T): T;
};

/** The names of a run store's two tables. */
export type RunStoreTables = { readonly runs: string; readonly log: string };

/** A run as the store keeps it: the queried fields as columns, the rest of its `RunRecord` as JSON. */
export type RunRow = {
  run_id: string;
  status: string;
  revision: number;
  started_at: number;
  record: string;
  /** 1 when the record has `attention` (an owner has work left on the row), else null. */
  attention: number | null;
};

/**
 * Where a store keeps its runs' rows, and the statements that read and write them. The log's rows are the store's
 * own business; a layout only tells it which of the log table's rows are log rows (`LOG_ROWS`).
 */
export interface RunRows {
  /** `"table"`: a runs table of its own; `"log"`: rows of the log table (`runsInLog`). */
  readonly layout: "table" | "log";
  /** The run's row as the store keeps it (to write over it). */
  get(runId: string): RunRow | undefined;
  /** The run's record, read straight from its row (to hand out). */
  record(runId: string): RunRecord | undefined;
  /** Writes `row` unless its run exists (`undefined` then); says whether the run has log rows already. */
  insert(row: RunRow): { hasLog: boolean } | undefined;
  /** Writes `row` over `stored`, the same run's row as it is stored. */
  update(row: RunRow, stored: RunRow): void;
  list(filter: RunStoreFilter): RunRecord[];
  has(runId: string): boolean;
  /** Deletes the run's row and its log (one or two statements: the caller runs them in its transaction). */
  delete(runId: string): void;
}

/** A condition that keeps a log table's log rows only (not a run's row kept there: `runsInLog`). */
export const LOG_ROWS = "first_sequence >= 0";

/**
 * The key a run's row has in the log table when runs are kept there: below every log row's (sequences start at 1; a
 * compacted log's first row is keyed 0), so a run's rows are its own row, then its log in order.
 */
const RUN_ROW_KEY = -1;

/** The statuses of a live run (holding a slot, followed at start-up), as SQL literals: the live index's condition. */
export const LIVE_STATUSES = ["starting", "running"] as const;
const LIVE_STATUSES_SQL = LIVE_STATUSES.map((status) => `'${status}'`).join(", ");

/**
 * The store's tables, made if missing, and where its runs' rows are.
 *
 * - Runs in a table of their own (the default): the runs table (and, `indexed`, its indexes) and the log table, in one
 *   statement where it can: a Durable Object made for one run pays its schema once per object, so it is one `exec` of
 *   the `CREATE … IF NOT EXISTS` statements, whose last reads whether the runs table has the `attention` column and its
 *   index. WITHOUT ROWID keeps each row in its primary-key b-tree: an insert writes one row, not a row plus an index.
 * - `runsInLog`: the log table only, each run's row one of its rows (keyed `RUN_ROW_KEY`), for a store that holds a
 *   run or a few (a child's own ledger). An object's database is then one page (4 KiB) smaller, and its first run
 *   makes one table, not two. An object whose runs table exists (made by an earlier version, or by a store without
 *   `runsInLog`) keeps it: the store reads and writes its runs there.
 *
 * Idempotent, so a restarted object (a new instance over the same database) runs it again harmlessly.
 */
export function openRunRows(
  storage: DurableObjectRunStoreStorage,
  tables: RunStoreTables,
  options: { indexed: boolean; runsInLog: boolean },
): RunRows {
  if (options.runsInLog) {
    const found = storage.sql
      .exec<{ runs_table: number }>(
        `${logTableSql(tables.log)};
         SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${tables.runs}') AS runs_table`,
      )
      .one();
    if (!found.runs_table) return new LogRunRows(storage, tables.log);
  }
  createTables(storage, tables, options.indexed);
  return new TableRunRows(storage, tables);
}

function logTableSql(log: string): string {
  return `CREATE TABLE IF NOT EXISTS ${log} (
    run_id TEXT NOT NULL,
    first_sequence INTEGER NOT NULL,
    last_sequence INTEGER NOT NULL,
    entries TEXT NOT NULL,
    PRIMARY KEY (run_id, first_sequence)
  ) WITHOUT ROWID`;
}

function createTables(storage: DurableObjectRunStoreStorage, tables: RunStoreTables, indexed: boolean): void {
  const { runs, log } = tables;
  const indexes = indexed
    ? `CREATE INDEX IF NOT EXISTS ${runs}_position ON ${runs} (started_at, run_id);
       CREATE INDEX IF NOT EXISTS ${runs}_live ON ${runs} (started_at, run_id) WHERE status IN (${LIVE_STATUSES_SQL});`
    : "";
  const schema = storage.sql
    .exec<{ attention: number; attention_index: number }>(
      `CREATE TABLE IF NOT EXISTS ${runs} (
        run_id TEXT NOT NULL PRIMARY KEY,
        status TEXT NOT NULL,
        revision INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        record TEXT NOT NULL,
        attention INTEGER
      ) WITHOUT ROWID;
      ${logTableSql(log)};
      ${indexes}
      SELECT EXISTS (SELECT 1 FROM pragma_table_info('${runs}') WHERE name = 'attention') AS attention,
        EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '${runs}_attention') AS attention_index`,
    )
    .one();
  if (!schema.attention) addAttentionColumn(storage, runs);
  // After the column: a runs table of an earlier version gets it first.
  if (indexed && !schema.attention_index) {
    storage.sql.exec(
      `CREATE INDEX IF NOT EXISTS ${runs}_attention ON ${runs} (started_at, run_id) WHERE attention = 1`,
    );
  }
}

/**
 * A runs table created by an earlier version has no `attention` column: add it, and mark the finished rows an owner
 * may still have work on, as the owners would have (a pending `onAgentToolFinish` ledger: `finish`; a detached run,
 * whose delivery `@agent-tools/detached` keeps under its `detached` key: `detached`). Their owners look at them at the
 * next start-up and clear what is settled; once, since the column then exists.
 */
function addAttentionColumn(storage: DurableObjectRunStoreStorage, table: string): void {
  const sql = storage.sql;
  const finishPending = "coalesce(json_extract(record, '$.finishNotifiedRevision'), 0) < revision";
  const detached = "json_extract(record, '$.detached') = 1";
  storage.transactionSync(() => {
    sql.exec(`ALTER TABLE ${table} ADD COLUMN attention INTEGER`);
    sql.exec(
      `UPDATE ${table} SET attention = 1, record = json_set(record, '$.attention', json(CASE
         WHEN ${detached} AND ${finishPending} THEN '{"finish":true,"detached":true}'
         WHEN ${detached} THEN '{"detached":true}'
         ELSE '{"finish":true}' END))
       WHERE status NOT IN (${LIVE_STATUSES_SQL}) AND (${detached} OR ${finishPending})`,
    );
  });
}

/** The runs' rows in a table of their own: the queried fields as columns, indexed when the store is. */
class TableRunRows implements RunRows {
  readonly layout = "table";
  readonly #storage: DurableObjectRunStoreStorage;
  readonly #runs: string;
  readonly #log: string;

  constructor(storage: DurableObjectRunStoreStorage, tables: RunStoreTables) {
    this.#storage = storage;
    this.#runs = tables.runs;
    this.#log = tables.log;
  }

  get(runId: string): RunRow | undefined {
    return this.#storage.sql.exec<RunRow>(`SELECT * FROM ${this.#runs} WHERE run_id = ?`, runId).toArray()[0];
  }

  record(runId: string): RunRecord | undefined {
    const row = this.get(runId);
    return row === undefined ? undefined : fromRunRow(row);
  }

  insert(row: RunRow): { hasLog: boolean } | undefined {
    // The same statement says whether the run has a log already (a new run has none, unless it was appended to
    // before its row was written): the first append of a new run then reads nothing.
    const created = this.#storage.sql
      .exec<{ has_log: number }>(
        `INSERT INTO ${this.#runs} (run_id, status, revision, started_at, record, attention)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING
         RETURNING EXISTS (SELECT 1 FROM ${this.#log} WHERE run_id = ?) AS has_log`,
        row.run_id,
        row.status,
        row.revision,
        row.started_at,
        row.record,
        row.attention,
        row.run_id,
      )
      .toArray()[0];
    return created === undefined ? undefined : { hasLog: created.has_log === 1 };
  }

  update(row: RunRow, stored: RunRow): void {
    // Only the indexed columns that change are set: SQLite rewrites an index entry whenever its columns are set.
    const changed: Array<[column: string, value: unknown]> = [];
    if (row.status !== stored.status) changed.push(["status", row.status]);
    if (row.started_at !== stored.started_at) changed.push(["started_at", row.started_at]);
    if (row.attention !== stored.attention) changed.push(["attention", row.attention]);
    this.#storage.sql.exec(
      `UPDATE ${this.#runs} SET revision = ?, record = ?${changed.map(([column]) => `, ${column} = ?`).join("")}
       WHERE run_id = ?`,
      row.revision,
      row.record,
      ...changed.map(([, value]) => value),
      row.run_id,
    );
  }

  list(filter: RunStoreFilter): RunRecord[] {
    const { conditions, bindings } = listConditions(filter, this.#log, { status: "status", startedAt: "started_at" });
    if (filter.attention === true) conditions.push("attention = 1");
    const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
    return this.#storage.sql
      .exec<RunRow>(`SELECT * FROM ${this.#runs} AS runs ${where} ${listOrder(filter, "started_at")}`, ...bindings)
      .toArray()
      .map(fromRunRow);
  }

  has(runId: string): boolean {
    return this.#storage.sql.exec(`SELECT 1 FROM ${this.#runs} WHERE run_id = ?`, runId).toArray().length > 0;
  }

  delete(runId: string): void {
    this.#storage.sql.exec(`DELETE FROM ${this.#runs} WHERE run_id = ?`, runId);
    this.#storage.sql.exec(`DELETE FROM ${this.#log} WHERE run_id = ?`, runId);
  }
}

/**
 * The runs' rows kept in the log table (`runsInLog`), keyed `RUN_ROW_KEY`: `last_sequence` holds the revision and
 * `entries` the record's JSON with its status and start (`runId` is the key). What the store queries is read with
 * `json_extract`: a store laid out so holds a run or a few.
 */
class LogRunRows implements RunRows {
  readonly layout = "log";
  readonly #storage: DurableObjectRunStoreStorage;
  readonly #log: string;

  constructor(storage: DurableObjectRunStoreStorage, log: string) {
    this.#storage = storage;
    this.#log = log;
  }

  get(runId: string): RunRow | undefined {
    const record = this.record(runId);
    return record === undefined ? undefined : toRunRow(record);
  }

  record(runId: string): RunRecord | undefined {
    const row = this.#storage.sql
      .exec<InlineRow>(
        `SELECT run_id, last_sequence, entries FROM ${this.#log} WHERE run_id = ? AND first_sequence = ${RUN_ROW_KEY}`,
        runId,
      )
      .toArray()[0];
    return row === undefined ? undefined : fromInlineRow(row);
  }

  insert(row: RunRow): { hasLog: boolean } | undefined {
    const created = this.#storage.sql
      .exec<{ has_log: number }>(
        `INSERT INTO ${this.#log} (run_id, first_sequence, last_sequence, entries)
         VALUES (?, ${RUN_ROW_KEY}, ?, ?) ON CONFLICT (run_id, first_sequence) DO NOTHING
         RETURNING EXISTS (SELECT 1 FROM ${this.#log} WHERE run_id = ? AND ${LOG_ROWS}) AS has_log`,
        row.run_id,
        row.revision,
        inlineEntries(row),
        row.run_id,
      )
      .toArray()[0];
    return created === undefined ? undefined : { hasLog: created.has_log === 1 };
  }

  update(row: RunRow): void {
    this.#storage.sql.exec(
      `UPDATE ${this.#log} SET last_sequence = ?, entries = ? WHERE run_id = ? AND first_sequence = ${RUN_ROW_KEY}`,
      row.revision,
      inlineEntries(row),
      row.run_id,
    );
  }

  list(filter: RunStoreFilter): RunRecord[] {
    const status = "json_extract(runs.entries, '$.status')";
    const startedAt = "json_extract(runs.entries, '$.startedAt')";
    const { conditions, bindings } = listConditions(filter, this.#log, { status, startedAt });
    conditions.unshift(`runs.first_sequence = ${RUN_ROW_KEY}`);
    // A record keeps `attention` only while it has a key (`applyRunPatch` drops an empty one), as `hasAttention` reads.
    if (filter.attention === true) conditions.push("json_extract(runs.entries, '$.attention') NOT IN ('{}')");
    return this.#storage.sql
      .exec<InlineRow>(
        `SELECT run_id, last_sequence, entries FROM ${this.#log} AS runs WHERE ${conditions.join(" AND ")}
         ${listOrder(filter, startedAt)}`,
        ...bindings,
      )
      .toArray()
      .map(fromInlineRow);
  }

  has(runId: string): boolean {
    return (
      this.#storage.sql
        .exec(`SELECT 1 FROM ${this.#log} WHERE run_id = ? AND first_sequence = ${RUN_ROW_KEY}`, runId)
        .toArray().length > 0
    );
  }

  delete(runId: string): void {
    this.#storage.sql.exec(`DELETE FROM ${this.#log} WHERE run_id = ?`, runId);
  }
}

type InlineRow = { run_id: string; last_sequence: number; entries: string };

/** A run's row as the log table keeps it: the record's JSON, its status and start first (the rest has neither). */
function inlineEntries(row: RunRow): string {
  const head = `{"status":${JSON.stringify(row.status)},"startedAt":${JSON.stringify(row.started_at)}`;
  return row.record === "{}" ? `${head}}` : `${head},${row.record.slice(1)}`;
}

function fromInlineRow(row: InlineRow): RunRecord {
  const record = JSON.parse(row.entries) as RunRecord;
  record.runId = row.run_id;
  record.revision = row.last_sequence;
  return record;
}

/**
 * What a list asks of both layouts: its position (`before` / `from`, as row values on `(started_at, run_id)`: one
 * index range each), its statuses and its log's state. `columns` says how each layout reads a run's status and start.
 */
function listConditions(
  filter: RunStoreFilter,
  log: string,
  columns: { status: string; startedAt: string },
): { conditions: string[]; bindings: unknown[] } {
  const conditions: string[] = [];
  const bindings: unknown[] = [];
  if (filter.before) {
    conditions.push(`(${columns.startedAt}, runs.run_id) < (?, ?)`);
    bindings.push(filter.before.startedAt, filter.before.runId);
  }
  if (filter.from) {
    conditions.push(`(${columns.startedAt}, runs.run_id) >= (?, ?)`);
    bindings.push(filter.from.startedAt, filter.from.runId);
  }
  // No filter and an empty status list both mean "every row" (the port's contract). The live statuses are written
  // out, so SQLite answers them from the live rows' index alone.
  const statuses = [...new Set(filter.status ?? [])];
  if (isLiveStatusSet(statuses)) conditions.push(`${columns.status} IN (${LIVE_STATUSES_SQL})`);
  else if (statuses.length > 0) {
    conditions.push(`${columns.status} IN (${statuses.map(() => "?").join(", ")})`);
    bindings.push(...statuses);
  }
  // A compacted log is marked by its first row's key, first_sequence 0 (sequences start at 1): two key lookups.
  const compacted = `EXISTS (SELECT 1 FROM ${log} AS log_rows WHERE log_rows.run_id = runs.run_id AND log_rows.first_sequence = 0)`;
  if (filter.log === "compacted") conditions.push(compacted);
  if (filter.log === "full") {
    conditions.push(
      `EXISTS (SELECT 1 FROM ${log} AS log_rows WHERE log_rows.run_id = runs.run_id AND log_rows.${LOG_ROWS}) AND NOT ${compacted}`,
    );
  }
  return { conditions, bindings };
}

function listOrder(filter: RunStoreFilter, startedAt: string): string {
  const direction = filter.order === "desc" ? "DESC" : "ASC";
  const limit = filter.limit === undefined ? "" : `LIMIT ${Math.max(0, Math.floor(filter.limit))}`;
  return `ORDER BY ${startedAt} ${direction}, runs.run_id ${direction} ${limit}`;
}

function isLiveStatusSet(statuses: readonly string[]): boolean {
  return statuses.length === LIVE_STATUSES.length && LIVE_STATUSES.every((status) => statuses.includes(status));
}

/**
 * A record as its row: the queried fields as columns, the rest as the JSON of `record`. The rest is copied key by key
 * (no rest pattern): the copy stays a fast object, so its `JSON.stringify` is too.
 */
export function toRunRow(record: RunRecord): RunRow {
  const rest: Record<string, unknown> = {};
  const fields = record as Record<string, unknown>;
  for (const key in fields) {
    if (!hasOwn.call(fields, key) || COLUMN_FIELDS.has(key)) continue;
    if (key === "__proto__") Object.defineProperty(rest, key, { value: fields[key], enumerable: true });
    else rest[key] = fields[key];
  }
  const attention = hasAttention(record) ? 1 : null;
  return {
    run_id: record.runId,
    status: record.status,
    revision: record.revision,
    started_at: record.startedAt,
    record: JSON.stringify(rest),
    attention,
  };
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The fields of a `RunRecord` stored as columns of their own (not in the `record` JSON). */
const COLUMN_FIELDS: ReadonlySet<string> = new Set(["runId", "status", "revision", "startedAt"]);

/** A row as its record: the JSON's fields, then the columns (set on the parsed object itself: no copy). */
export function fromRunRow(row: RunRow): RunRecord {
  const record = JSON.parse(row.record) as RunRecord;
  record.runId = row.run_id;
  record.status = row.status as RunRecord["status"];
  record.revision = row.revision;
  record.startedAt = row.started_at;
  return record;
}
