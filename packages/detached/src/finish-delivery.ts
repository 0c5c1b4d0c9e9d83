import type { RunRecord } from "@agent-tools/core-runs/internal";
import { isTerminalStatus, type TerminalRunStatus } from "@agent-tools/core-runs/protocol";
import type { DeliveryClaim, DetachedExtension, DetachedRunState } from "./detached-state.js";
import type { DetachedDeliveryTarget, DetachedEventEmitter } from "./events.js";

/** Default `maxDeliveryAttempts`. */
export const DEFAULT_MAX_DELIVERY_ATTEMPTS = 5;

/** Default `deliveryLeaseMs`: how long a claim holds before another attempt may take it (60 s). */
export const DEFAULT_DELIVERY_LEASE_MS = 60_000;

/** Where a run's result goes: its `onFinish` method, else the chat (`notify`), else nowhere. */
export function deliveryTarget(state: DetachedRunState): DetachedDeliveryTarget {
  if (state.onFinish !== undefined) return "onFinish";
  if (state.notify !== undefined) return "notify";
  return "none";
}

/** What the ledger says about a run's latest terminal revision at `now`. */
export type DeliveryStep =
  /** Nothing to deliver (live, settled, failed, or no target). */
  | { kind: "none" }
  /** Nothing new for the handler (our own teardown's abort; interrupted again): settle without calling it. */
  | { kind: "skip" }
  /** Claimed earlier (a lease, or a backoff after a failure): not before `until`. */
  | { kind: "wait"; until: number }
  /** Claim it now: this is attempt number `attempt` for the revision. */
  | { kind: "claim"; attempt: number };

/** How `nextDeliveryStep` treats claims. */
export type DeliveryStepOptions = {
  /**
   * True for a claim nobody can be delivering any more (its holder is an earlier incarnation of a single-instance
   * host): it is taken at once instead of after its lease. Default: no claim is orphaned.
   */
  isOrphaned?: (claim: DeliveryClaim) => boolean;
};

/**
 * The ledger's decision for a run, as a pure function of its row, its state and `now`. Exactly one terminal
 * revision is pending at a time: the row's latest (a newer transition, such as a repair from `interrupted`,
 * supersedes an undelivered older one).
 */
export function nextDeliveryStep(
  record: RunRecord,
  state: DetachedRunState,
  now: number,
  options: DeliveryStepOptions = {},
): DeliveryStep {
  if (!isTerminalStatus(record.status) || deliveryTarget(state) === "none") return { kind: "none" };
  const ledger = state.delivery;
  if (record.revision <= ledger.settledRevision || record.revision === ledger.failedRevision) return { kind: "none" };
  const status = record.status as TerminalRunStatus;
  // The abort our own teardown causes is not a result; a second `interrupted` tells the handler nothing new.
  if (status === "aborted" && state.tornDown === true) return { kind: "skip" };
  if (status === "interrupted" && ledger.deliveredStatus === "interrupted") return { kind: "skip" };
  const claim = ledger.claim?.revision === record.revision ? ledger.claim : undefined;
  const isHeld = claim !== undefined && claim.notBefore > now && options.isOrphaned?.(claim) !== true;
  if (isHeld) return { kind: "wait", until: claim.notBefore };
  return { kind: "claim", attempt: (claim?.attempts ?? 0) + 1 };
}

/** The wait before attempt `attempts + 1` after `attempts` failed: the lease, doubled per failure. */
export function retryDelayMs(leaseMs: number, attempts: number): number {
  return leaseMs * 2 ** Math.max(0, attempts - 1);
}

export type FinishDeliveryOptions = {
  extension: DetachedExtension;
  emit: DetachedEventEmitter;
  maxDeliveryAttempts: number;
  deliveryLeaseMs: number;
  /** This host incarnation's id, written as the `holder` of the claims it delivers. */
  incarnation: string;
  /** No other instance can hold claims: a claim held by another incarnation is orphaned (taken back at once). */
  singleInstance: boolean;
  /** Call the run's handler (the `onFinish` method, or the chat notification). */
  handle(record: RunRecord & { status: TerminalRunStatus }, state: DetachedRunState): Promise<void>;
  /** Serialize with the run's other work (the caller's per-run lock). */
  withLock<TResult>(runId: string, work: () => Promise<TResult>): Promise<TResult>;
  /** Look at the run again no later than `at` (a retry; `now` after a success, for a newer revision). */
  schedule(runId: string, at: number): void;
};

/** The outcome of one `step`: when to look again, and the handler call it started (to await), if any. */
export type DeliveryStepResult = { next: number | null; work: Promise<void> | null };

/**
 * The delivery ledger in `meta.detached.delivery`: claim with a lease → call the handler → mark delivered only
 * after it resolves. A throwing handler is retried after the lease with backoff, up to `maxDeliveryAttempts`
 * attempts, then `agent_tool:detached:delivery_failed` is emitted and retries stop.
 *
 * Exactly once while the host stays up: every path (the live fast path, the tick) goes through `step` under the
 * run's lock, and a claim in flight in this process is never taken again, however long the handler takes.
 * At least once across a crash: a claim left by a dead process expires with its lease and is taken again — at once
 * when a single-instance host starts again, since its earlier incarnations cannot be delivering any more.
 */
export class FinishDelivery {
  readonly #options: FinishDeliveryOptions;
  readonly #inFlight = new Set<string>();
  readonly #stepOptions: DeliveryStepOptions;
  #claimed = 0;

  constructor(options: FinishDeliveryOptions) {
    this.#options = options;
    const { incarnation } = options;
    this.#stepOptions = options.singleInstance
      ? { isOrphaned: (claim) => claim.holder !== undefined && claim.holder !== incarnation }
      : {};
  }

