// The run lifecycle's rules, tested as data: rows and outcomes in, decisions out.
import { describe, expect, it } from "vitest";
import type { AgentToolRunInspection } from "../protocol/index.js";
import type { AgentToolRunOutcome } from "./registry-options.js";
import { planReplay } from "./replay-runs.js";
import {
  type AdmissionInput,
  childOutcome,
  decideAdmission,
  decideTerminal,
  isCollectable,
  isFinishHookPending,
  isReattachable,
  needsStart,
  startAcknowledgedPatch,
} from "./run-machine.js";
import type { RunRecord } from "./run-record.js";
import { nextTailRetry } from "./tail-retry-policy.js";

const row = (fields: Partial<RunRecord> = {}): RunRecord => ({
  runId: "r1",
  agentType: "Echo",
  status: "running",
  revision: 2,
  startedAt: 100,
  updatedAt: 100,
  displayOrder: 0,
  lastSequence: 4,
  startAcknowledged: true,
  ...fields,
});

const admission = (fields: Partial<AdmissionInput> = {}): AdmissionInput => ({
  runId: "r1",
  agentType: "Echo",
  existing: null,
  request: { input: "hello", parentToolCallId: "call-1", displayOrder: 2 },
  inputBytes: 7,
  maxInputBytes: 1024,
  slotsInUse: 0,
  maxConcurrent: Number.POSITIVE_INFINITY,
  overCap: "record",
  now: 500,
  ...fields,
});

describe("decideAdmission", () => {
  it("creates a starting run that keeps its input until the child acknowledges start", () => {
    expect(decideAdmission(admission())).toEqual({
      kind: "create",
      record: {
        runId: "r1",
        agentType: "Echo",
        status: "starting",
        revision: 1,
        startedAt: 500,
        updatedAt: 500,
        displayOrder: 2,
        inputPreview: "hello",
        input: "hello",
        startAcknowledged: false,
        lastSequence: 0,
        parentToolCallId: "call-1",
      },
    });
  });

  it("is idempotent by runId: an existing row is returned, re-attached only when its child may run", () => {
    for (const [existing, reattach] of [
      [row({ status: "running" }), true],
      [row({ status: "starting" }), true],
      [row({ status: "completed" }), false],
      [row({ status: "interrupted", childStillRunning: true }), true],
      [row({ status: "interrupted" }), true],
      [row({ status: "interrupted", childStillRunning: false }), false],
    ] as const) {
      expect(decideAdmission(admission({ existing, inputBytes: null }))).toEqual({
        kind: "existing",
        record: existing,
        reattach,
      });
    }
  });

  it("rejects another agentType for a known runId, unserializable and oversized input", () => {
    expect(decideAdmission(admission({ existing: row({ agentType: "Other" }) }))).toMatchObject({
      kind: "reject",
      rejection: "agent-type-mismatch",
    });
    expect(decideAdmission(admission({ inputBytes: null }))).toMatchObject({
      kind: "reject",
      rejection: "invalid-input",
    });
    expect(decideAdmission(admission({ inputBytes: 1025 }))).toEqual({
      kind: "reject",
      rejection: "input-too-large",
      error: "The input is 1025 bytes, over maxAgentToolInputBytes (1024)",
    });
    expect(decideAdmission(admission({ inputBytes: 1024 })).kind).toBe("create");
  });

  it("over the cap: recorded as error (revision 2, no input), or refused with no row", () => {
    const over = { slotsInUse: 2, maxConcurrent: 2 };
    const recorded = decideAdmission(admission(over));
    expect(recorded).toMatchObject({
      kind: "create-refused",
      error: "maxConcurrentAgentTools (2) exceeded",
      record: { status: "error", revision: 2, completedAt: 500, endCause: "max-concurrency" },
    });
    expect(recorded.kind === "create-refused" && "input" in recorded.record).toBe(false);
    expect(decideAdmission(admission({ ...over, overCap: "refuse" }))).toMatchObject({
      kind: "reject",
      rejection: "max-concurrency",
    });
    expect(decideAdmission(admission({ slotsInUse: 1, maxConcurrent: 2 })).kind).toBe("create");
  });

  it("keeps what extensions add: detached and their meta", () => {
    const decision = decideAdmission(
      admission({ request: { input: 1, detached: true, meta: { detached: { version: 1 } } } }),
    );
    expect(decision).toMatchObject({ kind: "create", record: { detached: true, meta: { detached: { version: 1 } } } });
  });
});

