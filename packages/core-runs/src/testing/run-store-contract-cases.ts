import type { RunStore } from "../ports/run-store.js";
import type { AgentToolLogEntry } from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import { assertEqual, assertTrue } from "./contract-assert.js";

/** One case of a port's contract: a name, and a check that rejects when the implementation breaks the port. */
export type RunStoreContractCase = {
  name: string;
  /** Runs against a fresh, empty store; resolves when the store keeps the contract, rejects otherwise. */
  run(store: RunStore): Promise<void>;
};

/**
 * A valid `RunRecord` for tests: a running run `run-1` of agent type `researcher`, revision 1, started at 1000,
 * with `overrides` applied on top. Each call returns a new object.
 */
export function makeRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: "run-1",
    agentType: "researcher",
    status: "running",
    revision: 1,
    startedAt: 1_000,
    updatedAt: 1_000,
    displayOrder: 0,
    lastSequence: 0,
    ...overrides,
  };
}

/**
 * A log entry for tests: a `text-delta` chunk whose text names the sequence, at time `1000 + sequence` unless
 * `at` is given. Each call returns a new object.
 */
export function makeLogEntry(sequence: number, options: { text?: string; at?: number } = {}): AgentToolLogEntry {
  return {
    sequence,
    body: { type: "text-delta", id: "text-1", delta: options.text ?? `chunk ${sequence}` },
    at: options.at ?? 1_000 + sequence,
  };
}

function entries(from: number, to: number): AgentToolLogEntry[] {
  const result: AgentToolLogEntry[] = [];
  for (let sequence = from; sequence <= to; sequence++) result.push(makeLogEntry(sequence));
  return result;
}

function sequencesOf(log: readonly AgentToolLogEntry[]): number[] {
  return log.map((entry) => entry.sequence);
}

function runIdsOf(rows: readonly RunRecord[]): string[] {
  return rows.map((row) => row.runId);
}

/** A row with every kind of nested value a run carries. */
function richRunRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return makeRunRecord({
    parentToolCallId: "call-1",
    displayOrder: 3,
    display: { name: "Researcher", icon: "search", extra: { tags: ["a", "b"] } },
    inputPreview: "Find papers on…",
    input: { query: "durable objects", filters: { year: [2024, 2025], openAccess: true }, limit: 5 },
    progress: { fraction: 0.5, message: "halfway", phase: "search", data: { found: 12 }, at: 1_500 },
    meta: { "@agent-tools/detached": { budgetDeadline: 90_000, notify: ["a", "b"] } },
    detached: true,
    ...overrides,
  });
}

/**
 * The contract every `RunStore` must pass. Each case receives a fresh, empty store and checks with the
 * framework-free helpers of `contract-assert`, so the cases run under any test runner, or in a plain loop inside
 * workerd. `runStoreContract` registers them with vitest.
 *
 * @example
 * for (const contractCase of runStoreContractCases) {
 *   await contractCase.run(await createStore()); // rejects with a ContractAssertionError on a broken store
 * }
 */