  /** The ledger's decision for a run at `now`, with this host's rule for orphaned claims. */
  nextStep(record: RunRecord, state: DetachedRunState, now: number): DeliveryStep {
    return nextDeliveryStep(record, state, now, this.#stepOptions);
  }

  /** How many deliveries were claimed (handler calls started) since construction. */
  get claimed(): number {
    return this.#claimed;
  }

  /** True while a handler call for the run is running in this process. */
  isInFlight(runId: string): boolean {
    return this.#inFlight.has(runId);
  }

  /** With the run's lock held: settle, wait for, or claim and start delivering the run's latest result. */
  async step(record: RunRecord, state: DetachedRunState): Promise<DeliveryStepResult> {
    const { extension, emit, deliveryLeaseMs } = this.#options;
    const { clock } = extension;
    const { runId } = record;
    if (this.#inFlight.has(runId)) return { next: null, work: null };
    const now = clock.now();
    const step = this.nextStep(record, state, now);
    switch (step.kind) {
      case "none":
        return { next: null, work: null };
      case "wait":
        return { next: step.until, work: null };
      case "skip": {
        await extension.updateState(
          runId,
          (latest, row) =>
            row.revision <= latest.delivery.settledRevision
              ? null
              : { ...latest, delivery: { ...latest.delivery, settledRevision: row.revision } },
          record,
        );
        return { next: null, work: null };
      }
      case "claim":
        break;
    }
    const revision = record.revision;
    const status = record.status as TerminalRunStatus;
    const leaseUntil = now + deliveryLeaseMs;
    const claimed = await extension.updateState(
      runId,
      (latest, row) =>
        row.revision !== revision
          ? null
          : {
              ...latest,
              delivery: {
                ...latest.delivery,
                claim: { revision, attempts: step.attempt, notBefore: leaseUntil, holder: this.#options.incarnation },
              },
            },
      record,
    );
    if (!claimed || claimed.record.revision !== revision) {
      // A newer transition landed first: look again at once.
      return { next: now, work: null };
    }
    emit({
      type: "agent_tool:detached:delivery_claimed",
      runId,
      agentType: record.agentType,
      status,
      revision,
      attempt: step.attempt,
      leaseUntil,
      at: now,
    });
    this.#inFlight.add(runId);
    this.#claimed += 1;
    const work = this.#deliver(
      claimed.record as RunRecord & { status: TerminalRunStatus },
      claimed.state,
      step.attempt,
    );
    return { next: null, work };
  }

  async #deliver(
    record: RunRecord & { status: TerminalRunStatus },
    state: DetachedRunState,
    attempt: number,
  ): Promise<void> {
    const { runId } = record;
    let failure: { error: unknown } | null = null;
    try {
      await this.#options.handle(record, state);
    } catch (error) {
      failure = { error };
    }
    try {
      await this.#options.withLock(runId, () =>
        failure ? this.#markFailed(record, attempt, failure.error) : this.#markDelivered(record, state, attempt),
      );
    } catch {
      // The ledger could not be written: the claim's lease expires and the run is delivered again (at least once).
      this.#options.schedule(runId, this.#options.extension.clock.now() + this.#options.deliveryLeaseMs);
    } finally {
      this.#inFlight.delete(runId);
    }
    if (!failure) {
      // A newer transition (a repair) may have landed while the handler ran.
      this.#options.schedule(runId, this.#options.extension.clock.now());
    }
  }

  async #markDelivered(record: RunRecord, state: DetachedRunState, attempts: number): Promise<void> {
    const { extension, emit } = this.#options;
    const { clock } = extension;
    const { runId, revision } = record;
    const status = record.status as TerminalRunStatus;
    await extension.updateState(runId, (latest) => {
      const { claim: _claim, ...rest } = latest.delivery;
      return {
        ...latest,
        delivery: {
          ...rest,
          settledRevision: Math.max(rest.settledRevision, revision),
          deliveredStatus: status,
        },
      };
    });
    emit({
      type: "agent_tool:detached:delivered",
      runId,
      agentType: record.agentType,
      status,
      revision,
      attempts,
      target: deliveryTarget(state),
      at: clock.now(),
    });
  }

  async #markFailed(record: RunRecord, attempts: number, error: unknown): Promise<void> {
    const { extension, emit, maxDeliveryAttempts, deliveryLeaseMs, schedule } = this.#options;
    const { clock } = extension;
    const { runId, revision } = record;
    const status = record.status as TerminalRunStatus;
    const now = clock.now();
    const errorName = error instanceof Error ? error.name : typeof error;
    if (attempts >= maxDeliveryAttempts) {
      await extension.updateState(runId, (latest) => {
        const { claim: _claim, ...rest } = latest.delivery;
        return { ...latest, delivery: { ...rest, failedRevision: revision } };
      });
      emit({
        type: "agent_tool:detached:delivery_failed",
        runId,
        agentType: record.agentType,
        status,
        revision,
        attempts,
        errorName,
        at: now,
      });
      return;
    }
    const retryAt = now + retryDelayMs(deliveryLeaseMs, attempts);
    await extension.updateState(runId, (latest) =>
      latest.delivery.claim?.revision !== revision
        ? null
        : { ...latest, delivery: { ...latest.delivery, claim: { revision, attempts, notBefore: retryAt } } },
    );
    emit({
      type: "agent_tool:detached:delivery_retry",
      runId,
      agentType: record.agentType,
      status,
      revision,
      attempts,
      retryAt,
      errorName,
      at: now,
    });
    schedule(runId, retryAt);
  }
}
