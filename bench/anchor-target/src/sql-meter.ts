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
  /** Every statement in order: its first 60 characters, rows written and read. */
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
  let seen: { query: string; cursor: { rowsWritten: number; rowsRead: number } }[] = [];
  const metered = ((query: string, ...bindings: unknown[]) => {
    const cursor = original(query, ...bindings);
    seen.push({ query, cursor });
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
      seen = [];
    },
    read() {
      let rowsWritten = 0;
      let rowsRead = 0;
      const written = new Map<string, number>();
      const read = new Map<string, number>();
      const add = (map: Map<string, number>, query: string, rows: number) => {
        if (rows === 0) return;
        const key = query.replace(/\s+/g, " ").trim().slice(0, 72);
        map.set(key, (map.get(key) ?? 0) + rows);
      };
      for (const { query, cursor } of seen) {
        rowsWritten += cursor.rowsWritten;
        rowsRead += cursor.rowsRead;
        add(written, query, cursor.rowsWritten);
        add(read, query, cursor.rowsRead);
      }
      const trace = seen.map(({ query, cursor }): [string, number, number] => [
        query.replace(/\s+/g, " ").trim().slice(0, 60),
        cursor.rowsWritten,
        cursor.rowsRead,
      ]);
      const largestFirst = (map: Map<string, number>) => Object.fromEntries([...map].sort((a, b) => b[1] - a[1]));
      return {
        rowsWritten,
        rowsRead,
        statements: seen.length,
        writers: largestFirst(written),
        readers: largestFirst(read),
        trace,
      };
    },
  };
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
