// The run lifecycle as data: every rule of the registry's status machine is a pure function of rows, outcomes and
// the time. The registry's drivers and writers apply these decisions to the store; tests check them as data.

import {
  type AgentToolProgressSnapshot,
  type AgentToolRunInspection,
  type AgentToolTraceContext,
  type AgentToolTree,
  type DispatchRejection,
  definedProps,
  isHardTerminalStatus,
  isLiveStatus,
  isTerminalStatus,
  type RunStatus,
  type TerminalRunStatus,
  treeDepth,
} from "../protocol/index.js";
import { makeInputPreview } from "./input-preview.js";
import type { AgentToolRunOutcome, RunAgentToolOptions } from "./registry-options.js";
import type { RunRecord, RunRecordPatch } from "./run-record.js";

/** A terminal row, as the machine hands it on. */
export type TerminalRunRecord = RunRecord & { status: TerminalRunStatus };

/** What a dispatch asks for (the registry's dispatch options, plus what extension packages add). */
export type AdmissionRequest = Omit<RunAgentToolOptions, "signal" | "onFrame"> & {
  detached?: boolean;
  meta?: Record<string, unknown>;
  /** The trace context the run continues (asked of the registry's `traceContext` once the run is admitted). */
  trace?: AgentToolTraceContext;
};

/** Everything admission decides from. `existing` is the stored row for the runId, if any. */
export type AdmissionInput = {
  runId: string;
  agentType: string;
  existing: RunRecord | null;
  request: AdmissionRequest;
  /** The input's size as UTF-8 JSON; `null` when it cannot be serialized. */
  inputBytes: number | null;
  maxInputBytes: number;
  /** Runs holding a concurrency slot now. */
  slotsInUse: number;
  maxConcurrent: number;
  overCap: "record" | "refuse";
  now: number;
};

/**
 * The outcome of admitting a dispatch:
 * - `reject`: refused before any run exists (no row, no frame, no hook);
 * - `existing`: the runId is known; `reattach` says whether its child should be followed (live, or soft-interrupted
 *   with a child that may still run);
 * - `create`: a new run, `starting`, holding a slot;
 * - `create-refused`: over the cap with `overCap: "record"`: recorded as `error` (revision 2, no input), announced
 *   like any finished run, never started.
 */
export type AdmissionDecision =
  | { kind: "reject"; rejection: DispatchRejection; error: string }
  | { kind: "existing"; record: RunRecord; reattach: boolean }
  | { kind: "create"; record: RunRecord }
  | { kind: "create-refused"; record: RunRecord; error: string };

/** Idempotency by runId, input limits and the concurrency cap, in that order. */
export function decideAdmission(input: AdmissionInput): AdmissionDecision {
  const { runId, agentType, existing, request, now } = input;
  if (existing) {
    if (existing.agentType !== agentType) {
      return {
        kind: "reject",
        rejection: "agent-type-mismatch",
        error: `Run "${runId}" already exists for agent type "${existing.agentType}", not "${agentType}"`,
      };
    }
    return { kind: "existing", record: existing, reattach: isReattachable(existing) };
  }
  const overBudget = budgetRejection(request.tree, now);
  if (overBudget !== null) return { kind: "reject", rejection: "budget-exceeded", error: overBudget };
  if (input.inputBytes === null) {
    return { kind: "reject", rejection: "invalid-input", error: "The input cannot be serialized as JSON" };
  }
  if (input.inputBytes > input.maxInputBytes) {
    return {
      kind: "reject",
      rejection: "input-too-large",
      error: `The input is ${input.inputBytes} bytes, over maxAgentToolInputBytes (${input.maxInputBytes})`,
    };
  }
  const record: RunRecord = {
    runId,
    agentType,
    status: "starting",
    revision: 1,
    startedAt: now,
    updatedAt: now,
    displayOrder: request.displayOrder ?? 0,
    inputPreview: request.inputPreview ?? makeInputPreview(request.input),
    input: request.input,
    startAcknowledged: false,
    lastSequence: 0,
    ...definedProps({ parentToolCallId: request.parentToolCallId, display: request.display }),
    ...(request.detached ? { detached: true } : {}),
    ...definedProps({
      meta: request.meta,
      tree: request.tree === undefined ? undefined : countDispatch(request.tree),
      trace: request.trace,
      onParentCancel: request.onParentCancel,
    }),
  };
  // The tree's budget may narrow the registry's own cap.
  const treeCap = request.tree?.budget?.maxConcurrent ?? Number.POSITIVE_INFINITY;
  const maxConcurrent = Math.min(input.maxConcurrent, treeCap);
  if (input.slotsInUse < maxConcurrent) return { kind: "create", record };
  const error =
    maxConcurrent < input.maxConcurrent
      ? `The budget's maxConcurrent (${maxConcurrent}) exceeded`
      : `maxConcurrentAgentTools (${input.maxConcurrent}) exceeded`;
  if (input.overCap === "refuse") return { kind: "reject", rejection: "max-concurrency", error };
  // Recorded as it went: starting → error (revision 2), without its input.
  const { input: _input, ...withoutInput } = record;
  return {
    kind: "create-refused",
    error,
    record: { ...withoutInput, status: "error", revision: 2, completedAt: now, error, endCause: "max-concurrency" },
  };
}

