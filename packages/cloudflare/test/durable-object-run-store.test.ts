import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import type { AgentToolLogEntry } from "@agent-tools/core-runs/protocol";
import { makeLogEntry, makeRunRecord } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import {
  CONTRACT_WORKER_DURABLE_OBJECTS,
  type CountedCall,
  type LogWriteCount,
  type RunsInLogState,
  type SchedulerState,
  type SchemaCount,
} from "./fixtures/contract-worker-api.js";
import { workerPerFile } from "./worker-per-file.js";

// The RunStore contract runs in contract-suites.test.ts.
const CONTRACT_WORKER = fileURLToPath(new URL("./fixtures/contract-worker.ts", import.meta.url));
const HOUR = 3_600_000;

const worker = workerPerFile(CONTRACT_WORKER, CONTRACT_WORKER_DURABLE_OBJECTS);

/** A Durable Object name no other test uses, so its storage starts empty. */
function freshObject(label: string): string {
  return `${label}-${randomUUID()}`;
}

async function callStore<TResult>(object: string, method: string, ...args: unknown[]): Promise<TResult> {
  const { result } = await worker().fetchJson<{ result: TResult }>(`/store/call?object=${encodeURIComponent(object)}`, {
    body: { method, args },
  });
  return result;
}

function entries(from: number, to: number): AgentToolLogEntry[] {
  return Array.from({ length: to - from + 1 }, (_, index) => makeLogEntry(from + index));
}

