import type { UIMessageChunk } from "ai";
import { type CompletedSteps, completedSteps } from "./assemble-message.js";
import type { Clock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import {
  AGENT_MILESTONE_PART,
  type AgentToolMilestone,
  type AgentToolUsage,
  readMilestoneChunk,
  readOwnUsage,
  readStepResetChunk,
  readUsageChunk,
  stepResetChunk,
} from "./protocol/index.js";
import type { RunRecord } from "./run-record.js";
import { type PendingToolCall, planTurnRecovery } from "./turn-recovery-plan.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

/** The error a run ends with when its cut-off turn cannot be resumed. */
const INTERRUPTED_CHILD_ERROR = "interrupted before the child could finish";

/** Default `maxRecoveryAttempts`. */
export const DEFAULT_MAX_RECOVERY_ATTEMPTS = 3;

/**
 * A step the cut turn had not finished but is kept (the model had decided tool calls in it): the chunks of it that
 * stay (written again after the step reset), and the calls with no result yet, which the resumed turn runs again
 * before it writes the step's `finish-step` and goes on.
 */
export type OpenStep = { chunks: UIMessageChunk[]; pendingToolCalls: PendingToolCall[] };

/** What a resumed turn starts from: the log's last sequence, its milestones, and the steps the cut turn completed. */
export type ResumePlan = {
  lastSequence: number;
  milestones: AgentToolMilestone[];
  /** The run's own usage as its log last recorded it (a resumed turn's budget goes on from it). */
  usage?: AgentToolUsage;
  completed: CompletedSteps;
  /** The cut step, when it is kept rather than done again. */
  openStep: OpenStep | null;
};

export type TurnRecoveryOptions = {
  store: RunStore;
  clock: Clock;
  agentType: string;
  maxRecoveryAttempts: number;
  shouldKeepRecovering: (run: RunRecord) => boolean;
  /** True when the child can run a cut step's pending tool calls again (its definition has `getTools`). */
  canRunToolCalls: boolean;
  emit: RunEventSink["emit"];
};

/**
 * Recover a run left `running` with no turn here (the host was evicted or restarted mid-turn): count the attempt
 * and, within `maxRecoveryAttempts` and while `shouldKeepRecovering` agrees, read the log and hand the plan to
 * `resume` (which starts the turn again); otherwise end the run as `error` instead of leaving it `running` forever.
 * The attempt is claimed with the row's revision, so two wakes never both resume. Returns the run's row after.
 * @internal
 */
export async function recoverCutOffRun(
  options: TurnRecoveryOptions,
  record: RunRecord,
  resume: (claimed: RunRecord, plan: ResumePlan) => void,
  isLive: () => boolean,
): Promise<RunRecord | null> {
  const { store, clock } = options;
  const { runId } = record;
  const attempts = (record.recoveryAttempts ?? 0) + 1;
  let keepGoing = attempts <= options.maxRecoveryAttempts;
  if (keepGoing) {
    try {
      keepGoing = options.shouldKeepRecovering(record);
    } catch {
      keepGoing = false;
    }
  }
  const now = clock.now();
  options.emit({
    type: "agent_tool:child:recover",
    runId,
    agentType: options.agentType,
    attempt: attempts,
    outcome: keepGoing ? "resumed" : "gave-up",
    at: now,
  });
  if (!keepGoing) {
    const ended = await store.updateRun(
      runId,
      {
        status: "error",
        error: INTERRUPTED_CHILD_ERROR,
        revision: record.revision + 1,
        completedAt: now,
        updatedAt: now,
        recoveryAttempts: attempts,
      },
      { expectedRevision: record.revision },
    );
    return ended ?? (await store.getRun(runId));
  }
  const claimed = await store.updateRun(
    runId,
    { recoveryAttempts: attempts, updatedAt: now },
    { expectedRevision: record.revision },
  );
  if (!claimed) return store.getRun(runId);
  if (isLive()) return claimed;
  const { resetFrom, ...plan } = await planResume(store, runId, options.canRunToolCalls);
  if (resetFrom !== null) {
    // Written before the resumed turn starts (and before this wake answers): every reader that comes after it finds
    // the cut step voided, and a reader that holds some of it is told to drop it. A kept step is written again
    // after the reset, without what was still streaming in it.
    const at = clock.now();
    const bodies = [stepResetChunk(resetFrom), ...(plan.openStep?.chunks ?? [])];
    const entries = bodies.map((body, index) => ({ sequence: plan.lastSequence + 1 + index, body, at }));
    plan.lastSequence += entries.length;
    await store.appendLog(runId, entries);
  }
  resume(claimed, plan);
  return claimed;
}

/**
 * Read a cut-off run's log: where it ends, its milestones, the steps the cut turn completed, and — when the cut
 * turn had started a step it did not finish — the sequence the resumed turn's step reset voids from: the cut step's
 * first entry (milestones aside, which stay reached), and whether that step is kept (`openStep`: the model had decided
 * tool calls in it, and each has its result or can run again) or done again.
 */
async function planResume(
  store: RunStore,
  runId: string,
  canRunToolCalls: boolean,
): Promise<ResumePlan & { resetFrom: number | null }> {
  const entries = await store.readLog(runId);
  const milestones = entries.flatMap((entry) => {
    const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
    return milestone ? [milestone] : [];
  });
  let usage: AgentToolUsage | undefined;
  // The run's own share (a log from before it was recorded: the whole total).
  for (const entry of entries) usage = readOwnUsage(entry.body) ?? readUsageChunk(entry.body) ?? usage;
  const kept = omitVoidedEntries(entries);
  let lastFinish = -1;
  kept.forEach((entry, index) => {
    if (entry.body.type === "finish-step") lastFinish = index;
  });
  const unfinished = kept
    .slice(lastFinish + 1)
    .filter((entry) => entry.body.type !== AGENT_MILESTONE_PART && readStepResetChunk(entry.body) === null);
  const cut = planTurnRecovery(unfinished.map((entry) => entry.body));
  const isKept = cut.isStepOpen && (cut.pendingToolCalls.length === 0 || canRunToolCalls);
  return {
    lastSequence: entries.at(-1)?.sequence ?? 0,
    milestones,
    ...(usage !== undefined ? { usage } : {}),
    completed: await completedSteps(entries, runId),
    resetFrom: unfinished[0]?.sequence ?? null,
    openStep: isKept ? { chunks: cut.keep, pendingToolCalls: cut.pendingToolCalls } : null,
  };
}
