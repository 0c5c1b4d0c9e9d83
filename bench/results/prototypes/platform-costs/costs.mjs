// Throwaway Worker of issue 33's ninth session (bench/README.md): what a run's fixed costs are in workerd. One Parent,
// a new Child per run unless said; each variant's name says its experiment.
//
// A child's storage on its first run (a new object each):
// - `layout-none`: no storage (the platform's new object and RPC); `layout-one`: one table, one row (the raw pipe);
// - `layout-two`: the run store's two tables and the three statements of a run that ends in its first transaction
//   (run row, log row, the run row again); `layout-two-once`: the same without the run row's second write;
// - `layout-single`: the run's row kept as a row of the log table (one table, the same three statements).
// A parent's write just before its RPC to a child already made (the output gate holds the RPC until it commits):
// - `write-none`; `write-indexed` (a run row, the registry's two indexes); `write-plain` (no index);
//   `write-select-insert` (a read of the row first).
// Warming a new child while the parent's run row commits:
// - `warm-sequential` (the row, the run's RPC, the row's update); `warm-fired` (a first RPC that only makes the
//   child's tables, sent before the row, not awaited); `warm-awaited` (the same, awaited); `warm-no-write` and
//   `warm-insert-only` (the parent's writes left out, or its update after the run).
import { DurableObject } from "cloudflare:workers";

const RUNS = `CREATE TABLE IF NOT EXISTS agent_tool_runs (run_id TEXT NOT NULL PRIMARY KEY, status TEXT NOT NULL,
  revision INTEGER NOT NULL, started_at INTEGER NOT NULL, record TEXT NOT NULL, attention INTEGER) WITHOUT ROWID;`;
const LOG = `CREATE TABLE IF NOT EXISTS agent_tool_log (run_id TEXT NOT NULL, first_sequence INTEGER NOT NULL,
  last_sequence INTEGER NOT NULL, entries TEXT NOT NULL, PRIMARY KEY (run_id, first_sequence)) WITHOUT ROWID;`;
const CHECK = `SELECT EXISTS (SELECT 1 FROM pragma_table_info('agent_tool_runs') WHERE name = 'attention') AS attention,
  EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'agent_tool_runs_attention') AS attention_index`;
const ENTRIES = `[${"0123456789".repeat(10)}]`;
const COLUMNS = `(run_id TEXT NOT NULL PRIMARY KEY, status TEXT NOT NULL, revision INTEGER NOT NULL,
  started_at INTEGER NOT NULL, record TEXT NOT NULL, attention INTEGER) WITHOUT ROWID`;
const PARENT_SCHEMA = `CREATE TABLE IF NOT EXISTS runs ${COLUMNS};
  CREATE INDEX IF NOT EXISTS runs_position ON runs (started_at, run_id);
  CREATE INDEX IF NOT EXISTS runs_live ON runs (started_at, run_id) WHERE status IN ('starting', 'running');
  CREATE TABLE IF NOT EXISTS plain ${COLUMNS};`;
const RECORD = JSON.stringify({ agentType: "bench", input: { prompt: "x".repeat(40) }, parentToolCallId: "call_1" });

export class Child extends DurableObject {
  #tables = false;

  /** A first run's storage, by layout (`layout-*`). */
  layout(variant) {
    const sql = this.ctx.storage.sql;
    const runRow = () =>
      sql
        .exec(`INSERT INTO agent_tool_runs VALUES ('a', 'running', 1, 1, '{}', NULL) ON CONFLICT (run_id) DO NOTHING
          RETURNING EXISTS (SELECT 1 FROM agent_tool_log WHERE run_id = 'a') AS has_log`)
        .toArray();
    const logRow = () => sql.exec("INSERT INTO agent_tool_log VALUES ('a', 1, 10, ?)", ENTRIES);
    if (variant === "layout-none") return { size: 0 };
    if (variant === "layout-one") {
      sql.exec(RUNS);
      sql.exec("INSERT INTO agent_tool_runs VALUES ('a', 'running', 1, 1, '{}', NULL)");
    }
    if (variant === "layout-two" || variant === "layout-two-once") {
      sql.exec(RUNS + LOG + CHECK).one();
      runRow();
      logRow();
      if (variant === "layout-two") {
        sql.exec("UPDATE agent_tool_runs SET revision = 2, record = '{}', status = 'completed' WHERE run_id = 'a'");
      }
    }
    if (variant === "layout-single") {
      sql.exec(LOG);
      sql.exec("INSERT INTO agent_tool_log VALUES ('a', -1, -1, '{}') ON CONFLICT DO NOTHING");
      logRow();
      sql.exec(
        `UPDATE agent_tool_log SET entries = '{"status":"completed"}' WHERE run_id = 'a' AND first_sequence = -1`,
      );
    }
    return { size: sql.databaseSize };
  }

  /** Only the run store's tables (`warm-*`). */
  warm() {
    if (!this.#tables) this.ctx.storage.sql.exec(RUNS + LOG);
    this.#tables = true;
    return {};
  }

  /** A run in the two tables (`warm-*`). */
  run() {
    this.warm();
    const sql = this.ctx.storage.sql;
    sql.exec("INSERT INTO agent_tool_runs VALUES ('a', 'running', 1, 1, '{}', NULL) ON CONFLICT DO NOTHING");
    sql.exec("INSERT INTO agent_tool_log VALUES ('a', 1, 10, ?)", ENTRIES);
    sql.exec("UPDATE agent_tool_runs SET revision = 2, record = '{}', status = 'completed' WHERE run_id = 'a'");
    return {};
  }

  /** Nothing (`write-*`: the parent's write is what is measured). */
  noop() {
    return {};
  }
}

export class Parent extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec(PARENT_SCHEMA);
  }

  async go(prefix, variant, n) {
    const sql = this.ctx.storage.sql;
    const reused = this.env.Child.get(this.env.Child.idFromName("reused"));
    await reused.noop();
    const started = Date.now();
    let size;
    for (let index = 0; index < n; index += 1) {
      const id = `${prefix}-${variant}-${index}`;
      const child = this.env.Child.get(this.env.Child.idFromName(id));
      if (variant.startsWith("layout-")) ({ size } = await child.layout(variant));
      if (variant.startsWith("write-")) {
        if (variant === "write-select-insert") sql.exec("SELECT * FROM runs WHERE run_id = ?", id).toArray();
        if (variant === "write-indexed" || variant === "write-select-insert") {
          sql.exec("INSERT INTO runs VALUES (?, 'running', 1, ?, ?, NULL)", id, index, RECORD);
        }
        if (variant === "write-plain")
          sql.exec("INSERT INTO plain VALUES (?, 'running', 1, ?, ?, NULL)", id, index, RECORD);
        await reused.noop();
      }
      if (variant.startsWith("warm-")) {
        if (variant === "warm-fired") child.warm().catch(() => undefined);
        if (variant === "warm-awaited") await child.warm();
        const writes = variant !== "warm-no-write";
        if (writes) sql.exec("INSERT INTO runs VALUES (?, 'running', 1, ?, ?, NULL)", id, index, RECORD);
        await child.run();
        if (writes && variant !== "warm-insert-only") {
          sql.exec("UPDATE runs SET status = 'completed', revision = 2 WHERE run_id = ?", id);
        }
      }
    }
    return { ms: (Date.now() - started) / n, size };
  }
}

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const parent = env.Parent.get(env.Parent.idFromName("p"));
    const { searchParams } = url;
    return Response.json(
      await parent.go(searchParams.get("prefix"), searchParams.get("v"), Number(searchParams.get("n"))),
    );
  },
};
