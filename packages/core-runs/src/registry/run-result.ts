import type {
  AgentToolFailure,
  AgentToolLifecycleResult,
  AgentToolResult,
  DispatchRejection,
  TerminalRunStatus,
} from "../protocol/index.js";
import type { RunRecord } from "./run-record.js";

/** What hooks receive for a terminal row. */
export function toLifecycleResult(record: RunRecord & { status: TerminalRunStatus }): AgentToolLifecycleResult {
  return {
    status: record.status,
    ...(record.summary !== undefined ? { summary: record.summary } : {}),
    ...(record.output !== undefined ? { output: record.output } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.childStillRunning !== undefined ? { childStillRunning: record.childStillRunning } : {}),
  };
}

/** The awaited result for a terminal row: the success value, or an `AgentToolFailure`. */
export function toAgentToolResult(record: RunRecord & { status: TerminalRunStatus }): AgentToolResult {
  const { runId, agentType } = record;
  const status: TerminalRunStatus = record.status;
  switch (status) {
    case "completed":
      return {
        ok: true,
        runId,
        agentType,
        status: "completed",
        summary: record.summary ?? "",
        ...(record.output !== undefined ? { output: record.output } : {}),
      };
    case "interrupted":
      return {
        ok: false,
        runId,
        agentType,
        status: "interrupted",
        error: record.error ?? "The parent stopped waiting for this run",
        retryable: true,
        reason: record.reason ?? "not-tailable",
        // As the registry treats the row: unless the child is known to be stopped, it may still run.
        childStillRunning: record.childStillRunning !== false,
        // A run its budget cut short gave what it had in its wrap-up step.
        ...(record.reason === "budget-exceeded" && (record.summary !== undefined || record.output !== undefined)
          ? {
              partial: {
                summary: record.summary ?? "",
                ...(record.output !== undefined ? { output: record.output } : {}),
              },
            }
          : {}),
      };
    case "error":
    case "aborted":
      return failure(
        runId,
        agentType,
        status,
        record.error ?? defaultError(status),
        // Recorded refused by the concurrency cap (`overCap: "record"`): the run never started.
        record.endCause === "max-concurrency" ? "max-concurrency" : undefined,
      );
  }
}

/** A non-retryable failure value; `rejection` when the dispatch was refused before any child started. */
export function failure(
  runId: string,
  agentType: string,
  status: "error" | "aborted",
  error: string,
  rejection?: DispatchRejection,
): AgentToolFailure {
  return { ok: false, runId, agentType, status, error, retryable: false, ...(rejection ? { rejection } : {}) };
}

function defaultError(status: "error" | "aborted"): string {
  return status === "aborted" ? "The run was aborted" : "The run failed";
}