/**
 * Why a run of `tree` may not be dispatched now, by the budget its dispatcher has left (`tree.budget`, already
 * narrowed): too deep, no run left, no token or cost left, or past its deadline. `null` when it may.
 */
export function budgetRejection(tree: AgentToolTree | undefined, now: number): string | null {
  const budget = tree?.budget;
  if (!tree || !budget) return null;
  const depth = treeDepth(tree);
  if (budget.maxDepth !== undefined && depth > budget.maxDepth) {
    return `The budget allows runs ${budget.maxDepth} deep; this one would be ${depth} deep`;
  }
  if (budget.maxRuns !== undefined && budget.maxRuns < 1) return "The budget allows no more runs";
  if (budget.maxTokens !== undefined && budget.maxTokens <= 0) return "The budget has no tokens left";
  if (budget.maxCost !== undefined && budget.maxCost <= 0) return "The budget has no cost left";
  if (budget.deadline !== undefined && now >= budget.deadline) return "The budget's time ran out";
  return null;
}

/** A dispatched run's tree: the run counts against `maxRuns` (what is left is for the runs below it). */
function countDispatch(tree: AgentToolTree): AgentToolTree {
  const maxRuns = tree.budget?.maxRuns;
  return maxRuns === undefined ? tree : { ...tree, budget: { ...tree.budget, maxRuns: Math.max(0, maxRuns - 1) } };
}

/**
 * True when a row's child should be followed on re-dispatch or recovery: a live run, or an `interrupted` one whose
 * child may still be running (`childStillRunning` not known to be false).
 */
export function isReattachable(record: RunRecord): boolean {
  return isLiveStatus(record.status) || (record.status === "interrupted" && record.childStillRunning !== false);
}

/** True when the run's child never acknowledged `start` and may still be started from the input the parent kept. */
export function needsStart(record: RunRecord): boolean {
  return record.startAcknowledged !== true && record.input !== undefined && !isHardTerminalStatus(record.status);
}

/**
 * The write that records the child's acknowledgement of `start`: the parent drops the full input (it keeps the
 * preview) and a `starting` run becomes `running`; an `interrupted` run keeps its status until a real result
 * repairs it. Applied only if the row is still at `started.revision`.
 */
export function startAcknowledgedPatch(started: RunRecord, now: number): RunRecordPatch {
  return {
    status: started.status === "starting" ? "running" : started.status,
    revision: started.revision + 1,
    startAcknowledged: true,
    input: undefined,
    updatedAt: now,
  };
}

/**
 * What the parent followed of a run: the highest sequence it forwarded and the latest progress it saw; and, when the
 * child answered `start` and the acknowledgement is not written yet, the acknowledgement to write with the terminal
 * (applied only if the row is still at `revision`).
 */
export type FollowedPosition = {
  lastSequence: number;
  progress?: AgentToolProgressSnapshot | undefined;
  startAcknowledged?: { revision: number } | undefined;
};

