import type { AgentToolRunState } from "@agent-tools/react";

/** One line of any value, for tool inputs and outputs. */
export function preview(value: unknown, max = 120): string {
  let text: string | undefined;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    text = "…";
  }
  if (text === undefined) return "";
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function runName(run: AgentToolRunState): string {
  const name = run.display?.name;
  return typeof name === "string" && name !== "" ? name : (run.agentType ?? "Run");
}

export function isLive(run: AgentToolRunState): boolean {
  return run.status === "starting" || run.status === "running";
}

export const STATUS_LABELS: Record<AgentToolRunState["status"], string> = {
  starting: "starting",
  running: "running",
  completed: "completed",
  error: "failed",
  aborted: "cancelled",
  interrupted: "interrupted",
};

/** The progress line of a run: "60% · Imported batch 3 of 5 · rows". */
export function progressText(run: AgentToolRunState): string {
  const progress = run.progress;
  const bits: string[] = [];
  if (progress?.fraction !== undefined && Number.isFinite(progress.fraction)) {
    bits.push(`${Math.round(clamp01(progress.fraction) * 100)}%`);
  }
  if (progress?.message) bits.push(progress.message);
  if (progress?.phase && progress.phase !== progress.message) bits.push(progress.phase);
  if (bits.length > 0) return bits.join(" · ");
  if (isLive(run)) return run.agentType === null ? "Waiting for the run to start…" : "Working…";
  return "";
}

export function clamp01(value: number): number {
  return Math.max(0, Math.min(1, value));
}

/** The one-line outcome of a finished run. */
export function resultText(run: AgentToolRunState): string {
  switch (run.status) {
    case "completed":
      return `✓ ${run.summary || "Completed"}`;
    case "error":
      return `✗ ${run.error ?? "Failed"}`;
    case "aborted":
      return `✗ Cancelled${run.error ? `: ${run.error}` : ""}`;
    case "interrupted": {
      const details = [run.reason, run.childStillRunning ? "child still running" : null].filter(Boolean).join(", ");
      return `⚠ Interrupted${details ? ` (${details})` : ""}${run.error ? `: ${run.error}` : ""}`;
    }
    case "starting":
    case "running":
      return "";
  }
}
