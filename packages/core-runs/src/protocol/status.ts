/**
 * The life of a run: `starting → running → completed | error | aborted` (hard terminal) or `interrupted` (soft).
 * `interrupted` exists only on the parent: a later real result repairs it to a hard terminal.
 */
export type RunStatus = "starting" | "running" | "completed" | "error" | "aborted" | "interrupted";

/** Statuses that end a run for now: the hard ones never change again; `interrupted` may be repaired. */
export type TerminalRunStatus = "completed" | "error" | "aborted" | "interrupted";

/** Statuses that never change again. */
export type HardTerminalRunStatus = "completed" | "error" | "aborted";

/** Statuses that hold a concurrency slot. */
export type LiveRunStatus = "starting" | "running";

/** Every run status, in lifecycle order. */
export const RUN_STATUSES: readonly RunStatus[] = [
  "starting",
  "running",
  "completed",
  "error",
  "aborted",
  "interrupted",
];

/** True for `completed`, `error`, `aborted` and `interrupted`. */
export function isTerminalStatus(status: RunStatus): status is TerminalRunStatus {
  return status !== "starting" && status !== "running";
}

/** True for `completed`, `error` and `aborted`: the statuses that never change again. */
export function isHardTerminalStatus(status: RunStatus): status is HardTerminalRunStatus {
  return status === "completed" || status === "error" || status === "aborted";
}

/** True for `starting` and `running`: the statuses that hold a concurrency slot. */
export function isLiveStatus(status: RunStatus): status is LiveRunStatus {
  return status === "starting" || status === "running";
}

/** True when `value` is one of the run statuses. */
export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === "string" && (RUN_STATUSES as readonly string[]).includes(value);
}