describe("DurableObjectRunStore storage", () => {
  const appendCounted = (object: string, batch: AgentToolLogEntry[], runId = "run-1") =>
    worker().fetchJson<LogWriteCount>(`/store/append-counted?object=${object}`, { body: { runId, entries: batch } });

  it("writes 100 entries in rows of under a kilobyte, and nothing for a re-append of them", async () => {
    const object = freshObject("rows");
    const first = await appendCounted(object, entries(1, 100));
    // The compact encoding: 100 entries of ~70 bytes of JSON each take about 900 bytes, in rows SQLite keeps inline.
    expect(first.logBytes).toBeLessThan(JSON.stringify(entries(1, 100)).length / 5);
    expect(first.logRows).toBe(2);
    expect(first.rowsWritten).toBe(2);
    expect(await appendCounted(object, entries(1, 100))).toEqual({ ...first, rowsWritten: 0 });
    // Overlapping the stored rows: only 101..110 are new, in one more row (the last one is full).
    expect(await appendCounted(object, entries(95, 110))).toMatchObject({ logRows: 3, rowsWritten: 1 });
    expect(await callStore(object, "readLog", "run-1")).toEqual(entries(1, 110));
    expect(await callStore(object, "readLog", "run-1", { afterSequence: 98, limit: 4 })).toEqual(entries(99, 102));
  });

  it("keeps a row under its size cap when text deltas carry fields of their own (measured by their JSON)", async () => {
    const object = freshObject("fields");
    // Deltas of one part: a row is filled by their texts, but one with a field of its own is as large as its JSON.
    const providerMetadata = { test: { note: "m".repeat(400_000) } };
    const withMetadata = (sequence: number): AgentToolLogEntry => ({
      ...makeLogEntry(sequence),
      body: { type: "text-delta", id: "text-1", delta: `chunk ${sequence}`, providerMetadata },
    });
    const batch = [makeLogEntry(1), withMetadata(2), withMetadata(3)];
    expect(await appendCounted(object, batch)).toMatchObject({ logRows: 2, rowsWritten: 2 });
    expect(await callStore(object, "readLog", "run-1")).toEqual(batch);
  });

  it("fills its last row with small appends instead of a row per append", async () => {
    const object = freshObject("paced");
    // A stream paced by the network: the runner writes one or two entries at a time.
    let written = 0;
    let last: LogWriteCount | undefined;
    for (let sequence = 1; sequence <= 200; sequence += 2) {
      last = await appendCounted(object, entries(sequence, sequence + 1));
      written += last.rowsWritten;
    }
    // One row written per append (the last row rewritten), and one more each time a row is full.
    expect(last?.logRows).toBeLessThanOrEqual(3);
    expect(written).toBeLessThanOrEqual(100 + (last?.logRows ?? 0));
    expect(last?.logBytes).toBeLessThan(2_700);
    expect(await callStore(object, "readLog", "run-1")).toEqual(entries(1, 200));
    expect(await callStore(object, "readLog", "run-1", { afterSequence: 150, limit: 3 })).toEqual(entries(151, 153));
  });

  it("reads the log rows it wrote before the compact encoding, and appends after them", async () => {
    const object = freshObject("upgraded");
    await worker().fetchJson(`/store/legacy-log?object=${object}`, {
      body: { runId: "run-1", entries: entries(1, 5) },
    });
    expect(await callStore(object, "readLog", "run-1")).toEqual(entries(1, 5));
    // Re-appending what the old row holds writes nothing; the new entries go in a row of the new form.
    expect(await appendCounted(object, entries(4, 8))).toMatchObject({ logRows: 2, rowsWritten: 1 });
    expect(await callStore(object, "readLog", "run-1")).toEqual(entries(1, 8));
    expect(await callStore(object, "readLog", "run-1", { afterSequence: 3, limit: 3 })).toEqual(entries(4, 6));
  });

  it("compacts a log that stays as it is by marking its first row, leaving the others where they are", async () => {
    const object = freshObject("marked");
    const rows = () =>
      worker().fetchJson<Array<{ first: number; last: number; bytes: number }>>(
        `/store/log-rows?object=${object}&runId=run-1`,
      );
    await callStore(object, "insertRun", makeRunRecord({ status: "completed" }));
    await appendCounted(object, entries(1, 1));
    await appendCounted(object, entries(2, 100));
    const before = await rows();
    expect(before.length).toBeGreaterThan(1);
    expect(await callStore(object, "compactLog", "run-1", entries(1, 100))).toBe(true);
    const after = await rows();
    expect(after[0]).toEqual({ ...before[0], first: 0, last: 100 });
    expect(after.slice(1)).toEqual(before.slice(1));
    expect(await callStore(object, "readLog", "run-1")).toEqual(entries(1, 100));
    expect(await callStore<RunRecord[]>(object, "listRuns", { log: "compacted" })).toHaveLength(1);
  });

  it("reads a live run's row and its log's last row from what it wrote: a run costs its writes and one read", async () => {
    const object = freshObject("kept");
    const live = makeRunRecord({ runId: "run-k", status: "starting", input: { big: "x".repeat(50) } });
    const run = async (calls: Array<{ method: string; args: unknown[] }>) =>
      (await worker().fetchJson<CountedCall[]>(`/store/calls-counted?object=${object}`, { body: { calls } })).map(
        ({ method, statements }) => `${method}: ${statements.join(" ")}`,
      );
    // The registry's calls for one run: admission reads (nothing yet), inserts, reads; the position writer appends
    // twice (the first reads no log: the insert said the run has none); the terminal reads and writes conditionally.
    expect(
      await run([
        { method: "getRun", args: ["run-k"] },
        { method: "insertRun", args: [live] },
        { method: "getRun", args: ["run-k"] },
        { method: "appendLog", args: ["run-k", entries(1, 3)] },
        { method: "appendLog", args: ["run-k", entries(4, 100)] },
        { method: "getRun", args: ["run-k"] },
        { method: "updateRun", args: ["run-k", { status: "completed", revision: 2 }, { expectedRevision: 1 }] },
        // Terminal: forgotten, read from SQL again.
        { method: "getRun", args: ["run-k"] },
      ]),
    ).toEqual([
      "getRun: SELECT",
      "insertRun: INSERT",
      "getRun: ",
      // One statement needs no transaction around it; two go in one (the brackets).
      "appendLog: INSERT",
      "appendLog: [ UPDATE INSERT ]",
      "getRun: ",
      "updateRun: UPDATE",
      "getRun: SELECT",
    ]);
    expect(await callStore(object, "readLog", "run-k")).toEqual(entries(1, 100));
    expect(await callStore(object, "getRun", "run-k")).toMatchObject({ status: "completed", revision: 2 });
    // What it kept is what it wrote: a refused condition, a deleted run and a compacted log read as they are stored.
    const other = makeRunRecord({ runId: "run-o", status: "running" });
    const results = await worker().fetchJson<CountedCall[]>(`/store/calls-counted?object=${object}`, {
      body: {
        calls: [
          { method: "insertRun", args: [other] },
          { method: "updateRun", args: ["run-o", { revision: 5 }, { expectedRevision: 3 }] },
          { method: "getRun", args: ["run-o"] },
          { method: "appendLog", args: ["run-o", entries(1, 2)] },
          { method: "compactLog", args: ["run-o", entries(1, 1)] },
          { method: "appendLog", args: ["run-o", entries(3, 4)] },
          { method: "readLog", args: ["run-o"] },
          { method: "deleteRuns", args: [["run-o"]] },
          { method: "getRun", args: ["run-o"] },
          { method: "updateRun", args: ["run-o", { revision: 2 }] },
        ],
      },
    });
    expect(results.map(({ result }) => result)).toEqual([
      true,
      null,
      other,
      null,
      true,
      null,
      [...entries(1, 1), ...entries(3, 4)],
      null,
      null,
      null,
    ]);
    // A log written before its row (the contract allows it): the insert says so, and the next append reads it.
    const early = makeRunRecord({ runId: "run-e", status: "running" });
    expect(
      await run([
        { method: "appendLog", args: ["run-e", entries(1, 3)] },
        { method: "insertRun", args: [early] },
        { method: "appendLog", args: ["run-e", entries(2, 5)] },
      ]),
    ).toEqual(["appendLog: SELECT INSERT", "insertRun: INSERT", "appendLog: SELECT INSERT"]);
    expect(await callStore(object, "readLog", "run-e")).toEqual(entries(1, 5));
  });

  it("keeps runs and logs across a restart on the same persistence folder", async () => {
    const object = freshObject("durable");
    const first = makeRunRecord({
      runId: "run-a",
      startedAt: 1_000,
      input: { query: "durable objects", nested: [1, { deep: true }] },
      meta: { "@agent-tools/detached": { budgetDeadline: 90_000 } },
    });
    const second = makeRunRecord({ runId: "run-b", startedAt: 2_000, status: "completed", output: { answer: 42 } });
    const deleted = makeRunRecord({ runId: "run-c", startedAt: 1_500 });
    for (const record of [first, second, deleted]) expect(await callStore(object, "insertRun", record)).toBe(true);
    const updatedFirst = await callStore<RunRecord>(
      object,
      "updateRun",
      "run-a",
      { revision: 2, progress: { fraction: 0.5, at: 1_200 }, lastSequence: 6 },
      { expectedRevision: 1 },
    );
    await callStore(object, "appendLog", "run-a", entries(1, 3));
    await callStore(object, "appendLog", "run-a", entries(4, 6));
    await callStore(object, "appendLog", "run-b", entries(1, 2));
    await callStore(object, "appendLog", "run-c", entries(1, 2));
    await callStore(object, "deleteRuns", ["run-c"]);

    const expectedRuns = [updatedFirst, second];
    expect(updatedFirst).toEqual({ ...first, revision: 2, progress: { fraction: 0.5, at: 1_200 }, lastSequence: 6 });
    expect(await callStore(object, "listRuns")).toEqual(expectedRuns);

    await worker().restart();

    expect(await callStore(object, "listRuns")).toEqual(expectedRuns);
    expect(await callStore(object, "getRun", "run-c")).toBeNull();
    expect(await callStore(object, "readLog", "run-a")).toEqual(entries(1, 6));
    expect(await callStore(object, "readLog", "run-b")).toEqual(entries(1, 2));
    expect(await callStore(object, "readLog", "run-c")).toEqual([]);
    // The conditional update and the log's dedupe work on the reopened database, not on in-memory state.
    expect(await callStore(object, "updateRun", "run-a", { revision: 3 }, { expectedRevision: 1 })).toBeNull();
    await callStore(object, "appendLog", "run-a", entries(5, 8));
    expect(await callStore(object, "readLog", "run-a", { afterSequence: 3 })).toEqual(entries(4, 8));
  });
});

