/**
 * Counts what a Durable Object's SQLite does: every cursor that `ctx.storage.sql.exec` returns is kept, and
 * `rowsWritten` / `rowsRead` are summed when read (a cursor's counters are final once it is drained). Install it
 * in the constructor, before anything runs SQL, so schema work is counted too. Framework-neutral.
 */
export type SqlMeterReading = {
  rowsWritten: number;
  rowsRead: number;
  statements: number;
  /** Rows written per statement (whitespace collapsed, first 72 characters), largest first. */
  writers: Record<string, number>;
  /** Rows read per statement (the same keys), largest first. */
  readers: Record<string, number>;
  /** The first statements since the last reset, in order: their first 60 characters, rows written and read. */
  trace: Array<[statement: string, written: number, read: number]>;
};

export type SqlMeter = {
  /** True when the wrapper is in place (every exec goes through it). */
  readonly installed: boolean;
  reset(): void;
  read(): SqlMeterReading;
};

type Sql = DurableObjectStorage["sql"];

export function installSqlMeter(storage: DurableObjectStorage): SqlMeter {
  const sql = storage.sql;
  const original = sql.exec.bind(sql);
  // Cursors are read once their statement is done: at the end of the task that ran it (code drains a cursor where it
  // runs it: `toArray`, `one`, a loop), then only the sums are kept. Keeping every cursor would hold each object's
  // every statement (and its native state) in the heap that the fan-out workload measures.
  let open: { query: string; cursor: { rowsWritten: number; rowsRead: number } }[] = [];
  let totals = emptyTotals();
  const fold = () => {
    for (const { query, cursor } of open) totals.add(query, cursor.rowsWritten, cursor.rowsRead);
    open = [];
  };
  const metered = ((query: string, ...bindings: unknown[]) => {
    const cursor = original(query, ...bindings);
    if (open.length === 0) queueMicrotask(fold);
    open.push({ query, cursor });
    return cursor;
  }) as Sql["exec"];
  let installed = false;
  try {
    (sql as { exec: Sql["exec"] }).exec = metered;
    installed = storage.sql.exec === metered;
  } catch {
    installed = false;
  }
  return {
    installed,
    reset() {
      open = [];
      totals = emptyTotals();
    },
    read() {
      fold();
      const byKey = (map: Map<string, number>) => {
        const keyed = new Map<string, number>();
        for (const [query, rows] of map) {
          const key = query.replace(/\s+/g, " ").trim().slice(0, 72);
          keyed.set(key, (keyed.get(key) ?? 0) + rows);
        }
        return Object.fromEntries([...keyed].sort((a, b) => b[1] - a[1]));
      };
      return {
        rowsWritten: totals.rowsWritten,
        rowsRead: totals.rowsRead,
        statements: totals.statements,
        writers: byKey(totals.written),
        readers: byKey(totals.read),
        trace: totals.trace.map(([query, written, read]): [string, number, number] => [
          query.replace(/\s+/g, " ").trim().slice(0, 60),
          written,
          read,
        ]),
      };
    },
  };
}

/** How many statements the trace keeps (a W5 run's; the fan-out's thousands are only summed). */
const TRACE_LENGTH = 200;

/**
 * The meter's sums: rows and statements, and rows per statement text (keyed as run; collapsed when read), and the
 * first statements in order.
 */
function emptyTotals() {
  const totals = {
    rowsWritten: 0,
    rowsRead: 0,
    statements: 0,
    written: new Map<string, number>(),
    read: new Map<string, number>(),
    trace: [] as Array<[query: string, written: number, read: number]>,
    add(query: string, rowsWritten: number, rowsRead: number) {
      if (totals.trace.length < TRACE_LENGTH) totals.trace.push([query, rowsWritten, rowsRead]);
      totals.rowsWritten += rowsWritten;
      totals.rowsRead += rowsRead;
      totals.statements += 1;
      if (rowsWritten > 0) totals.written.set(query, (totals.written.get(query) ?? 0) + rowsWritten);
      if (rowsRead > 0) totals.read.set(query, (totals.read.get(query) ?? 0) + rowsRead);
    },
  };
  return totals;
}

export type StorageProbe = {
  databaseSize: number;
  meter: SqlMeterReading;
  meterInstalled: boolean;
  /** Rows of every non-empty user table. */
  tableRows: Record<string, number>;
};

/** Size, metered counters and per-table row counts of one object's database. */
export function probeStorage(storage: DurableObjectStorage, meter: SqlMeter): StorageProbe {
  const meterReading = meter.read();
  const tableRows: Record<string, number> = {};
  const tables = storage.sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .toArray()
    .map(({ name }) => name)
    .filter((name) => !name.startsWith("sqlite_") && !name.startsWith("_cf_"));
  for (const name of tables) {
    try {
      const { n } = storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).one();
      if (n > 0) tableRows[name] = n;
    } catch {
      // a table we may not read: left out
    }
  }
  return { databaseSize: storage.sql.databaseSize, meter: meterReading, meterInstalled: meter.installed, tableRows };
}
