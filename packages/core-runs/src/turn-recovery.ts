import { type CompletedSteps, completedSteps } from "./assemble-message.js";
import type { Clock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import { type AgentToolMilestone, readMilestoneChunk } from "./protocol/index.js";
import type { RunRecord } from "./run-record.js";

/** The error a run ends with when its cut-off turn cannot be resumed. */
export const INTERRUPTED_CHILD_ERROR = "interrupted before the child could finish";

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
  resume(claimed, await planResume(store, runId));
  return claimed;
}

/** Read a cut-off run's log: where it ends, its milestones, and the steps the cut turn completed. */
async function planResume(store: RunStore, runId: string): Promise<ResumePlan> {
  const entries = await store.readLog(runId);
  const milestones = entries.flatMap((entry) => {
    const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
    return milestone ? [milestone] : [];
  });
  return {
    lastSequence: entries.at(-1)?.sequence ?? 0,
    milestones,
    completed: await completedSteps(entries, runId),
  };
}