describe("DurableObjectWakeupScheduler", () => {
  const wakeAt = (object: string, times: number[]) =>
    worker().fetchJson<SchedulerState>(`/scheduler/wake-at?object=${object}`, { body: { times } });
  const state = (object: string) => worker().fetchJson<SchedulerState>(`/scheduler/state?object=${object}`);

  it("keeps the earliest pending wake-up, also when calls race", async () => {
    const object = freshObject("earliest");
    const now = Date.now();
    expect((await wakeAt(object, [now + 2 * HOUR])).alarm).toBe(now + 2 * HOUR);
    expect((await wakeAt(object, [now + 3 * HOUR])).alarm).toBe(now + 2 * HOUR);
    expect((await wakeAt(object, [now + HOUR])).alarm).toBe(now + HOUR);
    // Concurrent calls inside the object: the latest-resolving one must not overwrite an earlier time.
    expect((await wakeAt(object, [now + 5 * HOUR, now + HOUR / 2, now + 4 * HOUR])).alarm).toBe(now + HOUR / 2);
    expect(await worker().fetchJson<SchedulerState>(`/scheduler/cancel?object=${object}`, { method: "POST" })).toEqual({
      alarm: null,
      fired: [],
    });
  });

  it("asks a deciding function when its call's turn comes: null arms nothing, a time keeps the earliest", async () => {
    const object = freshObject("decided");
    const decided = (times: Array<number | null>) =>
      worker().fetchJson<SchedulerState>(`/scheduler/wake-decided?object=${object}`, { body: { times } });
    const now = Date.now();
    expect((await decided([null])).alarm).toBeNull();
    expect((await decided([now + 2 * HOUR, null])).alarm).toBe(now + 2 * HOUR);
    expect((await decided([null, now + 3 * HOUR, now + HOUR])).alarm).toBe(now + HOUR);
    await worker().fetchJson<SchedulerState>(`/scheduler/cancel?object=${object}`, { method: "POST" });
  });

  it("keeps a pending wake-up across a restart", async () => {
    const object = freshObject("restart");
    const wakeTime = Date.now() + HOUR;
    await wakeAt(object, [wakeTime]);
    await worker().restart();
    expect(await state(object)).toEqual({ alarm: wakeTime, fired: [] });
  });

  it("calls alarm() when the wake-up is due", async () => {
    const object = freshObject("fires");
    // The object arms its alarm at its own Date.now(), so it is due at once; no waiting on a future time.
    const { requested } = await worker().fetchJson<{ requested: number }>(`/scheduler/wake-now?object=${object}`, {
      method: "POST",
    });
    // workerd runs the alarm asynchronously: wait for its record, within a budget a busy machine still meets (this
    // used to give up after 100 polls 50 ms apart, about 5 s).
    await expect.poll(async () => (await state(object)).fired.length, { timeout: 30_000, interval: 50 }).toBe(1);
    const current = await state(object);
    expect(current.fired).toHaveLength(1);
    expect(current.fired[0]?.firedAt).toBeGreaterThanOrEqual(requested);
    expect(current.alarm).toBeNull();
  });
});

