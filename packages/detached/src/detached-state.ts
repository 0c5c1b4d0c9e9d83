import type { RunRecord, RunRecordPatch, RunStore, TerminalRunStatus } from "@agent-tools/core-runs";
import type { DetachedGiveUpReason } from "./budget.js";

/** The key of this package's fields in `RunRecord.meta`. */
export const DETACHED_META_KEY = "detached";

/** How a named milestone reaches the chat. */
export type DetachedMilestoneMode = "narrate" | "react";

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
  /** The revision being delivered: attempts so far, and no new attempt before `notBefore` (lease or backoff). */
  claim?: { revision: number; attempts: number; notBefore: number };
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
  /** Milestone names already told to the chat (at most once per run and name). */
  milestonesTold?: string[];
  delivery: DeliveryLedger;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The run's detached state, or `null` for a row this package does not own (awaited, or foreign). */
export function readDetachedState(record: RunRecord): DetachedRunState | null {
  const state = record.meta?.[DETACHED_META_KEY];
  if (!isObject(state) || state["version"] !== 1 || !isObject(state["delivery"])) return null;
  if (typeof state["budgetDeadline"] !== "number") return null;
  return state as unknown as DetachedRunState;
}

/** The `meta` patch that stores `state` without touching other packages' fields. */
export function detachedMetaPatch(record: RunRecord, state: DetachedRunState): RunRecordPatch {
  return { meta: { ...record.meta, [DETACHED_META_KEY]: state } };
}

/** What a state change returns: the new state (and any other row fields to write with it), or `null` for none. */
export type DetachedStateChange = { state: DetachedRunState; patch?: RunRecordPatch } | null;

/**
 * Read-modify-write of a run's detached state, conditional on the row's revision (retried when a terminal
 * transition lands in between). Callers serialize their own writes per run; this guards against the registry.
 * `current` (a row just read under that serialization) saves the first read.
 * Resolves the row and state after the change (unchanged when `change` returned `null`), or `null` when the row
 * is gone, is not detached, or kept changing.
 */
export async function updateDetachedState(
  store: RunStore,
  runId: string,
  change: (state: DetachedRunState, record: RunRecord) => DetachedStateChange,
  current?: RunRecord,
): Promise<{ record: RunRecord; state: DetachedRunState } | null> {
  let known = current;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const record = known ?? (await store.getRun(runId));
    known = undefined;
    const state = record ? readDetachedState(record) : null;
    if (!record || !state) return null;
    const next = change(state, record);
    if (!next) return { record, state };
    const updated = await store.updateRun(
      runId,
      { ...next.patch, ...detachedMetaPatch(record, next.state) },
      { expectedRevision: record.revision },
    );
    if (updated) return { record: updated, state: next.state };
  }
  return null;
}
