import type { ChatHost } from "@agent-tools/core-runs";
import type { AgentToolRunOutcome, RunRecord, WakeupScheduler } from "@agent-tools/core-runs/internal";
import {
  type AgentToolMilestone,
  isLiveStatus,
  isTerminalStatus,
  readMilestoneChunk,
  type TerminalRunStatus,
} from "@agent-tools/core-runs/protocol";
import { type BudgetSnapshot, evaluateBudget, watchDeadline } from "./budget.js";
import {
  DETACHED_META_KEY,
  type DetachedExtension,
  type DetachedRunState,
  isWatchedAfterGiveUp,
  readDetachedState,
} from "./detached-state.js";
import { DueIndex } from "./due-index.js";
import type { DetachedEventEmitter } from "./events.js";
import { FinishDelivery } from "./finish-delivery.js";
import { endWatch, type GiveUpDependencies, giveUp, recordOutcome } from "./give-up.js";
import { KeyedLock } from "./keyed-lock.js";
import { type FormatDetachedMilestone, hasUntoldMilestones, MilestoneTeller } from "./milestones.js";
import { RunWatcher } from "./run-watcher.js";
import { latestSignalAt, SignalRecorder } from "./signals.js";

/** What one reconcile tick did. */
export type TickReport = {
  /** Runs that were due and looked at. */
  due: number;
  /** Deliveries claimed (handler calls started; they settle in the background, see `whenIdle`). */
  claimed: number;
  /** Runs given up on (absolute or no-progress budget) or whose watch after a give-up ended. */
  gaveUp: number;
  /** Named milestones told to the chat during the tick. */
  milestones: number;
  /** The wake-up armed after the tick, or `null`: nothing is outstanding and the tick went quiet. */
  nextWakeAt: number | null;
};

export type ReconcilerOptions = {
  extension: DetachedExtension;
  scheduler: WakeupScheduler;
  chatHost: ChatHost | undefined;
  emit: DetachedEventEmitter;
  /** Deliver a finished run's result (its `onFinish` method, or the chat notification). */
  handle(record: RunRecord & { status: TerminalRunStatus }, state: DetachedRunState): Promise<void>;
  formatDetachedMilestone: FormatDetachedMilestone;
  maxDeliveryAttempts: number;
  deliveryLeaseMs: number;
  /** This host incarnation's id (the holder of the delivery claims it makes). */
  incarnation: string;
  /** Only this host can hold claims: claims of earlier incarnations are taken back at start-up. */
  singleInstance: boolean;
  watchAfterGiveUpMs: number;
  watchIntervalMs: number;
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
};

type ProcessResult = { next: number | null; work: Promise<void> | null };

const NOTHING: ProcessResult = { next: null, work: null };

/**
 * The reconcile loop of detached runs. Everything it needs is data on the run rows (`meta.detached`); in memory
 * it keeps only an index of when each outstanding run is next due (a min-heap, rebuilt by `start()` from one
 * `listRuns`) and the follows of live runs in this process.
 *
 * Trade-off: `start()` reads every retained row once (one store call, O(retained) work) so that each `tick()`
 * costs O(due): it touches only the runs whose due time has come (one row read each, plus the writes their work
 * needs). Wake-ups are armed through the `WakeupScheduler`, which keeps the earliest, so concurrent arming
 * collapses to one wake-up; while runs are followed, a wake-up is kept within `watchIntervalMs` so that a host
 * evicted mid-run wakes to follow them again. With nothing outstanding no wake-up is armed (quiet).
 * @internal
 */
export class Reconciler {
  readonly watcher: RunWatcher;
  readonly #options: ReconcilerOptions;
  readonly #index = new DueIndex();
  readonly #lock = new KeyedLock();
  readonly #delivery: FinishDelivery;
  readonly #teller: MilestoneTeller;
  readonly #background = new Set<Promise<unknown>>();
  /** Runs re-followed after a restart: at their first look, catch up on milestones from the child's inspection. */
  readonly #catchUpOnStart = new Set<string>();
  /** `runId:revision` whose milestones were caught up from the log at the terminal. */
  readonly #caughtUp = new Set<string>();
  readonly #signals: SignalRecorder;
  readonly #followEndedAt = new Map<string, number>();
  #armedAt: number | null = null;
  #started: Promise<void> | null = null;
  #ticking: Promise<unknown> = Promise.resolve();
  #gaveUp = 0;
  #told = 0;