export const runStoreContractCases: ReadonlyArray<RunStoreContractCase> = [
  {
    name: "updateRun merges meta per key: one package's key never overwrites another's",
    async run(store) {
      await store.insertRun(makeRunRecord({ runId: "meta", meta: { detached: { onFinish: "done" }, other: 1 } }));
      const updated = await store.updateRun("meta", { meta: { progress: { at: 5 }, other: undefined } });
      assertEqual(updated?.meta, { detached: { onFinish: "done" }, progress: { at: 5 } }, "merged per key");
      assertEqual((await store.getRun("meta"))?.meta, updated?.meta, "stored as returned");
    },
  },
  {
    name: "getRun of an unknown runId returns null",
    async run(store) {
      assertEqual(await store.getRun("missing"), null, "getRun(missing)");
    },
  },
  {
    name: "insertRun then getRun returns an equal row, nested values included",
    async run(store) {
      const record = richRunRecord();
      assertEqual(await store.insertRun(record), true, "insertRun of a new runId");
      assertEqual(await store.getRun("run-1"), richRunRecord(), "getRun after insertRun");
    },
  },
  {
    name: "insertRun of an existing runId returns false and leaves the first row unchanged",
    async run(store) {
      assertEqual(await store.insertRun(richRunRecord()), true, "first insertRun");
      const second = makeRunRecord({ agentType: "summarizer", status: "completed", revision: 7, summary: "other" });
      assertEqual(await store.insertRun(second), false, "second insertRun of the same runId");
      assertEqual(await store.getRun("run-1"), richRunRecord(), "row after the second insertRun");
    },
  },
  {
    name: "updateRun merges the patch and returns the stored row",
    async run(store) {
      await store.insertRun(richRunRecord());
      const updated = await store.updateRun("run-1", {
        status: "completed",
        revision: 2,
        completedAt: 2_000,
        output: { answer: [1, 2, 3] },
        progress: { fraction: 1, at: 2_000 },
      });
      const expected = richRunRecord({
        status: "completed",
        revision: 2,
        completedAt: 2_000,
        output: { answer: [1, 2, 3] },
        progress: { fraction: 1, at: 2_000 },
      });
      assertEqual(updated, expected, "updateRun result");
      assertEqual(await store.getRun("run-1"), expected, "getRun after updateRun");
    },
  },
  {
    name: "updateRun removes a field set to undefined",
    async run(store) {
      await store.insertRun(richRunRecord({ summary: "draft" }));
      const updated = await store.updateRun("run-1", { summary: undefined, input: undefined, revision: 2 });
      const expected: Record<string, unknown> = { ...richRunRecord(), revision: 2 };
      delete expected["input"];
      assertEqual(updated, expected, "updateRun result");
      const stored = await store.getRun("run-1");
      assertEqual(stored, expected, "getRun after updateRun");
      assertTrue(stored !== null && !("summary" in stored) && !("input" in stored), "removed fields are absent");
    },
  },
  {
    name: "updateRun with the matching expectedRevision applies",
    async run(store) {
      await store.insertRun(makeRunRecord({ revision: 3 }));
      const updated = await store.updateRun("run-1", { status: "aborted", revision: 4 }, { expectedRevision: 3 });
      assertEqual(updated, makeRunRecord({ status: "aborted", revision: 4 }), "updateRun result");
      assertEqual(await store.getRun("run-1"), updated, "getRun after updateRun");
    },
  },
  {
    name: "updateRun with a stale expectedRevision returns null and leaves the row unchanged",
    async run(store) {
      await store.insertRun(makeRunRecord({ revision: 3 }));
      const updated = await store.updateRun("run-1", { status: "aborted", revision: 4 }, { expectedRevision: 2 });
      assertEqual(updated, null, "updateRun with a stale revision");
      assertEqual(await store.getRun("run-1"), makeRunRecord({ revision: 3 }), "row after the refused update");
    },
  },
  {
    name: "updateRun of an unknown runId returns null and creates nothing",
    async run(store) {
      assertEqual(await store.updateRun("missing", { status: "completed" }), null, "updateRun(missing)");
      assertEqual(
        await store.updateRun("missing", { status: "completed" }, { expectedRevision: 1 }),
        null,
        "updateRun(missing, expectedRevision)",
      );
      assertEqual(await store.getRun("missing"), null, "getRun(missing) after updateRun");
      assertEqual(await store.listRuns(), [], "listRuns after updates of unknown runs");
    },
  },
  {
    name: "listRuns orders by startedAt, then runId",
    async run(store) {
      await store.insertRun(makeRunRecord({ runId: "c", startedAt: 2_000 }));
      await store.insertRun(makeRunRecord({ runId: "b", startedAt: 1_000 }));
      await store.insertRun(makeRunRecord({ runId: "d", startedAt: 1_000 }));
      await store.insertRun(makeRunRecord({ runId: "a", startedAt: 3_000 }));
      await store.insertRun(makeRunRecord({ runId: "a2", startedAt: 1_000 }));
      assertEqual(runIdsOf(await store.listRuns()), ["a2", "b", "d", "c", "a"], "listRuns order");
      await store.updateRun("a", { startedAt: 500 });
      assertEqual(runIdsOf(await store.listRuns()), ["a", "a2", "b", "d", "c"], "listRuns order after updateRun");
    },
  },
  {
    name: "listRuns filters by status; no filter or an empty one returns every row",
    async run(store) {
      await store.insertRun(makeRunRecord({ runId: "r1", startedAt: 1, status: "starting" }));
      await store.insertRun(makeRunRecord({ runId: "r2", startedAt: 2, status: "running" }));
      await store.insertRun(makeRunRecord({ runId: "r3", startedAt: 3, status: "completed" }));
      await store.insertRun(makeRunRecord({ runId: "r4", startedAt: 4, status: "error" }));
      await store.insertRun(makeRunRecord({ runId: "r5", startedAt: 5, status: "interrupted" }));
      await store.insertRun(makeRunRecord({ runId: "r6", startedAt: 6, status: "running" }));
      const all = ["r1", "r2", "r3", "r4", "r5", "r6"];
      assertEqual(runIdsOf(await store.listRuns()), all, "listRuns()");
      assertEqual(runIdsOf(await store.listRuns({})), all, "listRuns({})");
      assertEqual(runIdsOf(await store.listRuns({ status: [] })), all, "listRuns({ status: [] })");
      assertEqual(runIdsOf(await store.listRuns({ status: ["running"] })), ["r2", "r6"], "status running");
      assertEqual(
        runIdsOf(await store.listRuns({ status: ["interrupted", "starting", "running"] })),
        ["r1", "r2", "r5", "r6"],
        "several statuses",
      );
      assertEqual(await store.listRuns({ status: ["aborted"] }), [], "a status no row has");
      const [completed] = await store.listRuns({ status: ["completed"] });
      assertEqual(completed, makeRunRecord({ runId: "r3", startedAt: 3, status: "completed" }), "listed row");
    },
  },
  {
    name: "listRuns pages by position: newest first, before / from a run's position, a limit, with a status",
    async run(store) {
      // Two runs share a start time: their runIds order them.
      const starts: Array<[string, number, RunRecord["status"]]> = [
        ["r1", 1, "completed"],
        ["r2", 2, "running"],
        ["r3a", 3, "completed"],
        ["r3b", 3, "starting"],
        ["r4", 4, "error"],
        ["r5", 5, "completed"],
      ];
      for (const [runId, startedAt, status] of starts) {
        await store.insertRun(makeRunRecord({ runId, startedAt, status }));
      }
      const at = (runId: string, startedAt: number) => ({ runId, startedAt });
      assertEqual(runIdsOf(await store.listRuns({ order: "desc" })), ["r5", "r4", "r3b", "r3a", "r2", "r1"], "desc");
      assertEqual(runIdsOf(await store.listRuns({ order: "desc", limit: 2 })), ["r5", "r4"], "newest two");
      assertEqual(runIdsOf(await store.listRuns({ limit: 2 })), ["r1", "r2"], "oldest two");
      assertEqual(runIdsOf(await store.listRuns({ limit: 0 })), [], "limit 0");
      assertEqual(
        runIdsOf(await store.listRuns({ order: "desc", before: at("r3b", 3), limit: 2 })),
        ["r3a", "r2"],
        "the page before r3b",
      );
      assertEqual(runIdsOf(await store.listRuns({ before: at("r1", 1) })), [], "nothing before the oldest");
      assertEqual(runIdsOf(await store.listRuns({ from: at("r3b", 3) })), ["r3b", "r4", "r5"], "from r3b");
      assertEqual(
        runIdsOf(await store.listRuns({ from: at("r2", 2), before: at("r5", 5), order: "desc" })),
        ["r4", "r3b", "r3a", "r2"],
        "between",
      );
      // A position need not be a stored run's.
      assertEqual(runIdsOf(await store.listRuns({ from: at("x", 3) })), ["r4", "r5"], "from a position after r3b");
      assertEqual(
        runIdsOf(await store.listRuns({ status: ["starting", "running"], order: "desc" })),
        ["r3b", "r2"],
        "live, newest first",
      );
      assertEqual(
        runIdsOf(await store.listRuns({ status: ["completed"], before: at("r5", 5), limit: 1, order: "desc" })),
        ["r3a"],
        "status with a page",
      );
    },
  },
  {
    name: "attention is merged per owner; listRuns({ attention: true }) keeps the rows an owner has work on",
    async run(store) {
      await store.insertRun(makeRunRecord({ runId: "a", startedAt: 1, status: "completed" }));
      await store.insertRun(
        makeRunRecord({ runId: "b", startedAt: 2, status: "completed", attention: { finish: true } }),
      );
      await store.insertRun(makeRunRecord({ runId: "c", startedAt: 3, status: "completed" }));
      assertEqual(runIdsOf(await store.listRuns({ attention: true })), ["b"], "inserted with attention");
      await store.updateRun("c", { attention: { detached: true } });
      await store.updateRun("b", { attention: { detached: true } });
      assertEqual((await store.getRun("b"))?.attention, { finish: true, detached: true }, "merged per owner");
      assertEqual(runIdsOf(await store.listRuns({ attention: true })), ["b", "c"], "two rows");
      await store.updateRun("b", { attention: { finish: undefined } });
      await store.updateRun("c", { attention: { detached: undefined } });
      assertEqual((await store.getRun("b"))?.attention, { detached: true }, "one owner cleared its key");
      assertEqual((await store.getRun("c"))?.attention, undefined, "no key left: no attention");
      assertEqual(runIdsOf(await store.listRuns({ attention: true, order: "desc" })), ["b"], "with other filters");
      assertEqual(runIdsOf(await store.listRuns({ attention: false })), ["a", "b", "c"], "false: every row");
    },
  },
  {
    name: "deleteRuns removes the rows and their logs; unknown ids are ignored",
    async run(store) {
      for (const runId of ["r1", "r2", "r3"]) {
        await store.insertRun(makeRunRecord({ runId }));
        await store.appendLog(runId, entries(1, 3));
      }
      await store.deleteRuns(["r1", "missing", "r3"]);
      await store.deleteRuns([]);
      assertEqual(await store.getRun("r1"), null, "deleted row r1");
      assertEqual(await store.getRun("r3"), null, "deleted row r3");
      assertEqual(await store.readLog("r1"), [], "log of deleted r1");
      assertEqual(await store.readLog("r3"), [], "log of deleted r3");
      assertEqual(runIdsOf(await store.listRuns()), ["r2"], "remaining rows");
      assertEqual(await store.readLog("r2"), entries(1, 3), "log of the kept run");
      // A deleted runId is free again, with an empty log.
      assertEqual(await store.insertRun(makeRunRecord({ runId: "r1" })), true, "insertRun of a deleted runId");
      assertEqual(await store.readLog("r1"), [], "log of the re-inserted run");
    },
  },
  {
    name: "appendLog then readLog returns the entries in sequence order",
    async run(store) {
      assertEqual(await store.readLog("run-1"), [], "readLog of a run with no log");
      await store.appendLog("run-1", entries(1, 3));
      await store.appendLog("run-1", []);
      await store.appendLog("run-1", entries(4, 5));
      assertEqual(await store.readLog("run-1"), entries(1, 5), "readLog()");
      assertEqual(await store.readLog("run-1", {}), entries(1, 5), "readLog({})");
      assertEqual(await store.readLog("run-1", { afterSequence: 0 }), entries(1, 5), "readLog(afterSequence 0)");
    },
  },
  {
    name: "readLog honours afterSequence and limit",
    async run(store) {
      await store.appendLog("run-1", entries(1, 10));
      assertEqual(sequencesOf(await store.readLog("run-1", { afterSequence: 7 })), [8, 9, 10], "after 7");
      assertEqual(sequencesOf(await store.readLog("run-1", { afterSequence: 10 })), [], "after the last");
      assertEqual(sequencesOf(await store.readLog("run-1", { afterSequence: 99 })), [], "after beyond the end");
      assertEqual(sequencesOf(await store.readLog("run-1", { limit: 3 })), [1, 2, 3], "limit 3");
      assertEqual(
        sequencesOf(await store.readLog("run-1", { afterSequence: 4, limit: 2 })),
        [5, 6],
        "after 4, limit 2",
      );
      assertEqual(
        sequencesOf(await store.readLog("run-1", { afterSequence: 8, limit: 5 })),
        [9, 10],
        "limit beyond the end",
      );
    },
  },
  {
    name: "appendLog ignores a sequence already stored; the first entry is kept",
    async run(store) {
      await store.appendLog("run-1", [makeLogEntry(1, { text: "first" }), makeLogEntry(2, { text: "first" })]);
      await store.appendLog("run-1", [makeLogEntry(2, { text: "second" }), makeLogEntry(3, { text: "first" })]);
      await store.appendLog("run-1", [makeLogEntry(4, { text: "first" }), makeLogEntry(4, { text: "second" })]);
      await store.appendLog("run-1", [makeLogEntry(1, { text: "second", at: 9_999 })]);
      assertEqual(
        await store.readLog("run-1"),
        [1, 2, 3, 4].map((sequence) => makeLogEntry(sequence, { text: "first" })),
        "log after duplicate appends",
      );
    },
  },
  {
    name: "entries appended out of order read back sorted",
    async run(store) {
      await store.appendLog("run-1", [makeLogEntry(5), makeLogEntry(2)]);
      await store.appendLog("run-1", [makeLogEntry(4), makeLogEntry(1), makeLogEntry(6)]);
      await store.appendLog("run-1", [makeLogEntry(3)]);
      assertEqual(await store.readLog("run-1"), entries(1, 6), "log after out-of-order appends");
      assertEqual(sequencesOf(await store.readLog("run-1", { afterSequence: 2, limit: 3 })), [3, 4, 5], "a page");
    },
  },
  {
    name: "logs of different runs are independent",
    async run(store) {
      await store.appendLog("run-a", [makeLogEntry(1, { text: "a1" }), makeLogEntry(2, { text: "a2" })]);
      await store.appendLog("run-b", [makeLogEntry(1, { text: "b1" })]);
      await store.appendLog("run-b", [makeLogEntry(2, { text: "b2" }), makeLogEntry(3, { text: "b3" })]);
      assertEqual(
        await store.readLog("run-a"),
        [makeLogEntry(1, { text: "a1" }), makeLogEntry(2, { text: "a2" })],
        "log of run-a",
      );
      assertEqual(
        await store.readLog("run-b"),
        [makeLogEntry(1, { text: "b1" }), makeLogEntry(2, { text: "b2" }), makeLogEntry(3, { text: "b3" })],
        "log of run-b",
      );
      await store.deleteRuns(["run-a"]);
      assertEqual(sequencesOf(await store.readLog("run-b")), [1, 2, 3], "run-b after deleting run-a");
    },
  },
  {
    name: "rows are copies: mutating an inserted, returned or listed row does not change the store",
    async run(store) {
      const inserted = richRunRecord();
      await store.insertRun(inserted);
      inserted.status = "error";
      (inserted.input as { query: string }).query = "changed by the caller";

      const fetched = await store.getRun("run-1");
      assertTrue(fetched !== null, "getRun finds the row");
      fetched.summary = "mutated";
      (fetched.meta as Record<string, { notify: string[] }>)["@agent-tools/detached"]?.notify.push("c");

      const [listed] = await store.listRuns();
      assertTrue(listed !== undefined, "listRuns finds the row");
      listed.revision = 99;
      if (listed.display) listed.display.name = "mutated";

      const updated = await store.updateRun("run-1", { updatedAt: 1_100 });
      assertTrue(updated !== null, "updateRun finds the row");
      updated.status = "aborted";
      if (updated.progress) updated.progress.fraction = 0;

      assertEqual(await store.getRun("run-1"), richRunRecord({ updatedAt: 1_100 }), "row after the mutations");
    },
  },
  {
    name: "log entries are copies: mutating an appended or read entry does not change the store",
    async run(store) {
      const appended = [makeLogEntry(1), makeLogEntry(2)];
      await store.appendLog("run-1", appended);
      appended.push(makeLogEntry(3));
      (appended[0] as AgentToolLogEntry).at = 0;
      const read = await store.readLog("run-1");
      (read[1] as AgentToolLogEntry).body = { type: "error", errorText: "mutated" };
      read.pop();
      assertEqual(await store.readLog("run-1"), entries(1, 2), "log after the mutations");
    },
  },
  {
    name: "rows and entries survive a JSON round trip: unicode, nested arrays, numbers, booleans, null",
    async run(store) {
      const value = {
        text: "naïve café — 日本語, emoji 🧪👩‍🔬, quotes \" ' and \\ backslash, newline\nand tab\t",
        nested: [[1, [2, [3, []]]], { deep: [{ deeper: [true, false, null] }] }],
        numbers: [0, -1, 1.5, -2.25, 1e21, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
        flags: { yes: true, no: false },
        nothing: null,
        empty: { object: {}, array: [], string: "" },
      };
      const roundTripped: unknown = JSON.parse(JSON.stringify(value));
      assertEqual(roundTripped, value, "the test value itself is JSON-safe");
      const record = makeRunRecord({
        input: value,
        output: [value, null],
        summary: value.text,
        meta: { "@agent-tools/test": value },
        display: { name: "🧪 Tester", detail: value },
      });
      await store.insertRun(record);
      assertEqual(await store.getRun("run-1"), record, "row with JSON values");
      const entry: AgentToolLogEntry = { sequence: 1, body: { type: "data-sample", data: value }, at: 1_001 };
      await store.appendLog("run-1", [entry, makeLogEntry(2, { text: value.text })]);
      assertEqual(await store.readLog("run-1"), [entry, makeLogEntry(2, { text: value.text })], "entries");
    },
  },
  {
    name: "a log of 1000 entries reads back in pages of 100 by afterSequence",
    async run(store) {
      for (let from = 1; from <= 1_000; from += 250) await store.appendLog("run-1", entries(from, from + 249));
      const pages: number[][] = [];
      let afterSequence = 0;
      for (;;) {
        const page = await store.readLog("run-1", { afterSequence, limit: 100 });
        if (page.length === 0) break;
        assertTrue(pages.length < 10, "no more than 10 non-empty pages");
        pages.push(sequencesOf(page));
        afterSequence = (page[page.length - 1] as AgentToolLogEntry).sequence;
      }
      assertEqual(
        pages.map((page) => page.length),
        [100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
        "page sizes",
      );
      assertEqual(
        pages.flat(),
        Array.from({ length: 1_000 }, (_, index) => index + 1),
        "every sequence once, in order",
      );
      const entry500 = await store.readLog("run-1", { afterSequence: 499, limit: 1 });
      assertEqual(entry500, [makeLogEntry(500)], "entry 500");
    },
  },
  {
    name: "compactLog replaces the log, keeps the entries as given, and marks the run compacted",
    async run(store) {
      await store.insertRun(makeRunRecord({ status: "completed", revision: 3 }));
      await store.appendLog("run-1", entries(1, 8));
      assertEqual(runIdsOf(await store.listRuns({ log: "full" })), ["run-1"], "full before");
      assertEqual(runIdsOf(await store.listRuns({ log: "compacted" })), [], "compacted before");
      const merged = {
        ...makeLogEntry(7, { text: "chunk 3chunk 4chunk 5chunk 6chunk 7" }),
        merged: { from: 3, last: 7 },
      };
      const reset: AgentToolLogEntry = {
        sequence: 6,
        body: { type: "data-agent-step-reset", data: { fromSequence: 3 }, transient: true } as never,
        at: 1_006,
      };
      // Unsorted and with a sequence twice: stored sorted, the first one kept.
      const compacted = [
        makeLogEntry(8),
        merged,
        makeLogEntry(1),
        reset,
        makeLogEntry(2),
        makeLogEntry(8, { text: "x" }),
      ];
      assertEqual(await store.compactLog("run-1", compacted), true, "compactLog of a known run");
      const expected = [makeLogEntry(1), makeLogEntry(2), reset, merged, makeLogEntry(8)];
      assertEqual(await store.readLog("run-1"), expected, "the compacted log, envelope fields included");
      assertEqual(await store.readLog("run-1", { afterSequence: 2, limit: 2 }), [reset, merged], "a page of it");
      assertEqual(await store.readLog("run-1", { afterSequence: 6 }), [merged, makeLogEntry(8)], "after the reset");
      assertEqual(runIdsOf(await store.listRuns({ log: "full" })), [], "full after");
      assertEqual(runIdsOf(await store.listRuns({ log: "compacted" })), ["run-1"], "compacted after");
      assertEqual(runIdsOf(await store.listRuns({ status: ["running"], log: "compacted" })), [], "both filters apply");
      // It stands for every sequence up to its last: appending those changes nothing; later ones are added, and the
      // log stays compacted.
      await store.appendLog("run-1", entries(5, 10));
      assertEqual(await store.readLog("run-1"), [...expected, makeLogEntry(9), makeLogEntry(10)], "appended after");
      assertEqual(runIdsOf(await store.listRuns({ log: "compacted" })), ["run-1"], "still compacted");
    },
  },
  {
    name: "compactLog of an unknown run writes nothing; deleteRuns forgets a compacted log",
    async run(store) {
      assertEqual(await store.compactLog("missing", entries(1, 2)), false, "compactLog of an unknown run");
      assertEqual(await store.readLog("missing"), [], "no log written for it");
      await store.insertRun(makeRunRecord({ runId: "a", status: "completed" }));
      await store.insertRun(makeRunRecord({ runId: "b", status: "completed", startedAt: 2_000 }));
      await store.insertRun(makeRunRecord({ runId: "c", status: "completed", startedAt: 3_000 }));
      await store.appendLog("a", entries(1, 3));
      await store.appendLog("b", entries(1, 3));
      assertEqual(await store.compactLog("a", entries(2, 3)), true, "compact a");
      // A run without a log is neither full nor compacted; compacting to nothing leaves it that way.
      assertEqual(await store.compactLog("c", []), true, "compact c to nothing");
      assertEqual(runIdsOf(await store.listRuns({ log: "full" })), ["b"], "full");
      assertEqual(runIdsOf(await store.listRuns({ log: "compacted" })), ["a"], "compacted");
      await store.deleteRuns(["a"]);
      assertEqual(await store.readLog("a"), [], "log of the deleted run");
      await store.insertRun(makeRunRecord({ runId: "a", status: "completed" }));
      await store.appendLog("a", entries(1, 2));
      assertEqual(runIdsOf(await store.listRuns({ log: "compacted" })), [], "a re-inserted run starts full");
      assertEqual(runIdsOf(await store.listRuns({ log: "full" })), ["a", "b"], "full after re-insert");
    },
  },
  {
    name: "concurrent insertRun of one runId: exactly one returns true",
    async run(store) {
      const candidates = Array.from({ length: 8 }, (_, index) =>
        makeRunRecord({ agentType: `agent-${index}`, displayOrder: index }),
      );
      const results = await Promise.all(candidates.map((record) => store.insertRun(record)));
      assertEqual(results.filter((result) => result).length, 1, "number of insertRun calls that returned true");
      const winner = candidates[results.indexOf(true)];
      assertEqual(await store.getRun("run-1"), winner, "the stored row is the winner's");
    },
  },
];
