import { AgentToolsError } from "../errors.js";
import type { WakeupScheduler } from "../ports/wakeup-scheduler.js";
import { type HardTerminalRunStatus, isHardTerminalStatus } from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { AgentToolRegistry } from "../registry/run-registry.js";

/**
 * How long a parent keeps the full logs of its finished runs (SPEC §10). Past either bound, a finished run's log is
 * compacted to its final message, milestones and result (`compactRunLog`): replay brings every client to the same
 * run as before, with fewer frames. Live and `interrupted` runs keep their full logs; cleared runs are deleted.
 * Neither bound given: logs are kept in full.
 */
export type RetainLogsPolicy = {
  /** Keep a finished run's full log this long after it finished (ms, ≥ 0). */
  maxAgeMs?: number;
  /** Keep full logs for at most this many finished runs (the newest by start, ≥ 0); older ones are compacted. */
  maxRuns?: number;
  /**
   * How long after a run finishes the pass that applies the bounds runs (ms, ≥ 0). Runs that finish close together
   * share a pass. Default 30 s.
   */
  settleMs?: number;
};

export type LogRetentionOptions = {
  policy: RetainLogsPolicy;
  /** Wakes the host for a pass, also after eviction: the host's one alarm (shared with detached runs). */
  scheduler: WakeupScheduler;
  /** The most runs one pass compacts; more are left to the next wake-up, asked for at once. Default 20. */
  batchSize?: number;
};

/** What one `tick()` did. */
export type LogRetentionReport = {
  /** Whether a pass was due and ran. */
  ran: boolean;
  compacted: number;
  /** Runs due for compaction that this pass left to the next one. */
  remaining: number;
  /** The wake-up armed for the next pass, or `null`. */
  nextPassAt: number | null;
};

/** Applies a parent's `retainLogs` policy in bounded passes, driven by the host's wake-up. */
export interface LogRetention {
  /** Ask for a first pass (call once at start-up: runs that fell due while the host was down). */
  start(): Promise<void>;
  /**
   * Run a pass if one is due (call from the host's wake-up, e.g. a Durable Object's `alarm()`): compact at most
   * `batchSize` runs, and arm the wake-up for what is left or falls due next. Never rejects.
   */
  tick(): Promise<LogRetentionReport>;
  /** Stop hearing of finished runs. */
  stop(): void;
}

/** Default `batchSize`: runs compacted per pass. */
export const DEFAULT_LOG_RETENTION_BATCH = 20;
/** Default `settleMs`: the pass after a run finishes waits this long (30 s). */
export const DEFAULT_LOG_RETENTION_SETTLE_MS = 30_000;

const HARD_TERMINAL: readonly HardTerminalRunStatus[] = ["completed", "error", "aborted"];

/**
 * Apply a parent's log retention policy (`RetainLogsPolicy`) to its registry's runs: a finished run's full log is
 * compacted once it is older than `maxAgeMs` or more than `maxRuns` finished runs keep theirs (oldest first).
 *
 * Work is bounded and never on a turn's path: a pass runs only from the host's wake-up (`tick()`), when one is due —
 * `settleMs` after a run finishes (and at start-up), at the next `maxAgeMs` expiry, or at once while a pass left runs behind — and
 * compacts at most `batchSize` runs. The first pass of a process lists the finished runs whose logs are still full
 * (one store query); it keeps that list up to date from then on, so later passes read only the runs they compact.
 *
 * @example
 * const retention = createLogRetention(registry, { policy: { maxRuns: 100 }, scheduler });
 * await retention.start();
 * // in the host's alarm():
 * await retention.tick();
 */
