import type { UIMessageChunk } from "ai";
import type { AgentToolChildDefinition } from "./child-definition.js";
import type { LiveRun } from "./live-run.js";
import type { Clock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import {
  type AgentToolApproval,
  type AgentToolApprovalAnswer,
  type AgentToolApprovalStatus,
  type AgentToolTailItem,
  approvalChunk,
} from "./protocol/index.js";
import type { RunRecord, RunRecordPatch } from "./run-record.js";
import type { JournaledCall, JournalFold } from "./turn/journal-fold.js";

/** What a runner's approvals need from it. */
export type RunApprovalsHost = {
  readonly store: RunStore;
  readonly clock: Clock;
  readonly agentType: string;
  readonly definition: AgentToolChildDefinition;
  emit: RunEventSink["emit"];
  live(runId: string): LiveRun | undefined;
  /** Go on with a run whose last approval was answered: its turn, from its log (the path a cut turn takes). */
  continueTurn(runId: string, live: LiveRun): Promise<void>;
};

/** The answer an expired approval gets. */
const EXPIRED_ANSWER: AgentToolApprovalAnswer = {
  approved: false,
  reason: "The approval request expired: nobody answered it in time",
};

/**
 * The run's turn waits for answers to `waiting` (journaled in its log by the turn engine): it pauses. The row says so
 * (read by an inspection, and by the host's alarm for expiry); the log stays the truth a restart reads.
 */
export async function pauseRun(
  host: RunApprovalsHost,
  record: RunRecord,
  waiting: readonly JournaledCall[],
  fold: JournalFold,
): Promise<void> {
  const live = host.live(record.runId);
  if (!live) return;
  const now = host.clock.now();
  // An approval answered since the turn ended (its answer is journaled) no longer waits.
  const approvals = waiting.flatMap((call): AgentToolApproval[] => {
    const approvalId = call.approval?.approvalId;
    const known =
      approvalId === undefined ? undefined : (live.approvals.get(approvalId) ?? fold.approvals.get(approvalId));
    return known?.status === "pending" ? [known] : [];
  });
  live.paused = { approvals };
  if (approvals.length === 0) {
    await host.continueTurn(record.runId, live);
    return;
  }
  await live.log.settled();
  try {
    await host.store.updateRun(record.runId, {
      awaitingApproval: approvals,
      lastSequence: live.log.lastSequence,
      usage: live.budget.total(),
      updatedAt: now,
    });
  } catch {
    // The log holds the requests: a restart pauses the run again from it.
  }
  host.emit({
    type: "agent_tool:child:approval",
    runId: record.runId,
    agentType: host.agentType,
    pending: approvals.length,
    at: now,
  });
}

/**
 * Answer an approval a paused run waits for (else — through `definition.onApprovalAnswer` — one asked below it).
 * Ordering invariant: the answer is journaled (durable) before the turn acts on it; with none left waiting, the turn
 * goes on from its log, as after a cut. Resolves whether the approval was found.
 */
export async function answerRunApproval(
  host: RunApprovalsHost,
  runId: string,
  approvalId: string,
  answer: AgentToolApprovalAnswer,
  status: Exclude<AgentToolApprovalStatus, "pending">,
): Promise<boolean> {
  const live = host.live(runId);
  // Its own approval (asked by its turn, `path` empty), pending: paused for it, or still streaming the step that asked.
  const approval =
    live?.paused?.approvals.find((candidate) => candidate.approvalId === approvalId) ??
    ownPending(live?.approvals.get(approvalId));
  if (!live || !approval) {
    if (!host.definition.onApprovalAnswer) return false;
    try {
      return await host.definition.onApprovalAnswer(runId, approvalId, answer);
    } catch {
      return false;
    }
  }
  const now = host.clock.now();
  const { reason } = answer;
  const response = { type: "tool-approval-response", approvalId, approved: answer.approved } as UIMessageChunk;
  // The SDK's answer and its state for every reader, in one write: a stop never keeps one without the other.
  live.appendAll([
    reason !== undefined ? ({ ...response, reason } as UIMessageChunk) : response,
    approvalChunk({ ...approval, status, ...(reason !== undefined ? { reason } : {}), at: now }),
  ]);
  await live.log.durable();
  // A turn still streaming finds the answer in the journal when its stream ends, and goes on.
  if (!live.paused) return true;
  const remaining = live.paused.approvals.filter((candidate) => candidate.approvalId !== approvalId);
  live.paused = { approvals: remaining };
  try {
    await host.store.updateRun(runId, {
      awaitingApproval: remaining,
      lastSequence: live.log.lastSequence,
      updatedAt: now,
    });
  } catch {
    // The row only mirrors the log: the log holds the answer.
  }
  if (remaining.length === 0) await host.continueTurn(runId, live);
  return true;
}

/** `approval` when it is a run's own (not one re-published from below) and pending. */
function ownPending(approval: AgentToolApproval | undefined): AgentToolApproval | undefined {
  return approval !== undefined && approval.path.length === 0 && approval.status === "pending" ? approval : undefined;
}

/** Deny every approval a paused run here waited for longer than `timeoutMs` (status `expired`). */
export async function expireRunApprovals(
  host: RunApprovalsHost,
  lives: Iterable<LiveRun>,
  timeoutMs: number,
): Promise<number> {
  const now = host.clock.now();
  let expired = 0;
  for (const live of [...lives]) {
    for (const approval of live.paused?.approvals ?? []) {
      if (now - approval.at < timeoutMs) continue;
      if (await answerRunApproval(host, live.runId, approval.approvalId, EXPIRED_ANSWER, "expired")) expired += 1;
    }
  }
  return expired;
}

/** When the earliest approval a paused run here waits for expires under `timeoutMs` (`null`: none waits). */
export function earliestApprovalDeadline(lives: Iterable<LiveRun>, timeoutMs: number): number | null {
  let earliest: number | null = null;
  for (const live of lives) {
    for (const approval of live.paused?.approvals ?? []) {
      const due = approval.at + timeoutMs;
      if (earliest === null || due < earliest) earliest = due;
    }
  }
  return earliest;
}

/** A paused run is cancelled: it ends `aborted`, what it asked for closed as denied, every tail told. */
export async function endPausedRun(
  host: RunApprovalsHost & {
    ended(runId: string, live: LiveRun): void;
    terminal(record: RunRecord): AgentToolTailItem;
  },
  live: LiveRun,
  reason: string,
): Promise<void> {
  const { runId } = live;
  const record = await host.store.getRun(runId);
  if (!record || host.live(runId) !== live) return;
  const now = host.clock.now();
  for (const approval of live.paused?.approvals ?? []) {
    live.append(approvalChunk({ ...approval, status: "denied", reason, at: now }));
  }
  live.log.finish();
  await live.log.settled();
  const patch: RunRecordPatch = {
    status: "aborted",
    revision: record.revision + 1,
    completedAt: now,
    updatedAt: now,
    lastSequence: live.log.lastSequence,
    error: reason,
    awaitingApproval: [],
    usage: live.budget.total(),
  };
  let final = { ...record, ...patch } as RunRecord;
  try {
    final = (await host.store.updateRun(runId, patch)) ?? final;
  } catch {
    // The terminal is still delivered to live tails.
  }
  host.ended(runId, live);
  live.log.deliverFinal(host.terminal(final));
}
