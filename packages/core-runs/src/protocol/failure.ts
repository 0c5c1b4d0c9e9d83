/** Why the parent stopped waiting for a run without a logical result. */
export type AgentToolInterruptedReason =
  | "no-progress"
  | "window-exceeded"
  | "not-tailable"
  | "inspect-timeout"
  | "inspect-failed"
  | "recovery-deadline"
  | "budget-exceeded";

/** Every interrupted reason. */
export const AGENT_TOOL_INTERRUPTED_REASONS: readonly AgentToolInterruptedReason[] = [
  "no-progress",
  "window-exceeded",
  "not-tailable",
  "inspect-timeout",
  "inspect-failed",
  "recovery-deadline",
  "budget-exceeded",
];

/** True when `value` is one of the interrupted reasons. */
export function isAgentToolInterruptedReason(value: unknown): value is AgentToolInterruptedReason {
  return typeof value === "string" && (AGENT_TOOL_INTERRUPTED_REASONS as readonly string[]).includes(value);
}

/**
 * Why a dispatch was refused before a child was started: over `maxConcurrentAgentTools`, input over
 * `maxAgentToolInputBytes` or not JSON, a runId taken by another agent type, (detached) options that cannot be
 * accepted, or a budget that allows no such run (too deep, no run, token, cost or time left).
 */
export type DispatchRejection =
  | "max-concurrency"
  | "input-too-large"
  | "agent-type-mismatch"
  | "invalid-input"
  | "invalid-options"
  | "budget-exceeded";

/**
 * What a run cut short by its budget gave in its wrap-up step: its summary and, if it stored one, its output.
 *
 * @experimental New API: it may change without a major version.
 */
export type AgentToolPartialResult = {
  summary: string;
  output?: unknown;
};

/**
 * A run that did not complete, as a value the model (and code) can act on.
 * Branch on `status`, `retryable`, `rejection` and `reason`; `error` is prose, safe to show, never to parse.
 */
export type AgentToolFailure =
  | {
      ok: false;
      runId: string;
      agentType: string;
      status: "error" | "aborted";
      error: string;
      retryable: false;
      /** Set (with `status: "error"`) when the dispatch was refused: the run never started. */
      rejection?: DispatchRejection;
    }
  | {
      ok: false;
      runId: string;
      agentType: string;
      status: "interrupted";
      error: string;
      retryable: true;
      reason: AgentToolInterruptedReason;
      childStillRunning: boolean;
      /** Set with `reason: "budget-exceeded"` when the run gave something before it was cut short. */
      partial?: AgentToolPartialResult;
    };

/** A completed awaited run. */
export type AgentToolSuccess<TOutput = unknown> = {
  ok: true;
  runId: string;
  agentType: string;
  status: "completed";
  summary: string;
  output?: TOutput;
};

/** What an awaited `runAgentTool` resolves to: never throws for an expected outcome. */
export type AgentToolResult<TOutput = unknown> = AgentToolSuccess<TOutput> | AgentToolFailure;

/** True when `value` has the shape of an `AgentToolFailure`. */
export function isAgentToolFailure(value: unknown): value is AgentToolFailure {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    record["ok"] === false &&
    (record["status"] === "error" || record["status"] === "aborted" || record["status"] === "interrupted") &&
    typeof record["error"] === "string"
  );
}