describe("DurableObjectRunStore's schema", () => {
  const schemaCounted = (indexed: boolean) =>
    worker().fetchJson<SchemaCount>(`/store/schema-counted?object=${freshObject("schema")}`, { body: { indexed } });
  const columns = ["run_id", "status", "revision", "started_at", "record", "attention"];

  it("is one statement on a new object for a store without indexes (a child's ledger: one object per run)", async () => {
    expect(await schemaCounted(false)).toEqual({
      created: 1,
      again: 1,
      names: ["schema_log", "schema_runs_plain"],
      columns,
    });
  });

  it("is two statements on a new object with the indexes, one on the next wake-up", async () => {
    expect(await schemaCounted(true)).toEqual({
      created: 2,
      again: 1,
      names: [
        "schema_log",
        "schema_runs_indexed",
        "schema_runs_indexed_attention",
        "schema_runs_indexed_live",
        "schema_runs_indexed_position",
      ],
      columns,
    });
  });
});

describe("DurableObjectRunStore with runsInLog (a child's own ledger)", () => {
  const runsInLog = (legacy: boolean) =>
    worker().fetchJson<RunsInLogState>(`/store/runs-in-log?object=${freshObject("in-log")}`, {
      body: {
        record: makeRunRecord({ runId: "run-1", status: "running", revision: 1, meta: { note: "kept" } }),
        entries: entries(1, 3),
        legacy,
      },
    });

  it("makes no runs table on a new object: the run's row is the log table's first row, read back after a wake-up", async () => {
    const state = await runsInLog(false);
    expect(state.layouts).toEqual(["log", "log"]);
    expect(state.tables).toEqual(["in_log_log"]);
    // The run's row (−1), then its log's row.
    expect(state.logKeys).toEqual([-1, 1]);
    expect(state.run).toMatchObject({ runId: "run-1", status: "completed", revision: 2, meta: { note: "kept" } });
    expect(state.listed).toEqual(["run-1"]);
    // The run's row is not a log row.
    expect(state.log).toEqual([1, 2, 3]);
  });

  it("keeps an earlier version's runs table: a child made before reads and writes its run there", async () => {
    const state = await runsInLog(true);
    expect(state.layouts).toEqual(["table", "table"]);
    expect(state.tables).toEqual(["legacy_child_log", "legacy_child_runs"]);
    expect(state.logKeys).toEqual([1]);
    expect(state.run).toMatchObject({ runId: "run-1", status: "completed", revision: 2 });
    expect(state.log).toEqual([1, 2, 3]);
  });
});

describe("DurableObjectRunStore over a table of an earlier version", () => {
  it("adds the attention column and marks the finished rows an owner may still have work on, once", async () => {
    const records: RunRecord[] = [
      makeRunRecord({ runId: "live", status: "running", revision: 1 }),
      makeRunRecord({ runId: "done", status: "completed", revision: 3, finishNotifiedRevision: 3 }),
      makeRunRecord({ runId: "hook-pending", status: "completed", revision: 3, finishNotifiedRevision: 2 }),
      makeRunRecord({ runId: "detached", status: "completed", revision: 3, finishNotifiedRevision: 3, detached: true }),
      makeRunRecord({ runId: "both", status: "error", revision: 3, detached: true }),
    ];
    const marked = await worker().fetchJson<Array<{ runId: string; attention: unknown }>>(
      `/store/legacy-upgrade?object=${encodeURIComponent(freshObject("legacy"))}`,
      { body: { records } },
    );
    // One start time: by runId.
    expect(marked).toEqual([
      { runId: "both", attention: { finish: true, detached: true } },
      { runId: "detached", attention: { detached: true } },
      { runId: "hook-pending", attention: { finish: true } },
    ]);
  });
});