/**
 * The decision for recording `outcome` on `current`:
 * - `keep`: a hard-terminal row never changes again;
 * - `quiet`: a second soft outcome (`interrupted` → `interrupted`) only updates what the parent knows of the child
 *   (`childStillRunning`): no new revision, frame or hook;
 * - `transition`: a new terminal revision (a repair from `interrupted` included), announced and hooked.
 */
export type TerminalDecision =
  | { kind: "keep" }
  | { kind: "quiet"; patch: RunRecordPatch }
  | { kind: "transition"; patch: RunRecordPatch; previousStatus: RunStatus };

export function decideTerminal(
  current: RunRecord,
  outcome: AgentToolRunOutcome,
  context: { now: number; hasFinishHook: boolean; followed?: FollowedPosition | undefined },
): TerminalDecision {
  if (isHardTerminalStatus(current.status)) return { kind: "keep" };
  const { now, followed } = context;
  if (current.status === "interrupted" && outcome.status === "interrupted") {
    return {
      kind: "quiet",
      patch: {
        updatedAt: now,
        ...(outcome.childStillRunning !== undefined ? { childStillRunning: outcome.childStillRunning } : {}),
      },
    };
  }
  const isHard = isHardTerminalStatus(outcome.status);
  const revision = current.revision + 1;
  const progress = outcome.progress ?? followed?.progress;
  const patch: RunRecordPatch = {
    status: outcome.status,
    revision,
    completedAt: now,
    updatedAt: now,
    lastSequence: Math.max(current.lastSequence, followed?.lastSequence ?? 0),
    summary: outcome.summary,
    output: outcome.output,
    error: outcome.error,
    reason: isHard ? undefined : outcome.reason,
    endCause: outcome.cause ?? "given-up",
    childStillRunning: isHard ? undefined : outcome.childStillRunning,
    // With no finish hook there is nothing to deliver: the ledger is settled in the same write.
    ...(context.hasFinishHook ? {} : { finishNotifiedRevision: revision }),
    ...definedProps({ progress, usage: outcome.usage }),
  };
  // The input stays only on a run whose child never acknowledged start and that may still be started (soft).
  if (!current.startAcknowledged && isHard) patch.input = undefined;
  return { kind: "transition", patch, previousStatus: current.status };
}

/** True when the finish ledger says `onAgentToolFinish` has not been called for the row's terminal revision. */
export function isFinishHookPending(record: RunRecord): record is TerminalRunRecord {
  return isTerminalStatus(record.status) && (record.finishNotifiedRevision ?? 0) < record.revision;
}

/** The ledger write after `onAgentToolFinish` was called for `record`'s revision. */
export function finishHookSettledPatch(record: RunRecord): RunRecordPatch {
  return { finishNotifiedRevision: record.revision };
}

/** The outcome recorded for a run the parent could not follow to its end (the child may still be running). */
export function notTailableOutcome(): AgentToolRunOutcome {
  return {
    status: "interrupted",
    reason: "not-tailable",
    childStillRunning: true,
    error: "The child's stream could not be followed to its end",
  };
}

/**
 * The outcome to record from a child's own terminal inspection (a child never reports `interrupted`; `running` here
 * means it ended without saying how, an error).
 */
export function childOutcome(inspection: AgentToolRunInspection): AgentToolRunOutcome {
  // A child its budget cut short gave what it had: interrupted, with its partial output.
  if (inspection.budgetExceeded !== undefined && inspection.status === "completed") {
    return {
      status: "interrupted",
      reason: "budget-exceeded",
      childStillRunning: false,
      error: `The budget ran out (${inspection.budgetExceeded}): the run gave what it had so far`,
      ...definedProps({
        summary: inspection.summary,
        output: inspection.output,
        usage: inspection.usage,
        progress: inspection.progress,
      }),
      cause: "child",
    };
  }
  return {
    status: inspection.status === "running" ? "error" : inspection.status,
    ...definedProps({
      usage: inspection.usage,
      summary: inspection.summary,
      output: inspection.output,
      error: inspection.error,
      progress: inspection.progress,
    }),
    cause: "child",
  };
}

/** True when an inspection shows the child ended the run and the parent holds its whole log. */
export function isCollectable(inspection: AgentToolRunInspection | null, lastSequence: number): boolean {
  return inspection !== null && inspection.status !== "running" && inspection.lastSequence <= lastSequence;
}