  constructor(options: ReconcilerOptions) {
    this.#options = options;
    const { extension, emit } = options;
    this.watcher = new RunWatcher({
      extension,
      waitUntil: options.waitUntil,
      onSignal: (runId, at) => this.#signals.record(runId, at),
      onMilestone: (runId, milestone) => this.#onMilestone(runId, milestone),
      onEnded: (runId, final) => this.#onFollowEnded(runId, final),
    });
    this.#delivery = new FinishDelivery({
      extension,
      emit,
      maxDeliveryAttempts: options.maxDeliveryAttempts,
      deliveryLeaseMs: options.deliveryLeaseMs,
      incarnation: options.incarnation,
      singleInstance: options.singleInstance,
      handle: options.handle,
      withLock: (runId, work) => this.withLock(runId, work),
      schedule: (runId, at) => this.schedule(runId, at),
    });
    this.#signals = new SignalRecorder({
      extension,
      withLock: (runId, work) => this.withLock(runId, work),
      track: (work) => this.track(work),
      schedule: (runId, at) => this.schedule(runId, at),
    });
    this.#teller = new MilestoneTeller({
      extension,
      chatHost: options.chatHost,
      emit,
      format: options.formatDetachedMilestone,
    });
  }

  /** Serialize work on one run (ledger writes, give-ups, milestones). */
  withLock<TResult>(runId: string, work: () => Promise<TResult>): Promise<TResult> {
    return this.#lock.run(runId, work);
  }

  /** Keep track of background work (for `whenIdle`, and the host's `waitUntil`). */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#background.delete(tracked));
    this.#background.add(tracked);
    this.#options.waitUntil?.(tracked);
  }

  /** Resolves once no background work (deliveries, milestones, live-path processing) is pending. */
  async whenIdle(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
  }

  /** Look at the run now, in the background (the live fast path). */
  poke(runId: string): void {
    this.track(this.#processAndSchedule(runId));
  }

  /** Look at the run no later than `at` (at once, in the background, when `at` has come). */
  schedule(runId: string, at: number): void {
    if (at <= this.#options.extension.clock.now()) {
      this.poke(runId);
      return;
    }
    if (this.#index.schedule(runId, at)) this.track(this.#arm());
  }

  /** A run this process just dispatched: follow it and arm its budget. */
  adopt(record: RunRecord, state: DetachedRunState): void {
    this.watcher.ensure(record);
    const decision = evaluateBudget(this.#budgetOf(record.runId, state), this.#options.extension.clock.now());
    this.schedule(record.runId, decision.nextWakeAt ?? this.#options.extension.clock.now());
  }

  /**
   * Resume after a restart (once per instance): rebuild the due index from the live runs and the finished ones this
   * package still has work on (their `attention`: never every retained run), follow live detached runs (and
   * interrupted ones still watched) again, and arm the scheduler for what is outstanding. A row marked for it that
   * needs nothing any more (a mark from an earlier version) is cleared.
   */
  start(): Promise<void> {
    if (!this.#started) {
      const starting = this.#start();
      this.#started = starting;
      // A failed start (the store could not be listed) is tried again by the next call.
      starting.catch(() => {
        if (this.#started === starting) this.#started = null;
      });
    }
    return this.#started;
  }

  async #start(): Promise<void> {
    const { extension } = this.#options;
    const live = await extension.listRuns({ status: ["starting", "running"] });
    const marked = await extension.listRuns({ attention: true });
    const seen = new Set(live.map((record) => record.runId));
    const records = [...live, ...marked.filter((record) => !seen.has(record.runId))];
    const now = extension.clock.now();
    for (const record of records) {
      if (record.attention?.[DETACHED_META_KEY]) await extension.refreshAttention(record).catch(() => undefined);
      if (record.detached !== true) continue;
      const state = readDetachedState(record);
      if (!state) continue;
      const { runId } = record;
      if (isLiveStatus(record.status)) {
        this.watcher.ensure(record);
        this.#catchUpOnStart.add(runId);
        this.#index.schedule(runId, now);
        continue;
      }
      if (this.#isWatchable(record, state)) this.#index.schedule(runId, now);
      const step = this.#delivery.nextStep(record, state, now);
      if (step.kind === "wait") this.#index.schedule(runId, step.until);
      else if (step.kind !== "none") this.#index.schedule(runId, now);
    }
    await this.#arm();
  }

  /**
   * The reconcile tick (call it from the host's wake-up, e.g. a Durable Object's `alarm()`): look at the runs
   * that are due — budgets, deliveries and their retries, watches after a give-up — then arm the next wake-up.
   * Ticks run one at a time; a tick claims deliveries but does not wait for their handlers.
   */
  tick(): Promise<TickReport> {
    const run = this.#ticking.then(() => this.#tick());
    this.#ticking = run.catch(() => undefined);
    return run;
  }

  async #tick(): Promise<TickReport> {
    await this.start();
    const { extension, watchIntervalMs } = this.#options;
    // The wake-up that called us has fired: whatever we arm next is new.
    this.#armedAt = null;
    const before = { claimed: this.#delivery.claimed, gaveUp: this.#gaveUp, told: this.#told };
    const due = this.#index.takeDue(extension.clock.now());
    await Promise.all(
      due.map(async (runId) => {
        try {
          const result = await this.withLock(runId, () => this.#process(runId));
          // A handler may take long (a model turn) or hang: the tick never waits for it.
          if (result.work) this.track(result.work);
          if (result.next !== null) this.#scheduleQuietly(runId, result.next);
        } catch {
          // The store or the child failed us: try this run again later.
          this.#index.schedule(runId, extension.clock.now() + watchIntervalMs);
        }
      }),
    );
    const nextWakeAt = await this.#arm();
    return {
      due: due.length,
      claimed: this.#delivery.claimed - before.claimed,
      gaveUp: this.#gaveUp - before.gaveUp,
      milestones: this.#told - before.told,
      nextWakeAt,
    };
  }

  /**
   * Cancel a detached run: a live one through the registry (its child ends `aborted`), an interrupted one still
   * watched by recording `aborted` and tearing its child down. False for unknown or finished runs.
   */
  cancel(runId: string, reason: string): Promise<boolean> {
    return this.withLock(runId, async () => {
      const { extension } = this.#options;
      const record = await extension.getRun(runId);
      if (!record) return false;
      if (isLiveStatus(record.status)) return extension.cancelRun(runId, reason);
      const state = readDetachedState(record);
      if (!state || !this.#isWatchable(record, state)) return false;
      // Still watched for a late result: stop following, cancel the child, record `aborted`.
      await recordOutcome(this.#giveUpDeps(), runId, async (): Promise<AgentToolRunOutcome> => {
        await extension.cancelChild(record, reason);
        return { status: "aborted", error: reason };
      });
      return true;
    });
  }

  async #processAndSchedule(runId: string): Promise<void> {
    try {
      const result = await this.withLock(runId, () => this.#process(runId));
      if (result.next !== null) this.schedule(runId, result.next);
      if (result.work) this.track(result.work);
    } catch {
      // The store or the child failed us: the tick looks again later.
      this.schedule(runId, this.#options.extension.clock.now() + this.#options.watchIntervalMs);
    }
  }

  /** With the run's lock held: everything due for one run. */
  async #process(runId: string): Promise<ProcessResult> {
    const { extension } = this.#options;
    let record = await extension.getRun(runId);
    const state = record ? readDetachedState(record) : null;
    if (!record || !state) {
      this.#index.forget(runId);
      return NOTHING;
    }
    if (isLiveStatus(record.status)) return this.#processLive(record, state);
    const now = extension.clock.now();
    let next: number | null = null;
    if (this.#isWatchable(record, state)) next = await this.#processWatch(record, state, now);
    const catchUpKey = `${runId}:${record.revision}`;
    if (hasUntoldMilestones(state) && this.#options.chatHost && !this.#caughtUp.has(catchUpKey)) {
      this.#caughtUp.add(catchUpKey);
      const entries = await extension.readLog(runId);
      const milestones = entries.flatMap((entry) => readMilestoneChunk(entry.body, entry.sequence, entry.at) ?? []);
      const told = await this.#teller.tell(record, milestones);
      this.#told += told;
      if (told > 0) record = (await extension.getRun(runId)) ?? record;
    }
    const latest = readDetachedState(record) ?? state;
    const step = await this.#delivery.step(record, latest);
    if (next === null && step.next === null && step.work === null && record.status !== "interrupted") {
      // Settled for good: forget what this process remembered about the run.
      this.#caughtUp.delete(catchUpKey);
      this.#followEndedAt.delete(runId);
    }
    return { next: minimum(next, step.next), work: step.work };
  }

  async #processLive(record: RunRecord, state: DetachedRunState): Promise<ProcessResult> {
    const { extension } = this.#options;
    const { runId } = record;
    this.watcher.ensure(record);
    // Milestones the child reached while no parent watched (the re-attach tail starts after what was recorded).
    if (this.#catchUpOnStart.delete(runId) && hasUntoldMilestones(state) && this.#options.chatHost) {
      const inspection = await this.#inspect(record);
      if (inspection) this.#told += await this.#teller.tell(record, inspection.milestones);
    }
    const now = extension.clock.now();
    const budget = this.#budgetOf(runId, state);
    let decision = evaluateBudget(budget, now);
    if (decision.action === "give-up" && decision.reason === "no-progress") {
      // The child may have signalled where this process could not see it (before a restart): ask it.
      const inspection = await this.#inspect(record);
      if (inspection && inspection.status !== "running")
        return { next: now + this.#options.watchIntervalMs, work: null };
      // A run waiting for an approval (its own or a descendant's) is not silent: its approval timeout bounds it.
      const isWaiting = (inspection?.awaitingApproval?.length ?? 0) > 0;
      const seen = isWaiting
        ? now
        : inspection
          ? latestSignalAt(inspection.milestones, inspection.progress?.at)
          : undefined;
      if (seen !== undefined)
        decision = evaluateBudget({ ...budget, lastSignalAt: Math.max(seen, budget.lastSignalAt ?? seen) }, now);
    }
    if (decision.action === "none") return { next: decision.nextWakeAt, work: null };
    await giveUp(this.#giveUpDeps(), record, state, decision.reason, now);
    this.#gaveUp += 1;
    // The terminal transition pokes the run (delivery, watch).
    return NOTHING;
  }

  /** An interrupted run still watched for a late real result: follow it, or end the watch at its bound. */
  async #processWatch(record: RunRecord, state: DetachedRunState, now: number): Promise<number | null> {
    const { runId } = record;
    const until = watchDeadline(
      { budgetDeadline: state.budgetDeadline, interruptedAt: state.gaveUp?.at ?? record.completedAt ?? now },
      this.#options.watchAfterGiveUpMs,
    );
    if (now >= until) {
      const { next, ended } = await endWatch(this.#giveUpDeps(), record, state, now, this.#options.watchIntervalMs);
      if (ended) this.#gaveUp += 1;
      return next;
    }
    if (this.watcher.isFollowing(runId)) return until;
    // A follow that just ended (its tail could not be followed) is not restarted in a hot loop.
    const endedAt = this.#followEndedAt.get(runId);
    const retryAt = endedAt === undefined ? now : endedAt + this.#options.watchIntervalMs;
    if (retryAt > now) return Math.min(until, retryAt);
    this.watcher.ensure(record);
    return until;
  }

  #giveUpDeps(): GiveUpDependencies {
    return { extension: this.#options.extension, watcher: this.watcher, emit: this.#options.emit };
  }

  async #inspect(record: RunRecord) {
    try {
      return await this.#options.extension.inspectChild(record);
    } catch {
      return null;
    }
  }

  /** An interrupted run whose child may still run, and that the parent still watches for a late real result. */
  #isWatchable(record: RunRecord, state: DetachedRunState): boolean {
    return isWatchedAfterGiveUp(record, state);
  }

  #budgetOf(runId: string, state: DetachedRunState): BudgetSnapshot {
    const live = this.watcher.lastSignalAt(runId);
    const stored = state.lastSignalAt;
    const lastSignalAt = live === undefined ? stored : stored === undefined ? live : Math.max(live, stored);
    return {
      budgetDeadline: state.budgetDeadline,
      noProgressBudgetMs: state.noProgressBudgetMs,
      ...(lastSignalAt !== undefined ? { lastSignalAt } : {}),
    };
  }

  #onMilestone(runId: string, milestone: AgentToolMilestone): void {
    if (!this.#options.chatHost) return;
    this.track(
      this.withLock(runId, async () => {
        const record = await this.#options.extension.getRun(runId);
        if (!record || isTerminalStatus(record.status)) return;
        this.#told += await this.#teller.tell(record, [milestone]);
      }),
    );
  }

  #onFollowEnded(runId: string, final: RunRecord | null): void {
    const now = this.#options.extension.clock.now();
    this.#followEndedAt.set(runId, now);
    this.#signals.forget(runId);
    // A follow that ended without a terminal (it failed, or the run was cleared): look again later.
    if (final === null || !isTerminalStatus(final.status)) this.schedule(runId, now + this.#options.watchIntervalMs);
  }

  #scheduleQuietly(runId: string, at: number): void {
    if (at <= this.#options.extension.clock.now()) this.poke(runId);
    else this.#index.schedule(runId, at);
  }

  /** Arm the scheduler for the earliest due time (and within `watchIntervalMs` while runs are followed). */
  async #arm(): Promise<number | null> {
    const { scheduler, extension, watchIntervalMs } = this.#options;
    let next = this.#index.peek();
    if (this.watcher.size > 0) next = minimum(next, extension.clock.now() + watchIntervalMs);
    if (next === null) return this.#armedAt;
    if (this.#armedAt !== null && this.#armedAt <= next) return this.#armedAt;
    this.#armedAt = next;
    try {
      await scheduler.wakeAt(next);
    } catch {
      this.#armedAt = null;
    }
    return this.#armedAt;
  }
}

function minimum(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
