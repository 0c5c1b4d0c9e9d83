import { describe, expect, it } from "vitest";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolLogEntry } from "../protocol/index.js";
import type { RunRecord, RunRecordPatch } from "../run-record.js";
import { assertEqual, assertRejects, assertTrue, ContractAssertionError } from "./contract-assert.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";
import { makeLogEntry, makeRunRecord, runStoreContractCases } from "./run-store-contract-cases.js";
import { storeWith } from "./store-with.js";

// The contract itself runs against this store, in Node, with every other port contract:
// packages/cloudflare/test/contract-suites.test.ts.

describe("InMemoryRunStore", () => {
  it("counts every write call and every read call, whether or not it changed anything", async () => {
    const store = new InMemoryRunStore();
    expect(store.stats).toEqual({ writes: 0, reads: 0 });

    await store.insertRun(makeRunRecord());
    await store.insertRun(makeRunRecord()); // refused, still a write call
    await store.updateRun("run-1", { status: "completed" });
    await store.updateRun("missing", { status: "completed" });
    await store.appendLog("run-1", [makeLogEntry(1), makeLogEntry(2)]);
    await store.appendLog("run-1", []);
    await store.deleteRuns(["missing"]);
    expect(store.stats).toEqual({ writes: 7, reads: 0 });

    await store.getRun("run-1");
    await store.getRun("missing");
    await store.listRuns();
    await store.readLog("run-1", { afterSequence: 1 });
    expect(store.stats).toEqual({ writes: 7, reads: 4 });
  });

  it("returns a snapshot of the counters, and resetStats sets them back to 0", async () => {
    const store = new InMemoryRunStore();
    const before = store.stats;
    await store.insertRun(makeRunRecord());
    expect(before).toEqual({ writes: 0, reads: 0 });
    store.resetStats();
    expect(store.stats).toEqual({ writes: 0, reads: 0 });
    await store.getRun("run-1");
    expect(store.stats).toEqual({ writes: 0, reads: 1 });
  });

  it("keeps the row's runId when a patch names another", async () => {
    const store = new InMemoryRunStore();
    await store.insertRun(makeRunRecord());
    const updated = await store.updateRun("run-1", { runId: "run-2", revision: 2 });
    expect(updated).toEqual(makeRunRecord({ revision: 2 }));
    expect(await store.getRun("run-2")).toBeNull();
  });

  it("rejects values it cannot clone, storing nothing", async () => {
    const store = new InMemoryRunStore();
    const unclonable = makeRunRecord({ input: { callback: () => undefined } });
    await expect(store.insertRun(unclonable)).rejects.toThrow();
    expect(await store.getRun("run-1")).toBeNull();

    await store.insertRun(makeRunRecord());
    await expect(store.updateRun("run-1", { output: { callback: () => undefined } })).rejects.toThrow();
    expect(await store.getRun("run-1")).toEqual(makeRunRecord());

    const bad: AgentToolLogEntry = { sequence: 2, body: { type: "data-x", data: () => undefined }, at: 0 };
    await expect(store.appendLog("run-1", [makeLogEntry(1), bad])).rejects.toThrow();
    expect(await store.readLog("run-1")).toEqual([]);
  });

  it("rejects a non-finite sequence, appending nothing of that call", async () => {
    const store = new InMemoryRunStore();
    await expect(store.appendLog("run-1", [makeLogEntry(1), makeLogEntry(Number.NaN)])).rejects.toThrow(RangeError);
    expect(await store.readLog("run-1")).toEqual([]);
  });

  it("returns nothing for a limit of 0 or less", async () => {
    const store = new InMemoryRunStore();
    await store.appendLog("run-1", [makeLogEntry(1), makeLogEntry(2)]);
    expect(await store.readLog("run-1", { limit: 0 })).toEqual([]);
    expect(await store.readLog("run-1", { limit: -1 })).toEqual([]);
  });

  it("keeps a log sorted and deduplicated under shuffled, overlapping batches", async () => {
    const store = new InMemoryRunStore();
    const size = 2_000;
    // A deterministic permutation of 1..size (1_999 is coprime with 2_000), appended in overlapping batches.
    const order = Array.from({ length: size }, (_, index) => ((index * 1_999) % size) + 1);
    for (let start = 0; start < size; start += 150) {
      const batch = order.slice(Math.max(0, start - 20), start + 150);
      await store.appendLog(
        "run-1",
        batch.map((sequence) => makeLogEntry(sequence)),
      );
    }
    const log = await store.readLog("run-1");
    expect(log.map((entry) => entry.sequence)).toEqual(Array.from({ length: size }, (_, index) => index + 1));
    expect((await store.readLog("run-1", { afterSequence: 1_234, limit: 3 })).map((entry) => entry.sequence)).toEqual([
      1_235, 1_236, 1_237,
    ]);
  });
});

