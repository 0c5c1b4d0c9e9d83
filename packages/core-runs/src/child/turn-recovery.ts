import { AgentToolsError } from "../errors.js";
import { omitVoidedEntries } from "../log/voided-entry-filter.js";
import type { Clock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import { readMilestoneChunk } from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import { foldJournal, type JournalEntry } from "../turn/journal-fold.js";
import type { LiveRunStart } from "./live-run.js";

/** The error a run ends with when its cut-off turn cannot be resumed. */
const INTERRUPTED_CHILD_ERROR = "interrupted before the child could finish";

/** Default `maxRecoveryAttempts`. */
export const DEFAULT_MAX_RECOVERY_ATTEMPTS = 3;

export type TurnRecoveryOptions = {
  store: RunStore;
  clock: Clock;
  agentType: string;
  maxRecoveryAttempts: number;
  shouldKeepRecovering: (run: RunRecord) => boolean;
  emit: RunEventSink["emit"];
};

/** What a runner's recovery is made from. */
type RecoverySettings = {
  store: RunStore;
  clock: Clock;
  agentType: string;
  maxRecoveryAttempts?: number;
  shouldKeepRecovering?: (run: RunRecord) => boolean;
  emit: RunEventSink["emit"];
};

/** Always resume a cut-off run (within the attempts): the default `shouldKeepRecovering`. */
const ALWAYS_KEEP_RECOVERING = () => true;

/**
 * Check a runner's recovery options when the runner is made: `maxRecoveryAttempts` must be a whole number ≥ 0.
 * Returns it (default 3).
 * @internal
 */
export function checkRecoveryOptions(options: { maxRecoveryAttempts?: number }): number {
  const maxRecoveryAttempts = options.maxRecoveryAttempts ?? DEFAULT_MAX_RECOVERY_ATTEMPTS;
  if (!Number.isSafeInteger(maxRecoveryAttempts) || maxRecoveryAttempts < 0) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `AgentToolChildRunner: maxRecoveryAttempts must be a whole number ≥ 0, got ${maxRecoveryAttempts}`,
    );
  }
  return maxRecoveryAttempts;
}

/**
 * The options of a runner's recovery, checked (see `checkRecoveryOptions`), with their defaults.
 * @internal
 */
export function recoveryOptions(options: RecoverySettings): TurnRecoveryOptions {
  const { store, clock, agentType, emit } = options;
  return {
    store,
    clock,
    agentType,
    maxRecoveryAttempts: checkRecoveryOptions(options),
    shouldKeepRecovering: options.shouldKeepRecovering ?? ALWAYS_KEEP_RECOVERING,
    emit,
  };
}

/**
 * A run's journal, read when the run is made live again: its entries (void ones left out) and what its live run
 * starts from — where the log ends, its milestones, its own usage as last recorded, the approvals it holds.
 * @internal
 */
export async function readRunJournal(
  store: RunStore,
  record: RunRecord,
): Promise<{ entries: JournalEntry[]; start: LiveRunStart }> {
  const stored = await store.readLog(record.runId);
  const entries = omitVoidedEntries(stored);
  const milestones = stored.flatMap((entry) => {
    const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
    return milestone ? [milestone] : [];
  });
  const fold = foldJournal(entries);
  return {
    entries,
    start: {
      lastSequence: Math.max(record.lastSequence, stored.at(-1)?.sequence ?? 0),
      milestones,
      ...(fold.usage !== undefined ? { usage: fold.usage } : {}),
      approvals: fold.approvals.values(),
    },
  };
}

/**
 * Count an attempt to go on with a run left `running` with no turn here (the host was evicted or restarted
 * mid-turn), before the resumed turn does any work: within `maxRecoveryAttempts` and while `shouldKeepRecovering`
 * agrees, the attempt is claimed with the row's revision (two wakes never both resume) and the claimed row returned;
 * otherwise the run ends as `error` instead of staying `running` forever, and `null` is returned (as it is when
 * another wake claimed it first).
 * @internal
 */
export async function claimRecovery(options: TurnRecoveryOptions, record: RunRecord): Promise<RunRecord | null> {
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
    await store.updateRun(
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
    return null;
  }
  return store.updateRun(runId, { recoveryAttempts: attempts, updatedAt: now }, { expectedRevision: record.revision });
}
