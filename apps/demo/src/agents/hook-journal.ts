/** The part of `ctx.storage` the journal uses. */
type JournalStorage = { readonly sql: Pick<SqlStorage, "exec"> };

/** How many times each lifecycle hook was called for one run (`finish` per result status). */
export type HookCounts = { runId: string; start: number; finish: Record<string, number> };

/**
 * The Assistant's record of its registry hooks: each `onAgentToolStart` / `onAgentToolFinish` call is counted in
 * storage, so the count survives a restart. The page can show it, and the fault tests check "exactly once without
 * a crash, at least once across one".
 */
export class HookJournal {
  readonly #storage: JournalStorage;

  constructor(storage: JournalStorage) {
    this.#storage = storage;
    storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS demo_hook_calls (run_id TEXT NOT NULL, hook TEXT NOT NULL, calls INTEGER NOT NULL, PRIMARY KEY (run_id, hook))",
    );
  }

  /** Count one call of `hook` (`start`, or `finish:<status>`) for `runId`. */
  count(runId: string, hook: string): void {
    this.#storage.sql.exec(
      "INSERT INTO demo_hook_calls (run_id, hook, calls) VALUES (?, ?, 1) ON CONFLICT (run_id, hook) DO UPDATE SET calls = calls + 1",
      runId,
      hook,
    );
  }

  /** Every run's counts, in no particular order. */
  list(): HookCounts[] {
    const rows = this.#storage.sql
      .exec<{ run_id: string; hook: string; calls: number }>("SELECT run_id, hook, calls FROM demo_hook_calls")
      .toArray();
    const byRun = new Map<string, HookCounts>();
    for (const row of rows) {
      const counts = byRun.get(row.run_id) ?? { runId: row.run_id, start: 0, finish: {} };
      if (row.hook === "start") counts.start = row.calls;
      else counts.finish[row.hook.slice("finish:".length)] = row.calls;
      byRun.set(row.run_id, counts);
    }
    return [...byRun.values()];
  }
}
