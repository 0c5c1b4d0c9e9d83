// `applyRunPatch`, the merge rule every run store applies (`RunStore.updateRun`), as data.
import { describe, expect, it } from "vitest";
import { applyRunPatch, type RunRecord } from "./run-record.js";

const row = (fields: Partial<RunRecord> = {}): RunRecord => ({
  runId: "r1",
  agentType: "Echo",
  status: "starting",
  revision: 1,
  startedAt: 100,
  updatedAt: 100,
  displayOrder: 0,
  input: { query: "x" },
  startAcknowledged: false,
  lastSequence: 0,
  ...fields,
});

describe("applyRunPatch", () => {
  it("replaces the patched fields in place, removes those set to undefined and adds the new ones after", () => {
    const next = applyRunPatch(row(), {
      status: "completed",
      revision: 2,
      input: undefined,
      summary: "done",
      error: undefined,
    });
    expect(next).toEqual({ ...row({ status: "completed", revision: 2, summary: "done" }), input: undefined });
    expect("input" in next).toBe(false);
    expect("error" in next).toBe(false);
    expect(Object.keys(next)).toEqual([
      "runId",
      "agentType",
      "status",
      "revision",
      "startedAt",
      "updatedAt",
      "displayOrder",
      "startAcknowledged",
      "lastSequence",
      "summary",
    ]);
  });

  it("never changes runId, and leaves the row and the patch as they were", () => {
    const before = row({ meta: { a: { n: 1 } } });
    const patch = { runId: "other", meta: { b: 2 }, lastSequence: 3 };
    const next = applyRunPatch(before, patch);
    expect(next.runId).toBe("r1");
    expect(next.meta).toEqual({ a: { n: 1 }, b: 2 });
    expect(before).toEqual(row({ meta: { a: { n: 1 } } }));
    expect(patch).toEqual({ runId: "other", meta: { b: 2 }, lastSequence: 3 });
    expect(next).not.toBe(before);
    expect(next.meta).not.toBe(before.meta);
  });

  it("merges meta and attention per key: a key set to undefined is removed, an attention left empty is removed", () => {
    const before = row({ meta: { one: 1, two: 2, runId: "kept apart" }, attention: { finish: true } });
    const next = applyRunPatch(before, {
      meta: { one: undefined, three: 3, runId: "a meta key like any other" },
      attention: { finish: undefined },
    });
    expect(next.meta).toEqual({ two: 2, runId: "a meta key like any other", three: 3 });
    expect(Object.keys(next.meta ?? {})).toEqual(["two", "runId", "three"]);
    expect("attention" in next).toBe(false);
    const marked = applyRunPatch(row(), { attention: { detached: true, finish: undefined } });
    expect(marked.attention).toEqual({ detached: true });
  });

  it("keeps a key such as __proto__ (which JSON can hold) as an ordinary own field", () => {
    const before = JSON.parse('{"runId":"r1","status":"running","meta":{"__proto__":{"x":1}}}') as RunRecord;
    const next = applyRunPatch(before, JSON.parse('{"meta":{"__proto__":{"x":2}},"__proto__":{"y":1}}'));
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(next.meta)).toBe(Object.prototype);
    expect(JSON.stringify(next)).toBe(
      '{"runId":"r1","status":"running","meta":{"__proto__":{"x":2}},"__proto__":{"y":1}}',
    );
  });
});