describe("start and re-attach", () => {
  it("starts a run whose child never acknowledged start, unless it is hard-terminal", () => {
    const unacknowledged = row({ status: "starting", revision: 1, startAcknowledged: false, input: "x" });
    expect(needsStart(unacknowledged)).toBe(true);
    expect(needsStart({ ...unacknowledged, status: "interrupted" })).toBe(true);
    expect(needsStart({ ...unacknowledged, status: "aborted" })).toBe(false);
    expect(needsStart(row())).toBe(false);
  });

  it("acknowledging drops the input; starting becomes running, interrupted stays until repaired", () => {
    expect(startAcknowledgedPatch(row({ status: "starting", revision: 1 }), 900)).toEqual({
      status: "running",
      revision: 2,
      startAcknowledged: true,
      input: undefined,
      updatedAt: 900,
    });
    expect(startAcknowledgedPatch(row({ status: "interrupted", revision: 3 }), 900)).toMatchObject({
      status: "interrupted",
      revision: 4,
    });
  });

  it("re-attaches live runs and soft-interrupted ones whose child may still run", () => {
    expect(isReattachable(row({ status: "running" }))).toBe(true);
    expect(isReattachable(row({ status: "interrupted", childStillRunning: true }))).toBe(true);
    expect(isReattachable(row({ status: "interrupted", childStillRunning: false }))).toBe(false);
    expect(isReattachable(row({ status: "error" }))).toBe(false);
  });
});

describe("decideTerminal", () => {
  const context = { now: 1_000, hasFinishHook: true };
  const completed: AgentToolRunOutcome = { status: "completed", summary: "done", cause: "child" };

  it("a live run's first terminal: a new revision, the ledger left for the hook", () => {
    const decision = decideTerminal(row(), completed, { ...context, followed: { lastSequence: 9 } });
    expect(decision).toEqual({
      kind: "transition",
      previousStatus: "running",
      patch: {
        status: "completed",
        revision: 3,
        completedAt: 1_000,
        updatedAt: 1_000,
        lastSequence: 9,
        summary: "done",
        output: undefined,
        error: undefined,
        reason: undefined,
        endCause: "child",
        childStillRunning: undefined,
      },
    });
  });

  it("settles the ledger in the same write when there is no finish hook", () => {
    const decision = decideTerminal(row(), completed, { ...context, hasFinishHook: false });
    expect(decision.kind === "transition" && decision.patch.finishNotifiedRevision).toBe(3);
  });

  it("never changes a hard terminal", () => {
    for (const status of ["completed", "error", "aborted"] as const) {
      expect(decideTerminal(row({ status }), completed, context)).toEqual({ kind: "keep" });
    }
  });

  it("a second soft outcome is quiet: only what the parent knows of the child changes", () => {
    const interrupted = row({ status: "interrupted", reason: "no-progress", childStillRunning: true, revision: 3 });
    expect(
      decideTerminal(
        interrupted,
        { status: "interrupted", reason: "budget-exceeded", childStillRunning: false, error: "torn down" },
        context,
      ),
    ).toEqual({ kind: "quiet", patch: { updatedAt: 1_000, childStillRunning: false } });
  });

  it("a real result repairs interrupted: reason and childStillRunning are cleared", () => {
    const interrupted = row({ status: "interrupted", reason: "no-progress", childStillRunning: true, revision: 3 });
    const decision = decideTerminal(interrupted, completed, context);
    expect(decision).toMatchObject({
      kind: "transition",
      previousStatus: "interrupted",
      patch: { status: "completed", revision: 4, reason: undefined, childStillRunning: undefined },
    });
  });

  it("keeps the input only on a soft outcome of a run that may still be started", () => {
    const unacknowledged = row({ status: "starting", revision: 1, startAcknowledged: false, input: "x" });
    const soft = decideTerminal(unacknowledged, { status: "interrupted", reason: "no-progress" }, context);
    expect(soft.kind === "transition" && "input" in soft.patch).toBe(false);
    const hard = decideTerminal(unacknowledged, { status: "error", error: "boom" }, context);
    expect(hard.kind === "transition" && "input" in hard.patch && hard.patch.input === undefined).toBe(true);
  });

  it("records the latest progress: the outcome's, else what the parent followed", () => {
    const followed = { lastSequence: 2, progress: { fraction: 0.5, at: 10 } };
    const mine = decideTerminal(row(), completed, { ...context, followed });
    expect(mine.kind === "transition" && mine.patch.progress).toEqual({ fraction: 0.5, at: 10 });
    const theirs = decideTerminal(row(), { ...completed, progress: { fraction: 1, at: 20 } }, { ...context, followed });
    expect(theirs.kind === "transition" && theirs.patch.progress).toEqual({ fraction: 1, at: 20 });
    // The row's own lastSequence never goes back.
    expect(theirs.kind === "transition" && theirs.patch.lastSequence).toBe(4);
  });
});

