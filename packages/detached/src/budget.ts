/** Default absolute budget of a detached run (`detachedMaxBudgetMs`): 24 hours. */
export const DEFAULT_DETACHED_MAX_BUDGET_MS = 24 * 60 * 60 * 1000;

/** Default no-progress budget of a detached run (`detachedNoProgressBudgetMs`): 1 hour. */
export const DEFAULT_DETACHED_NO_PROGRESS_BUDGET_MS = 60 * 60 * 1000;

/** Why the parent gives up on a detached run. */
export type DetachedGiveUpReason = "budget-exceeded" | "no-progress";

/** What a budget decision reads: deadlines stored as data on the run's row, and the last signal seen. */
export type BudgetSnapshot = {
  /** Epoch ms: the run's start plus its absolute budget. */
  budgetDeadline: number;
  /** 0 when disabled. */
  noProgressBudgetMs: number;
  /** Epoch ms of the last signal (a progress or milestone report); absent until the first one. */
  lastSignalAt?: number;
};

/** What to do with a live detached run at some instant, and when to look again. */
export type BudgetDecision =
  | { action: "none"; reason?: undefined; nextWakeAt: number }
  | { action: "give-up"; reason: DetachedGiveUpReason; nextWakeAt: null };

/** Budgets resolved at dispatch, or why they are refused. */
export type ResolvedBudgets =
  | { ok: true; maxBudgetMs: number; noProgressBudgetMs: number }
  | { ok: false; error: string };

/**
 * Check and normalize a dispatch's budgets. `maxBudgetMs` must be finite and > 0. `noProgressBudgetMs` of `0` or
 * `Infinity` disables the no-progress budget (normalized to `0`, so it stays JSON); negative or NaN is refused.
 */
export function resolveBudgets(
  options: { maxBudgetMs?: number | undefined; noProgressBudgetMs?: number | undefined },
  defaults: { maxBudgetMs: number; noProgressBudgetMs: number },
): ResolvedBudgets {
  const maxBudgetMs = options.maxBudgetMs ?? defaults.maxBudgetMs;
  if (typeof maxBudgetMs !== "number" || !Number.isFinite(maxBudgetMs) || maxBudgetMs <= 0) {
    return { ok: false, error: `maxBudgetMs must be a finite number of milliseconds > 0, got ${String(maxBudgetMs)}` };
  }
  const noProgress = options.noProgressBudgetMs ?? defaults.noProgressBudgetMs;
  if (typeof noProgress !== "number" || Number.isNaN(noProgress) || noProgress < 0) {
    return {
      ok: false,
      error: `noProgressBudgetMs must be ≥ 0 (0 or Infinity disables it), got ${String(noProgress)}`,
    };
  }
  return { ok: true, maxBudgetMs, noProgressBudgetMs: Number.isFinite(noProgress) ? noProgress : 0 };
}

/** The no-progress deadline, or `null` while it is not armed (no signal yet) or disabled. */
export function noProgressDeadline(run: BudgetSnapshot): number | null {
  if (!(run.noProgressBudgetMs > 0) || run.lastSignalAt === undefined) return null;
  return run.lastSignalAt + run.noProgressBudgetMs;
}

/**
 * Decide, as a pure function of the run's stored deadlines and `now`, whether to give up on a live detached run.
 * The absolute budget wins over no-progress; a run that never signalled is bounded by the absolute budget only
 * (slow is not dead). Otherwise `nextWakeAt` is the earliest deadline still ahead.
 */
export function evaluateBudget(run: BudgetSnapshot, now: number): BudgetDecision {
  if (now >= run.budgetDeadline) return { action: "give-up", reason: "budget-exceeded", nextWakeAt: null };
  const silentUntil = noProgressDeadline(run);
  if (silentUntil !== null && now >= silentUntil) return { action: "give-up", reason: "no-progress", nextWakeAt: null };
  return { action: "none", nextWakeAt: Math.min(run.budgetDeadline, silentUntil ?? Number.POSITIVE_INFINITY) };
}

/**
 * Until when the parent keeps watching a run it gave up on (or that was interrupted) for a late real result:
 * `watchAfterGiveUpMs` after it stopped waiting, and never past the absolute budget.
 */
export function watchDeadline(
  run: { budgetDeadline: number; interruptedAt: number },
  watchAfterGiveUpMs: number,
): number {
  return Math.min(run.budgetDeadline, run.interruptedAt + Math.max(0, watchAfterGiveUpMs));
}

/** How many times the parent tries to tear a child down at the end of a watch before it stops watching it. */
export const MAX_TEARDOWN_ATTEMPTS = 5;

/** At or past a watch's bound: tear the child down now, wait for the next attempt, or stop watching. */
export type TeardownStep = { kind: "attempt" } | { kind: "wait"; until: number } | { kind: "stop-watching" };

/**
 * Decide, as a pure function of the attempts so far and `now`, what to do with a child the parent wants torn down:
 * attempts are spaced by `intervalMs` and at most `maxAttempts`; after the last failed one the parent stops
 * watching (bounded: no timers that fire forever), leaving the run soft with `childStillRunning: true`.
 */
export function nextTeardownStep(
  teardown: { attempts: number; lastAt: number } | undefined,
  now: number,
  intervalMs: number,
  maxAttempts: number = MAX_TEARDOWN_ATTEMPTS,
): TeardownStep {
  if (!teardown) return { kind: "attempt" };
  if (teardown.attempts >= maxAttempts) return { kind: "stop-watching" };
  const nextAt = teardown.lastAt + intervalMs;
  return now >= nextAt ? { kind: "attempt" } : { kind: "wait", until: nextAt };
}
