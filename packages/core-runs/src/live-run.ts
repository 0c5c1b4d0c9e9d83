import type { LiveRunLog } from "./live-run-log.js";
import type { AgentToolApproval, AgentToolMilestone, AgentToolProgressSnapshot } from "./protocol/index.js";
import type { RunBudget } from "./run-budget.js";

/** A run whose turn is executing in this runner. */
export type LiveRun = {
  readonly controller: AbortController;
  readonly log: LiveRunLog;
  /** The latest progress snapshot (also persisted on the row). */
  progress: AgentToolProgressSnapshot | undefined;
  readonly milestones: AgentToolMilestone[];
  /** Settles when the turn has ended and its terminal is recorded. */
  done: Promise<void>;
  /** Set by a cancel: settles once what the run dispatched itself has ended (its end is recorded after that). */
  descendantsEnded?: Promise<void>;
  /** What the run and its subtree spend, within the budget its tree gives it. */
  readonly budget: RunBudget;
  /** Set while the run is paused: its turn ended on tool calls that wait for these approvals. */
  paused?: { approvals: AgentToolApproval[] };
  /** Every approval published in the run's log (its own and its descendants'), latest state by approvalId. */
  readonly approvals: Map<string, AgentToolApproval>;
};
