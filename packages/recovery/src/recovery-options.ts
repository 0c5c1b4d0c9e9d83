import { AgentToolsError } from "@agent-tools/core-runs";

/** Default `agentToolInspectTimeoutMs`: how long one inspection of a child may take. */
export const DEFAULT_AGENT_TOOL_INSPECT_TIMEOUT_MS = 2_000;
/** Default `agentToolRecoveryDeadlineMs`: how long classifying the rows may take in all. */
export const DEFAULT_AGENT_TOOL_RECOVERY_DEADLINE_MS = 5_000;
/** Default `agentToolReattachNoProgressTimeoutMs`: how long a re-attached child may stay silent. */
export const DEFAULT_AGENT_TOOL_REATTACH_NO_PROGRESS_TIMEOUT_MS = 120_000;
/** Default `agentToolReattachMaxWindowMs`: no cap. */
export const DEFAULT_AGENT_TOOL_REATTACH_MAX_WINDOW_MS = Number.POSITIVE_INFINITY;

/** Options of `recoverAgentToolRuns`. Every duration is in milliseconds of the registry's `Clock`. */
export type RecoverAgentToolRunsOptions = {
  /**
   * Bound on each inspection of a child while classifying its run (default 2 000). A child that does not answer
   * in time is given up as `interrupted` / `inspect-timeout`. Must be > 0 (`Infinity` waits forever).
   */
  agentToolInspectTimeoutMs?: number;
  /**
   * Bound on classifying every row, counted from the start of recovery (default 5 000). A row not classified by
   * then is given up as `interrupted` / `recovery-deadline`. Following a live child is not bounded by this, only
   * by the re-attach windows below. Must be > 0 (`Infinity` for none).
   */
  agentToolRecoveryDeadlineMs?: number;
  /**
   * How long a re-attached child may stay silent (default 120 000); every entry forwarded to clients restarts the
   * count. Silence past it records `interrupted` / `no-progress`, `childStillRunning: true`: the child is left
   * running and a re-dispatch of the run re-attaches to it. `0` means "collect only a child that has already
   * finished": live children are not followed at all. `Infinity` never gives up on silence.
   */
  agentToolReattachNoProgressTimeoutMs?: number;
  /**
   * A hard cap on following one re-attached child, however busy it is (default `Infinity`; `0` also means no
   * cap). Past it the run is recorded as `interrupted` / `window-exceeded`, `childStillRunning: false`, and
   * then the child is cancelled.
   */
  agentToolReattachMaxWindowMs?: number;
  /**
   * Also recover detached runs (default false: `@agent-tools/detached` watches them with its own budgets, and a
   * slow background run is not dead). Set it only when you use detached runs without that package's `start()`.
   */
  includeDetached?: boolean;
};

/** The options with their defaults applied. */
export type ResolvedRecoveryOptions = Required<RecoverAgentToolRunsOptions>;

/**
 * Apply the defaults and check the values; throws an `AgentToolsError` (`INVALID_ARGUMENT`) for a value that is
 * not a number in range, since that is a bug in the host, not an outcome.
 */
export function resolveRecoveryOptions(options: RecoverAgentToolRunsOptions = {}): ResolvedRecoveryOptions {
  const resolved: ResolvedRecoveryOptions = {
    agentToolInspectTimeoutMs: options.agentToolInspectTimeoutMs ?? DEFAULT_AGENT_TOOL_INSPECT_TIMEOUT_MS,
    agentToolRecoveryDeadlineMs: options.agentToolRecoveryDeadlineMs ?? DEFAULT_AGENT_TOOL_RECOVERY_DEADLINE_MS,
    agentToolReattachNoProgressTimeoutMs:
      options.agentToolReattachNoProgressTimeoutMs ?? DEFAULT_AGENT_TOOL_REATTACH_NO_PROGRESS_TIMEOUT_MS,
    agentToolReattachMaxWindowMs: options.agentToolReattachMaxWindowMs ?? DEFAULT_AGENT_TOOL_REATTACH_MAX_WINDOW_MS,
    includeDetached: options.includeDetached ?? false,
  };
  requireDuration("agentToolInspectTimeoutMs", resolved.agentToolInspectTimeoutMs, { allowZero: false });
  requireDuration("agentToolRecoveryDeadlineMs", resolved.agentToolRecoveryDeadlineMs, { allowZero: false });
  requireDuration("agentToolReattachNoProgressTimeoutMs", resolved.agentToolReattachNoProgressTimeoutMs, {
    allowZero: true,
  });
  requireDuration("agentToolReattachMaxWindowMs", resolved.agentToolReattachMaxWindowMs, { allowZero: true });
  return resolved;
}

function requireDuration(name: string, value: number, options: { allowZero: boolean }): void {
  const isValid = typeof value === "number" && !Number.isNaN(value) && (options.allowZero ? value >= 0 : value > 0);
  if (!isValid) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `${name} must be a number ${options.allowZero ? "≥ 0" : "> 0"} (Infinity allowed), got ${String(value)}`,
    );
  }
}