export function createLogRetention(registry: AgentToolRegistry, options: LogRetentionOptions): LogRetention {
  const policy = checkPolicy(options.policy);
  const batchSize = options.batchSize ?? DEFAULT_LOG_RETENTION_BATCH;
  const settleMs = policy.settleMs ?? DEFAULT_LOG_RETENTION_SETTLE_MS;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `createLogRetention: batchSize must be a whole number ≥ 1, got ${batchSize}`,
    );
  }
  const extension = registry.extension({ key: "logRetention", read: () => null });
  const { clock } = extension;
  const isOn = policy.maxAgeMs !== undefined || policy.maxRuns !== undefined;
  /** When the next pass is due (`null`: none asked for). */
  let dueAt: number | null = null;
  let passing: Promise<unknown> = Promise.resolve();
  /**
   * The finished runs whose logs are still full, once a pass has listed them (one store query per process), kept up
   * to date since: a finished run joins, a compacted (or gone) one leaves. Later passes read nothing to plan.
   */
  let full: Map<string, RunRecord> | null = null;

  const due = async (at: number) => {
    if (!isOn || (dueAt !== null && dueAt <= at)) return;
    dueAt = at;
    try {
      await options.scheduler.wakeAt(at);
    } catch {
      // not armed: the next finished run or start-up asks again
    }
  };

  // Not awaited: a run's result never waits for the wake-up to be armed (at most one arming per `settleMs`).
  const stopListening = extension.onRunFinished((record) => {
    if (!isOn || !isHardTerminalStatus(record.status)) return;
    full?.set(record.runId, record);
    void due(clock.now() + settleMs);
  });

  const pass = async (): Promise<LogRetentionReport> => {
    const now = clock.now();
    if (!isOn || dueAt === null) return { ran: false, compacted: 0, remaining: 0, nextPassAt: null };
    if (now < dueAt) {
      // Woken early (the alarm is shared, and a wake-up spends it): ask again for the pass's time.
      await options.scheduler.wakeAt(dueAt).catch(() => undefined);
      return { ran: false, compacted: 0, remaining: 0, nextPassAt: dueAt };
    }
    dueAt = null;
    const known = full ?? new Map((await extension.listRuns({ status: HARD_TERMINAL, log: "full" })).map(byId));
    full = known;
    const { compactable, nextExpiry } = planPass([...known.values()].sort(byStart), policy, now);
    let compacted = 0;
    let failed = 0;
    for (const record of compactable.slice(0, batchSize)) {
      try {
        // `false`: nothing to compact (cleared meanwhile, or an empty log): either way no longer a full log.
        if (await extension.compactLog(record.runId)) compacted += 1;
        known.delete(record.runId);
      } catch {
        failed += 1;
      }
    }
    const remaining = Math.max(0, compactable.length - batchSize);
    if (remaining > 0 || failed > 0) await due(now);
    else if (nextExpiry !== null) await due(nextExpiry);
    extension.emit({ type: "agent_tool:logs:compact", compacted, remaining, failed, at: clock.now() });
    return { ran: true, compacted, remaining, nextPassAt: dueAt };
  };

  return {
    start: () => due(clock.now() + settleMs),
    tick() {
      const run = passing
        .then(pass)
        .catch((): LogRetentionReport => ({ ran: true, compacted: 0, remaining: 0, nextPassAt: dueAt }));
      passing = run;
      return run;
    },
    stop: stopListening,
  };
}

/**
 * Which finished runs with full logs (oldest first) a pass compacts at `now`, and when the next one falls due by
 * age (`null`: none will). Pure.
 */
export function planPass(
  full: readonly RunRecord[],
  policy: RetainLogsPolicy,
  now: number,
): { compactable: RunRecord[]; nextExpiry: number | null } {
  const overCount = policy.maxRuns === undefined ? 0 : Math.max(0, full.length - policy.maxRuns);
  const compactable: RunRecord[] = [];
  let nextExpiry: number | null = null;
  for (const [index, record] of full.entries()) {
    const expiry = policy.maxAgeMs === undefined ? null : (record.completedAt ?? record.updatedAt) + policy.maxAgeMs;
    if (index < overCount || (expiry !== null && expiry <= now)) compactable.push(record);
    else if (expiry !== null) nextExpiry = nextExpiry === null ? expiry : Math.min(nextExpiry, expiry);
  }
  return { compactable, nextExpiry };
}

const byId = (record: RunRecord): [string, RunRecord] => [record.runId, record];

/** `listRuns`'s order: by `startedAt`, then `runId`. */
function byStart(left: RunRecord, right: RunRecord): number {
  if (left.startedAt !== right.startedAt) return left.startedAt - right.startedAt;
  return left.runId < right.runId ? -1 : left.runId > right.runId ? 1 : 0;
}

function checkPolicy(policy: RetainLogsPolicy): RetainLogsPolicy {
  const { maxAgeMs, maxRuns } = policy;
  if (maxAgeMs !== undefined && !(Number.isFinite(maxAgeMs) && maxAgeMs >= 0)) {
    throw new AgentToolsError("INVALID_ARGUMENT", `retainLogs: maxAgeMs must be a finite number ≥ 0, got ${maxAgeMs}`);
  }
  if (maxRuns !== undefined && !(Number.isSafeInteger(maxRuns) && maxRuns >= 0)) {
    throw new AgentToolsError("INVALID_ARGUMENT", `retainLogs: maxRuns must be a whole number ≥ 0, got ${maxRuns}`);
  }
  const { settleMs } = policy;
  if (settleMs !== undefined && !(Number.isFinite(settleMs) && settleMs >= 0)) {
    throw new AgentToolsError("INVALID_ARGUMENT", `retainLogs: settleMs must be a finite number ≥ 0, got ${settleMs}`);
  }
  return policy;
}
