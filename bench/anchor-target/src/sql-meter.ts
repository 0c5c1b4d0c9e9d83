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

/** A statement run: its text, rows written and read. */
type Statement = [query: string, written: number, read: number];

export function installSqlMeter(storage: DurableObjectStorage): SqlMeter {
  return new MeteredSql(storage);
}

/** How many statements the trace keeps (a W5 run's; the fan-out's thousands are only summed). */
const TRACE_LENGTH = 200;

/**
 * The meter: `sql.exec` replaced by a bound method (no closure per object). Cursors are read once their statement is
 * done: at the end of the task that ran it (code drains a cursor where it runs it: `toArray`, `one`, a loop), then only
 * the sums are kept, and the first statements, flat in one array (the per-statement figures are read from them; a map
 * is made only past `TRACE_LENGTH` statements). An object's meter holds little: the fan-out measures a thousand of
 * them in its heap.
 */
class MeteredSql implements SqlMeter {
  readonly installed: boolean;
  readonly #sql: Sql;
  /** `exec` as the storage has it (its prototype's: one function for every object). */
  readonly #original: Sql["exec"];
  /** The cursors of the statements run in the current task, folded into the sums at its end. */
  #open: Array<{ query: string; cursor: { rowsWritten: number; rowsRead: number } }> | null = null;
  #rowsWritten = 0;
  #rowsRead = 0;
  #statements = 0;
  /** The first `TRACE_LENGTH` statements: their text, rows written and read, one after another. */
  #trace: Array<string | number> | null = null;
  /** Rows per statement past the trace's first `TRACE_LENGTH` statements. */
  #later: Map<string, [written: number, read: number]> | null = null;

  constructor(storage: DurableObjectStorage) {
    const sql = storage.sql;
    this.#sql = sql;
    this.#original = sql.exec;
    const metered = this.#exec.bind(this) as Sql["exec"];
    let installed = false;
    try {
      (sql as { exec: Sql["exec"] }).exec = metered;
      installed = storage.sql.exec === metered;
    } catch {
      installed = false;
    }
    this.installed = installed;
  }

  #exec(query: string, ...bindings: unknown[]) {
    const cursor = this.#original.call(this.#sql, query, ...bindings);
    if (this.#open === null) {
      this.#open = [];
      queueMicrotask(() => this.#fold());
    }
    this.#open.push({ query, cursor });
    return cursor;
  }

  #fold(): void {
    const open = this.#open ?? [];
    this.#open = null;
    for (const { query, cursor } of open) this.#add(query, cursor.rowsWritten, cursor.rowsRead);
  }

  #add(query: string, written: number, read: number): void {
    this.#rowsWritten += written;
    this.#rowsRead += read;
    this.#statements += 1;
    this.#trace ??= [];
    if (this.#trace.length < 3 * TRACE_LENGTH) {
      this.#trace.push(query, written, read);
      return;
    }
    if (written === 0 && read === 0) return;
    this.#later ??= new Map();
    const rows = this.#later.get(query) ?? [0, 0];
    rows[0] += written;
    rows[1] += read;
    this.#later.set(query, rows);
  }

  reset(): void {
    this.#open = null;
    this.#rowsWritten = 0;
    this.#rowsRead = 0;
    this.#statements = 0;
    this.#trace = null;
    this.#later = null;
  }

  read(): SqlMeterReading {
    this.#fold();
    const flat = this.#trace ?? [];
    const trace: Statement[] = [];
    for (let index = 0; index < flat.length; index += 3) {
      trace.push([flat[index] as string, flat[index + 1] as number, flat[index + 2] as number]);
    }
    const statements: Statement[] = [
      ...trace,
      ...[...(this.#later ?? [])].map(([query, [w, r]]): Statement => [query, w, r]),
    ];
    const byKey = (column: 1 | 2) => {
      const keyed = new Map<string, number>();
      for (const statement of statements) {
        const rows = statement[column];
        if (rows === 0) continue;
        const key = statement[0].replace(/\s+/g, " ").trim().slice(0, 72);
        keyed.set(key, (keyed.get(key) ?? 0) + rows);
      }
      return Object.fromEntries([...keyed].sort((a, b) => b[1] - a[1]));
    };
    return {
      rowsWritten: this.#rowsWritten,
      rowsRead: this.#rowsRead,
      statements: this.#statements,
      writers: byKey(1),
      readers: byKey(2),
      trace: trace.map(
        ([query, written, read]): Statement => [query.replace(/\s+/g, " ").trim().slice(0, 60), written, read],
      ),
    };
  }
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
