import type { AgentToolInterruptedReason, RunStatus } from "@agent-tools/core-runs";

/** How recovery ended for one run. */
export type RecoveryRowOutcome =
  /** The child had already finished: its result was collected, nothing was run again. */
  | "finalized"
  /** The child was still running (or had not acknowledged its start): it was followed to its end. */
  | "reattached"
  /** Recovery gave up on the run: it is `interrupted` with a `reason`. */
  | "interrupted";

/** One recovered row, emitted as `agent_tool:recovery:row` through the registry's sink. */
export type RecoveryRowEvent = {
  type: "agent_tool:recovery:row";
  runId: string;
  agentType: string;
  outcome: RecoveryRowOutcome;
  /** The run's status after recovery. */
  status: RunStatus;
  /** Set when `outcome` is `interrupted`. */
  reason?: AgentToolInterruptedReason;
  /** Time spent recovering this row (ms of the registry's clock). */
  durationMs: number;
  at: number;
};

/** The row's recovery threw (a store failure): the row was left as it was, for the next start-up. */
export type RecoveryRowFailedEvent = {
  type: "agent_tool:recovery:row_failed";
  runId: string;
  agentType: string;
  errorName: string;
  at: number;
};

/** The summary of one recovery, emitted as `agent_tool:recovery:done`. */
export type RecoveryDoneEvent = {
  type: "agent_tool:recovery:done";
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
  at: number;
};

/** Every event this package emits. */
export type RecoveryEvent = RecoveryRowEvent | RecoveryRowFailedEvent | RecoveryDoneEvent;