/** A deep copy for the broken stores below (values here are JSON). */
function clone<TValue>(value: TValue): TValue {
  return JSON.parse(JSON.stringify(value)) as TValue;
}

/** Runs every contract case on a fresh store from `createStore`; returns the names of the cases that rejected. */
async function failingContractCases(createStore: () => RunStore): Promise<string[]> {
  const failing: string[] = [];
  for (const contractCase of runStoreContractCases) {
    try {
      await contractCase.run(createStore());
    } catch {
      failing.push(contractCase.name);
    }
  }
  return failing;
}

/** A store that forwards to an `InMemoryRunStore`, with some methods replaced to break one guarantee. */
function brokenStore(override: (base: InMemoryRunStore) => Partial<RunStore>): () => RunStore {
  return () => {
    const base = new InMemoryRunStore();
    return storeWith(base, override(base));
  };
}

describe("runStoreContractCases catch broken stores", () => {
  it("all pass on InMemoryRunStore (the baseline the mutants are compared with)", async () => {
    expect(await failingContractCases(() => new InMemoryRunStore())).toEqual([]);
  });

  const mutants: Array<{ defect: string; create: () => RunStore; caughtBy: string[] }> = [
    {
      defect: "insertRun overwrites an existing row",
      create: brokenStore((base) => ({
        async insertRun(record) {
          if (!(await base.insertRun(record))) await base.updateRun(record.runId, record);
          return true;
        },
      })),
      caughtBy: [
        "insertRun of an existing runId returns false and leaves the first row unchanged",
        "concurrent insertRun of one runId: exactly one returns true",
      ],
    },
    {
      defect: "insertRun is check-then-act across an await (not atomic)",
      create: brokenStore((base) => ({
        async insertRun(record) {
          if ((await base.getRun(record.runId)) !== null) return false;
          await base.deleteRuns([record.runId]);
          await base.insertRun(record);
          return true;
        },
      })),
      caughtBy: ["concurrent insertRun of one runId: exactly one returns true"],
    },
    {
      defect: "readLog ignores afterSequence",
      create: brokenStore((base) => ({
        readLog: (runId, options) => base.readLog(runId, options?.limit === undefined ? {} : { limit: options.limit }),
      })),
      caughtBy: [
        "readLog honours afterSequence and limit",
        "a log of 1000 entries reads back in pages of 100 by afterSequence",
      ],
    },
    {
      defect: "readLog ignores limit",
      create: brokenStore((base) => ({
        readLog: (runId, options) =>
          base.readLog(runId, options?.afterSequence === undefined ? {} : { afterSequence: options.afterSequence }),
      })),
      caughtBy: ["readLog honours afterSequence and limit"],
    },
    {
      defect: "updateRun ignores expectedRevision",
      create: brokenStore((base) => ({ updateRun: (runId, patch) => base.updateRun(runId, patch) })),
      caughtBy: ["updateRun with a stale expectedRevision returns null and leaves the row unchanged"],
    },
    {
      defect: "updateRun keeps a field set to undefined",
      create: brokenStore((base) => ({
        updateRun: (runId, patch, condition) =>
          base.updateRun(
            runId,
            Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as RunRecordPatch,
            condition,
          ),
      })),
      caughtBy: ["updateRun removes a field set to undefined"],
    },
    {
      defect: "listRuns returns rows in insertion order",
      create: brokenStore((base) => {
        const inserted: string[] = [];
        return {
          async insertRun(record) {
            const isNew = await base.insertRun(record);
            if (isNew) inserted.push(record.runId);
            return isNew;
          },
          async listRuns(filter) {
            const rows = await base.listRuns(filter);
            return rows.sort((a, b) => inserted.indexOf(a.runId) - inserted.indexOf(b.runId));
          },
        };
      }),
      caughtBy: ["listRuns orders by startedAt, then runId"],
    },
    {
      defect: "listRuns ignores the status filter",
      create: brokenStore((base) => ({ listRuns: () => base.listRuns() })),
      caughtBy: ["listRuns filters by status; no filter or an empty one returns every row"],
    },
    {
      defect: "deleteRuns keeps the logs",
      create: brokenStore((base) => ({
        async deleteRuns(runIds) {
          const logs = await Promise.all(runIds.map((runId) => base.readLog(runId)));
          await base.deleteRuns(runIds);
          for (const [index, runId] of runIds.entries()) await base.appendLog(runId, logs[index] ?? []);
        },
      })),
      caughtBy: ["deleteRuns removes the rows and their logs; unknown ids are ignored"],
    },
    {
      defect: "appendLog lets a later duplicate replace the stored entry",
      create: brokenStore((base) => {
        const logs = new Map<string, Map<number, AgentToolLogEntry>>();
        return {
          async appendLog(runId, entries) {
            const log = logs.get(runId) ?? new Map<number, AgentToolLogEntry>();
            logs.set(runId, log);
            for (const entry of entries) log.set(entry.sequence, clone(entry));
          },
          async readLog(runId, options) {
            const sorted = [...(logs.get(runId)?.values() ?? [])].sort((a, b) => a.sequence - b.sequence);
            const after = sorted.filter((entry) => entry.sequence > (options?.afterSequence ?? 0));
            return clone(options?.limit === undefined ? after : after.slice(0, options.limit));
          },
          async deleteRuns(runIds) {
            for (const runId of runIds) logs.delete(runId);
            await base.deleteRuns(runIds);
          },
        };
      }),
      caughtBy: ["appendLog ignores a sequence already stored; the first entry is kept"],
    },
    {
      defect: "readLog returns entries in append order",
      create: brokenStore(() => {
        const logs = new Map<string, AgentToolLogEntry[]>();
        return {
          async appendLog(runId, entries) {
            const log = logs.get(runId) ?? [];
            logs.set(runId, log);
            for (const entry of entries) {
              if (!log.some((stored) => stored.sequence === entry.sequence)) log.push(clone(entry));
            }
          },
          async readLog(runId, options) {
            const after = (logs.get(runId) ?? []).filter((entry) => entry.sequence > (options?.afterSequence ?? 0));
            return clone(options?.limit === undefined ? after : after.slice(0, options.limit));
          },
        };
      }),
      caughtBy: ["entries appended out of order read back sorted"],
    },
    {
      defect: "rows are stored and handed out by reference",
      create: brokenStore((base) => {
        const rows = new Map<string, RunRecord>();
        return {
          async getRun(runId) {
            return rows.get(runId) ?? null;
          },
          async insertRun(record) {
            if (rows.has(record.runId)) return false;
            rows.set(record.runId, record);
            return base.insertRun(record);
          },
          async updateRun(runId, patch, condition) {
            const updated = await base.updateRun(runId, patch, condition);
            const row = rows.get(runId);
            if (updated === null || row === undefined) return updated;
            for (const key of Object.keys(row)) if (!(key in updated)) delete (row as Record<string, unknown>)[key];
            return Object.assign(row, updated);
          },
          async listRuns(filter) {
            const listed = await base.listRuns(filter);
            return listed.map((row) => rows.get(row.runId) ?? row);
          },
        };
      }),
      caughtBy: ["rows are copies: mutating an inserted, returned or listed row does not change the store"],
    },
    {
      defect: "appendLog stores the caller's entry objects",
      create: brokenStore(() => {
        const logs = new Map<string, AgentToolLogEntry[]>();
        return {
          async appendLog(runId, entries) {
            logs.set(runId, [...(logs.get(runId) ?? []), ...entries]);
          },
          async readLog(runId) {
            return clone(logs.get(runId) ?? []);
          },
        };
      }),
      caughtBy: ["log entries are copies: mutating an appended or read entry does not change the store"],
    },
    {
      defect: "compactLog adds the entries to the log instead of replacing it",
      create: brokenStore((base) => ({
        async compactLog(runId, entries) {
          if ((await base.getRun(runId)) === null) return false;
          await base.appendLog(runId, entries);
          return true;
        },
      })),
      caughtBy: ["compactLog replaces the log, keeps the entries as given, and marks the run compacted"],
    },
    {
      defect: "listRuns ignores the log filter",
      create: brokenStore((base) => ({
        listRuns: (filter) => base.listRuns(filter?.status === undefined ? {} : { status: filter.status }),
      })),
      caughtBy: [
        "compactLog replaces the log, keeps the entries as given, and marks the run compacted",
        "compactLog of an unknown run writes nothing; deleteRuns forgets a compacted log",
      ],
    },
    {
      defect: "compactLog writes a log for a run with no row",
      create: brokenStore((base) => ({
        async compactLog(runId, entries) {
          if ((await base.getRun(runId)) === null) {
            await base.appendLog(runId, entries);
            return false;
          }
          return base.compactLog(runId, entries);
        },
      })),
      caughtBy: ["compactLog of an unknown run writes nothing; deleteRuns forgets a compacted log"],
    },
  ];

  it.each(mutants)("a store where $defect fails the contract", async ({ create, caughtBy }) => {
    const failing = await failingContractCases(create);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing).toEqual(expect.arrayContaining(caughtBy));
  });

  it("rejects with a ContractAssertionError naming both values", async () => {
    const overwriting = brokenStore((base) => ({
      async insertRun(record) {
        if (!(await base.insertRun(record))) await base.updateRun(record.runId, record);
        return true;
      },
    }));
    const contractCase = runStoreContractCases.find((candidate) =>
      candidate.name.startsWith("insertRun of an existing"),
    );
    assertTrue(contractCase !== undefined, "the case exists");
    const error = await assertRejects(contractCase.run(overwriting()), "the broken store fails the case");
    expect(error).toBeInstanceOf(ContractAssertionError);
    expect((error as Error).message).toMatch(/second insertRun of the same runId: values differ at \$/);
    expect((error as Error).message).toContain("expected: false");
    expect((error as Error).message).toContain("actual:   true");
  });
});

