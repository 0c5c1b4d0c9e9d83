import type { RegistryExtension } from "@agent-tools/core-runs";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import type { TerminalRunStatus } from "@agent-tools/core-runs/protocol";
import { isObject } from "@agent-tools/core-runs/protocol";
import type { DetachedGiveUpReason } from "./budget.js";

/** The key of this package's fields in `RunRecord.meta`. */
export const DETACHED_META_KEY = "detached";

/** How a named milestone reaches the chat. */
export type DetachedMilestoneMode = "narrate" | "react";

/** A claim on one terminal revision's delivery (see `DeliveryLedger.claim`). */
export type DeliveryClaim = { revision: number; attempts: number; notBefore: number; holder?: string };

/**
 * The delivery ledger of one run: which terminal revision was settled, and the claim on the one being delivered.
 * A revision is settled when its handler resolved, when it was skipped (nothing new to tell), or when delivery
 * failed `maxDeliveryAttempts` times (`failedRevision`).
 */
export type DeliveryLedger = {
  /** The highest terminal revision settled (0: none). */
  settledRevision: number;
  /** The status last handed to the handler. */
  deliveredStatus?: TerminalRunStatus;
  /**
   * The revision being delivered: attempts so far, and no new attempt before `notBefore` (lease or backoff).
   * `holder` names the host incarnation whose handler call is in flight (absent while the claim only holds off a
   * retry after a failure): a single-instance host takes a claim held by an earlier incarnation back at once.
   */
  claim?: DeliveryClaim;
  /** A revision whose delivery failed every attempt. */
  failedRevision?: number;
};

/**
 * Everything `@agent-tools/detached` keeps on a run's row, under `meta.detached` (JSON only). Deadlines are data
 * here and recomputed on wake; nothing lives only in memory that a restart would need.
 */
export type DetachedRunState = {
  version: 1;
  /** The host method that receives the result. */
  onFinish?: string;
  /** Inject a completion message into the chat (ignored when `onFinish` is set). */
  notify?: { source: string };
  milestones?: { names: string[]; mode: DetachedMilestoneMode; source: string };
  maxBudgetMs: number;
  /** 0: disabled. */
  noProgressBudgetMs: number;
  /** Epoch ms: dispatch time plus `maxBudgetMs`. */
  budgetDeadline: number;
  /** Epoch ms of the last signal recorded (written lazily); absent until the first signal. */
  lastSignalAt?: number;
  /** Set when the parent gave up on the run. */
  gaveUp?: { reason: DetachedGiveUpReason; at: number };
  /** The parent tore the child down: an `aborted` that follows is its own doing and is never delivered. */
  tornDown?: boolean;
  /** Attempts to tear the child down that did not reach it (the child may still run), and when the last was. */
  teardown?: { attempts: number; lastAt: number };
  /** The parent stopped watching the run (its bound passed and the child could not be torn down). */
  watchEnded?: boolean;
  /** Milestone names already told to the chat (at most once per run and name). */
  milestonesTold?: string[];
  delivery: DeliveryLedger;
};

/** The stored value under `meta.detached`, checked; `null` when it is not this package's state. */
export function parseDetachedState(value: unknown): DetachedRunState | null {
  if (!isObject(value) || value["version"] !== 1 || !isObject(value["delivery"])) return null;
  if (typeof value["budgetDeadline"] !== "number") return null;
  return value as unknown as DetachedRunState;
}

/** The run's detached state, or `null` for a row this package does not own (awaited, or foreign). */
export function readDetachedState(record: RunRecord): DetachedRunState | null {
  return parseDetachedState(record.meta?.[DETACHED_META_KEY]);
}

/**
 * A run the parent gave up on is still watched for a late result while it is `interrupted`, its child may still run,
 * and the parent neither tore it down nor stopped watching.
 */
export function isWatchedAfterGiveUp(record: RunRecord, state: DetachedRunState): boolean {
  return (
    record.status === "interrupted" &&
    record.childStillRunning !== false &&
    state.tornDown !== true &&
    state.watchEnded !== true
  );
}

/** This package's seam into the registry: its state lives under `meta.detached`. */
export type DetachedExtension = RegistryExtension<DetachedRunState>;