describe("the child's result and the finish ledger", () => {
  const inspection = (fields: Partial<AgentToolRunInspection>): AgentToolRunInspection => ({
    runId: "r1",
    status: "completed",
    milestones: [],
    lastSequence: 5,
    startedAt: 1,
    ...fields,
  });

  it("takes the child's outcome from its inspection (a child never reports interrupted)", () => {
    expect(childOutcome(inspection({ summary: "s", output: { n: 1 } }))).toEqual({
      status: "completed",
      summary: "s",
      output: { n: 1 },
      cause: "child",
    });
    expect(childOutcome(inspection({ status: "running" }))).toMatchObject({ status: "error" });
  });

  it("collects a finished child only once the parent holds its whole log", () => {
    expect(isCollectable(inspection({}), 5)).toBe(true);
    expect(isCollectable(inspection({}), 4)).toBe(false);
    expect(isCollectable(inspection({ status: "running" }), 5)).toBe(false);
    expect(isCollectable(null, 5)).toBe(false);
  });

  it("says a finish hook is pending until the ledger reaches the terminal revision", () => {
    expect(isFinishHookPending(row({ status: "completed", revision: 3 }))).toBe(true);
    expect(isFinishHookPending(row({ status: "completed", revision: 3, finishNotifiedRevision: 3 }))).toBe(false);
    expect(isFinishHookPending(row({ status: "completed", revision: 4, finishNotifiedRevision: 3 }))).toBe(true);
    expect(isFinishHookPending(row({ status: "running" }))).toBe(false);
  });
});

describe("nextTailRetry", () => {
  const policy = { firstDelayMs: 250, maxDelayMs: 10_000, budgetMs: 60_000 };

  it("pauses, doubling from the first delay to the max, within the budget", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((failedAttempts) =>
      nextTailRetry(policy, { failedAttempts, quietSince: 0 }, 0),
    );
    expect(delays.map((decision) => (decision.kind === "retry" ? decision.delayMs : -1))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
  });

  it("never pauses past the budget, and gives up once the child was silent for all of it", () => {
    expect(nextTailRetry(policy, { failedAttempts: 9, quietSince: 0 }, 55_000)).toEqual({
      kind: "retry",
      delayMs: 5_000,
    });
    expect(nextTailRetry(policy, { failedAttempts: 9, quietSince: 0 }, 60_000)).toEqual({ kind: "give-up" });
    expect(nextTailRetry(policy, { failedAttempts: 1, quietSince: 50_000 }, 60_000)).toMatchObject({
      kind: "retry",
    });
  });
});

describe("planReplay", () => {
  const progress = { fraction: 0.3, at: 5 };

  it("sends everything to a client with no cursor", () => {
    expect(planReplay(row({ status: "completed", revision: 3 }), undefined, progress)).toEqual({
      started: true,
      afterSequence: 0,
      progress: true,
      terminal: true,
    });
  });

  it("always sends a live run's progress: the client cannot say which it holds", () => {
    expect(planReplay(row(), { sequence: 4, revision: 2 }, progress)).toEqual({
      started: false,
      afterSequence: 4,
      progress: true,
      terminal: false,
    });
  });

  it("sends a finished run's progress with its terminal only", () => {
    const finished = row({ status: "completed", revision: 3 });
    expect(planReplay(finished, { sequence: 4, revision: 2 }, progress)).toMatchObject({
      progress: true,
      terminal: true,
    });
    expect(planReplay(finished, { sequence: 4, revision: 3 }, progress)).toMatchObject({
      progress: false,
      terminal: false,
    });
  });

  it("sends started to a client that knows a run only from its chunks", () => {
    expect(planReplay(row(), { sequence: 4, revision: 0 }, undefined)).toMatchObject({ started: true });
  });
});