describe("contract-assert", () => {
  it("assertEqual accepts structurally equal values and rejects any difference", () => {
    assertEqual({ a: [1, { b: null }], c: "x" }, { c: "x", a: [1, { b: null }] }, "eq");
    assertEqual(Number.NaN, Number.NaN, "NaN");
    expect(() => assertEqual({ a: 1 }, { a: 1, b: undefined }, "missing key")).toThrow(/\$\.b \(missing\)/);
    expect(() => assertEqual({ a: 1, b: 2 }, { a: 1 }, "extra key")).toThrow(/\$\.b \(unexpected\)/);
    expect(() => assertEqual([1, 2], [1, 2, 3], "length")).toThrow(/\$\.length/);
    expect(() => assertEqual({ a: [{ b: 1 }] }, { a: [{ b: 2 }] }, "nested")).toThrow(/\$\.a\[0\]\.b/);
    expect(() => assertEqual([], {}, "array vs object")).toThrow(ContractAssertionError);
    expect(() => assertEqual(0, -0, "signed zero")).toThrow(ContractAssertionError);
    expect(() => assertEqual("1", 1, "type")).toThrow(/expected: 1\n {2}actual: {3}"1"/);
    expect(() => assertEqual(new Map(), new Map(), "other classes compare by reference")).toThrow();
  });

  it("assertEqual truncates long values in its message", () => {
    const long = "x".repeat(10_000);
    try {
      assertEqual(long, `${long}y`, "long");
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(5_000);
      expect((error as ContractAssertionError).expected).toBe(`${long}y`);
    }
  });

  it("assertTrue throws for falsy values only", () => {
    assertTrue(1, "truthy");
    expect(() => assertTrue(0, "zero is falsy")).toThrow(/zero is falsy \(got 0\)/);
    expect(() => assertTrue(undefined, "undefined")).toThrow(/got undefined/);
  });

  it("assertRejects returns the reason, and throws when the promise resolves", async () => {
    const reason = new Error("no");
    expect(await assertRejects(Promise.reject(reason), "rejects")).toBe(reason);
    expect(
      await assertRejects(() => {
        throw reason;
      }, "throws"),
    ).toBe(reason);
    await expect(assertRejects(Promise.resolve(42), "resolves")).rejects.toThrow(/resolved with 42/);
  });
});
