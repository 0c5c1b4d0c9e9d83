import type { AgentToolApproval } from "@agent-tools/core-runs";
import type { RunRecord } from "@agent-tools/core-runs/internal";
import type { Task } from "@modelcontextprotocol/sdk/types.js";
import { approvalQuestion } from "./approval-elicitation.js";

/** What a task is made of: the run's row (as the parent's registry holds it). */
export type TaskRun = Pick<RunRecord, "runId" | "status" | "startedAt" | "updatedAt" | "completedAt" | "error">;

/** Epoch milliseconds as the ISO 8601 text of MCP's timestamps. */
export function isoTime(epochMs: number): string {
  // biome-ignore lint/style/noRestrictedGlobals: formats a time the injected clock gave; it reads no time itself
  return new Date(epochMs).toISOString();
}

/**
 * The MCP task of a run, as a pure function of its row and the approvals its tree waits for: the task id is the run
 * id; `working` while it runs, `input_required` while an approval in its tree is pending, then `completed`, `failed`
 * (`error`, or `interrupted`: the parent gave up on it) or `cancelled` (`aborted`). Runs are kept until cleared, so
 * the task's `ttl` is `null`; `pollInterval` is suggested while it is live.
 */
export function taskOfRun(run: TaskRun, pending: readonly AgentToolApproval[], pollInterval: number): Task {
  const times = {
    taskId: run.runId,
    createdAt: isoTime(run.startedAt),
    lastUpdatedAt: isoTime(run.completedAt ?? run.updatedAt),
    ttl: null,
  };
  switch (run.status) {
    case "starting":
    case "running": {
      const [first] = pending;
      return first
        ? { ...times, status: "input_required", statusMessage: approvalQuestion(first), pollInterval }
        : { ...times, status: "working", pollInterval };
    }
    case "completed":
      return { ...times, status: "completed" };
    case "aborted":
      return { ...times, status: "cancelled", statusMessage: run.error ?? "The run was cancelled" };
    case "error":
    case "interrupted":
      return { ...times, status: "failed", statusMessage: run.error ?? `The run ended ${run.status}` };
  }
}
