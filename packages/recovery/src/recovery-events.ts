import type { AgentToolInterruptedReason, RunStatus } from "@agent-tools/core-runs";

/** How recovery ended for one run. */
export type RecoveryRowOutcome =
  /** The child had already finished: its result was collected, nothing was run again. */
  | "finalized"
  /** The child was still running (or had not acknowledged its start): it was followed to its end. */
  | "reattached"
  /** Recovery gave up on the run: it is `interrupted` with a `reason`. */
  | "interrupted";

/** What one recovered row's event says (also its `payload`). */
export type RecoveryRowFields = {
  runId: string;
  agentType: string;
  outcome: RecoveryRowOutcome;
  /** The run's status after recovery. */
  status: RunStatus;
  /** Set when `outcome` is `interrupted`. */
  reason?: AgentToolInterruptedReason;
  /** Set when `outcome` is `interrupted`. */
  childStillRunning?: boolean;
  /** Time spent recovering this row (ms of the registry's clock). */
  durationMs: number;
};

/**
 * One recovered row, emitted as `agent_tool:recovery:row` through the registry's sink. Its fields are also its
 * `payload`, for loggers that read `event.payload`.
 */
export type RecoveryRowEvent = { type: "agent_tool:recovery:row" } & RecoveryRowFields & {
    payload: RecoveryRowFields;
    at: number;
  };

/** What a failed row's event says (also its `payload`). */
export type RecoveryRowFailedFields = { runId: string; agentType: string; errorName: string };

/** The row's recovery threw (a store failure): the row was left as it was, for the next start-up. */
export type RecoveryRowFailedEvent = { type: "agent_tool:recovery:row_failed" } & RecoveryRowFailedFields & {
    payload: RecoveryRowFailedFields;
    at: number;
  };

/** What the summary event says (also its `payload`). */
export type RecoveryDoneFields = {
  /** Rows that were `starting`/`running` when recovery began. */
  rows: number;
  finalized: number;
  reattached: number;
  interrupted: number;
  /** Rows cleared while being recovered. */
  cleared: number;
  /** Rows whose recovery threw (see `agent_tool:recovery:row_failed`). */
  failed: number;
  durationMs: number;
};

/** The summary of one recovery, emitted as `agent_tool:recovery:done`. */
export type RecoveryDoneEvent = { type: "agent_tool:recovery:done" } & RecoveryDoneFields & {
    payload: RecoveryDoneFields;
    at: number;
  };

/** Every event this package emits. */
export type RecoveryEvent = RecoveryRowEvent | RecoveryRowFailedEvent | RecoveryDoneEvent;

/**
 * An event of this package with its fields, and the same fields as its `payload`.
 * @internal
 */
export function recoveryEvent<TEvent extends RecoveryEvent>(
  type: TEvent["type"],
  fields: TEvent["payload"],
  at: number,
): TEvent {
  return { type, ...fields, payload: fields, at } as TEvent;
}
