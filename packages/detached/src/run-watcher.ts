import { type AgentToolTailItem, readProgressChunk } from "@agent-tools/core-runs";
import type { RunFollow, RunRecord, StopDecision } from "@agent-tools/core-runs/internal";
import { type AgentToolLogEntry, type AgentToolMilestone, readMilestoneChunk } from "@agent-tools/core-runs/protocol";
import type { DetachedExtension } from "./detached-state.js";

export type RunWatcherOptions = {
  extension: DetachedExtension;
  /** Keep the host alive while a follow runs (a Durable Object's `ctx.waitUntil`). */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /** A signal (a progress or milestone report) was forwarded for the run. */
  onSignal(runId: string, at: number, isFirst: boolean): void;
  /** A durable milestone entry was forwarded for the run (possibly more than once). */
  onMilestone(runId: string, milestone: AgentToolMilestone): void;
  /** Following ended (the run's row at the end, `null` if it was cleared or the follow failed). */
  onEnded(runId: string, record: RunRecord | null): void;
};

type Watch = {
  readonly follow: RunFollow;
  lastSignalAt: number | undefined;
  done: Promise<RunRecord | null>;
};

/**
 * Follows detached runs in this process (one follow per run) through the registry's extension seam, turning the
 * forwarded items into signals and milestones. A follow ends with the run (or with `stop`); following never
 * cancels the child.
 */
export class RunWatcher {
  readonly #options: RunWatcherOptions;
  readonly #watches = new Map<string, Watch>();

  constructor(options: RunWatcherOptions) {
    this.#options = options;
  }

  /** How many runs are followed here. */
  get size(): number {
    return this.#watches.size;
  }

  isFollowing(runId: string): boolean {
    return this.#watches.has(runId);
  }

  /** The latest report time of a signal forwarded while following here (epoch ms, server time). */
  lastSignalAt(runId: string): number | undefined {
    return this.#watches.get(runId)?.lastSignalAt;
  }

  /**
   * Follow the run unless it is followed here already (joining the registry's driver, or starting one: a run
   * re-followed after a restart is re-attached from the last sequence the parent recorded).
   */
  ensure(record: RunRecord): void {
    const { runId } = record;
    if (this.#watches.has(runId)) return;
    const watch: Watch = {
      follow: this.#options.extension.follow(runId, { onActivity: (item) => this.#onActivity(runId, watch, item) }),
      lastSignalAt: undefined,
      done: Promise.resolve(null),
    };
    this.#watches.set(runId, watch);
    watch.done = watch.follow.done
      .catch(() => null)
      .then((final) => {
        if (this.#watches.get(runId) === watch) this.#watches.delete(runId);
        this.#options.onEnded(runId, final);
        return final;
      });
    this.#options.waitUntil?.(watch.done);
  }

  /**
   * Stop following: tailing stops, then `decide` gives the outcome the registry records instead of the child's (it
   * may first cancel the child). Resolves the row at the end, or `undefined` when the run is not followed here.
   */
  stop(runId: string, decide: StopDecision): Promise<RunRecord | null> | undefined {
    const watch = this.#watches.get(runId);
    if (!watch) return undefined;
    return watch.follow.stop(decide).then(() => watch.done);
  }

  #onActivity(runId: string, watch: Watch, item: AgentToolTailItem): void {
    if (item.type === "terminal") return;
    if (item.type === "progress") {
      this.#onChunk(runId, watch, item.body, item.at);
      return;
    }
    for (const entry of item.entries) {
      this.#onChunk(runId, watch, entry.body, entry.at);
      const milestone = readMilestoneChunk(entry.body, entry.sequence, entry.at);
      if (milestone) this.#options.onMilestone(runId, milestone);
    }
  }

  /** A progress signal resets the no-progress budget; `at` is when the child reported it (an old one replayed on
   * re-attach is not a fresh signal). */
  #onChunk(runId: string, watch: Watch, body: AgentToolLogEntry["body"], at: number): void {
    if (readProgressChunk(body, at) !== null) {
      const isFirst = watch.lastSignalAt === undefined;
      watch.lastSignalAt = Math.max(watch.lastSignalAt ?? at, at);
      this.#options.onSignal(runId, at, isFirst);
    }
  }
}
