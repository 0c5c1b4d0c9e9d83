import { type CompletedSteps, completedSteps } from "./assemble-message.js";
import type { Clock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import {
  AGENT_MILESTONE_PART,
  type AgentToolMilestone,
  readMilestoneChunk,
  readStepResetChunk,
  stepResetChunk,
} from "./protocol/index.js";
import type { RunRecord } from "./run-record.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

/** The error a run ends with when its cut-off turn cannot be resumed. */
const INTERRUPTED_CHILD_ERROR = "interrupted before the child could finish";

/** Default `maxRecoveryAttempts`. */
export const DEFAULT_MAX_RECOVERY_ATTEMPTS = 3;

/** What a resumed turn starts from: the log's last sequence, its milestones, and the steps the cut turn completed. */
export type ResumePlan = {
  lastSequence: number;
  milestones: AgentToolMilestone[];
  completed: CompletedSteps;
};

export type TurnRecoveryOptions = {
  store: RunStore;
  clock: Clock;
  agentType: string;
  maxRecoveryAttempts: number;
  shouldKeepRecovering: (run: RunRecord) => boolean;
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
  const { resetFrom, ...plan } = await planResume(store, runId);
  if (resetFrom !== null) {
    // Written before the resumed turn starts (and before this wake answers): every reader that comes after it finds
    // the cut step voided, and a reader that holds some of it is told to drop it.
    plan.lastSequence += 1;
    await store.appendLog(runId, [{ sequence: plan.lastSequence, body: stepResetChunk(resetFrom), at: clock.now() }]);
  }
  resume(claimed, plan);
  return claimed;
}

/**
 * Read a cut-off run's log: where it ends, its milestones, the steps the cut turn completed, and — when the cut
 * turn had started a step it did not finish — the sequence the resumed turn's step reset voids from: the cut step's
 * first entry (milestones aside, which stay reached).
 */
async function planResume(store: RunStore, runId: string): Promise<ResumePlan & { resetFrom: number | null }> {
  const entries = await store.readLog(runId);
  const milestones = entries.flatMap((entry) => {
    const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
    return milestone ? [milestone] : [];
  });
  const kept = omitVoidedEntries(entries);
  let lastFinish = -1;
  kept.forEach((entry, index) => {
    if (entry.body.type === "finish-step") lastFinish = index;
  });
  const unfinished = kept
    .slice(lastFinish + 1)
    .find((entry) => entry.body.type !== AGENT_MILESTONE_PART && readStepResetChunk(entry.body) === null);
  return {
    lastSequence: entries.at(-1)?.sequence ?? 0,
    milestones,
    completed: await completedSteps(entries, runId),
    resetFrom: unfinished?.sequence ?? null,
  };
}
