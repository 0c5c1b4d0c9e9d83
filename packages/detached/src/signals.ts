import { type AgentToolMilestone, isLiveStatus } from "@agent-tools/core-runs/protocol";
import type { DetachedExtension } from "./detached-state.js";

export type SignalRecorderOptions = {
  extension: DetachedExtension;
  /** Serialize with the run's other work. */
  withLock(runId: string, work: () => Promise<void>): Promise<void>;
  /** Keep track of background work. */
  track(work: Promise<unknown>): void;
  /** The no-progress deadline of a live run moved to `at`. */
  schedule(runId: string, at: number): void;
};

/**
 * Records the signals (progress and milestone reports) of detached runs on their rows, for the no-progress
 * budget: the first one at once (it arms the budget), then at most one write per half budget (the tick asks the
 * child before giving up, so a signal not yet written never causes a wrong give-up). A run with the budget
 * disabled is never written.
 * @internal
 */
export class SignalRecorder {
  readonly #options: SignalRecorderOptions;
  /** Per run: the signal time known to be stored, and the run's no-progress budget (∞ until known). */
  readonly #stored = new Map<string, { at: number; budgetMs: number }>();

  constructor(options: SignalRecorderOptions) {
    this.#options = options;
  }

  /** A signal reported at `at` was forwarded for the run. */
  record(runId: string, at: number): void {
    const known = this.#stored.get(runId);
    if (known && (known.budgetMs === 0 || at - known.at < known.budgetMs / 2)) return;
    this.#stored.set(runId, { at, budgetMs: known?.budgetMs ?? Number.POSITIVE_INFINITY });
    this.#options.track(this.#options.withLock(runId, () => this.#store(runId, at)));
  }

  /** Forget a run that is no longer followed here. */
  forget(runId: string): void {
    this.#stored.delete(runId);
  }

  async #store(runId: string, at: number): Promise<void> {
    const updated = await this.#options.extension.updateState(runId, (state) =>
      state.noProgressBudgetMs === 0 || (state.lastSignalAt ?? Number.NEGATIVE_INFINITY) >= at
        ? null
        : { ...state, lastSignalAt: at },
    );
    if (!updated) return;
    const { record, state } = updated;
    this.#stored.set(runId, { at: state.lastSignalAt ?? at, budgetMs: state.noProgressBudgetMs });
    if (state.noProgressBudgetMs > 0 && state.lastSignalAt !== undefined && isLiveStatus(record.status)) {
      this.#options.schedule(runId, state.lastSignalAt + state.noProgressBudgetMs);
    }
  }
}

/** The latest report time among a child's inspection: its progress snapshot and its milestones. */
export function latestSignalAt(
  milestones: readonly AgentToolMilestone[],
  progressAt: number | undefined,
): number | undefined {
  let latest = progressAt;
  for (const milestone of milestones) latest = latest === undefined ? milestone.at : Math.max(latest, milestone.at);
  return latest;
}
