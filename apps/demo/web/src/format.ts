import type { AgentToolRunState, AgentToolUsage } from "@agent-tools/react";

/** One line of any value, for tool inputs and outputs. */
export function preview(value: unknown, max = 120): string {
  let text: string | undefined;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    text = "…";
  }
  if (text === undefined) return "";
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A tool's input as a person reads it: one field shows its value alone (`research cats`), several show as
 * `name: value` pairs; anything else as compact JSON.
 */
export function describeInput(input: unknown, max = 120): string {
  if (input === undefined || input === null) return "";
  if (typeof input !== "object" || Array.isArray(input)) return preview(input, max);
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 1) return preview(entries[0]?.[1], max);
  return clip(entries.map(([key, value]) => `${key}: ${preview(value, 60)}`).join(" · "), max);
}

/**
 * Any value as a person reads it, in one line: lists joined with "; ", objects as `name: value` pairs (the only
 * field alone as its value).
 */
export function describeValue(value: unknown, max = 120): string {
  const describe = (item: unknown): string => {
    if (Array.isArray(item)) return item.map(describe).join("; ");
    if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item as Record<string, unknown>);
      if (entries.length === 1) return describe(entries[0]?.[1]);
      return entries.map(([key, field]) => `${key}: ${describe(field)}`).join(" · ");
    }
    return item === undefined || item === null ? "" : String(item);
  };
  return clip(describe(value).replace(/\s+/g, " ").trim(), max);
}

/** The same for a run's input preview (the server's JSON text of it, or plain text). */
export function describeInputPreview(text: string | null, max = 120): string {
  if (text === null || text === "") return "";
  try {
    return describeInput(JSON.parse(text), max);
  } catch {
    return preview(text, max);
  }
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

/** Who ended a cancelled run, as far as this page knows. */
export type CancelCause = "you" | "reply-stopped" | "reply-stopped-by-you" | "elsewhere";

/** One wording for each: the tool call's header says the same in lower case ("stopped by you"). */
export const CANCEL_LABELS: Record<CancelCause, string> = {
  you: "Cancelled by you",
  "reply-stopped-by-you": "Stopped by you",
  "reply-stopped": "Stopped",
  elsewhere: "Cancelled",
};

/** A cancel cause as the middle of a sentence says it: "cancelled by you", "stopped by you". */
export function cancelLabel(cause: CancelCause): string {
  const label = CANCEL_LABELS[cause];
  return label.charAt(0).toLowerCase() + label.slice(1);
}

const unique = (names: readonly string[]) => [...new Set(names)];

/** The tools a live run's tree waits to be approved for (none: it waits for nothing). */
export function waitingToolNames(run: AgentToolRunState): string[] {
  if (!isLive(run)) return [];
  return unique(run.approvals.filter((approval) => approval.status === "pending").map((each) => each.toolName));
}

/** The tools a completed run's tree was denied (or not approved in time): its end is not a plain success. */
export function deniedToolNames(run: AgentToolRunState): string[] {
  if (run.status !== "completed") return [];
  const denied = run.approvals.filter((approval) => approval.status === "denied" || approval.status === "expired");
  return unique(denied.map((approval) => approval.toolName));
}

/** How a run stands, in words: its status, or that it waits for approval, or what its tree was denied. */
export function runStatusLabel(run: AgentToolRunState): string {
  if (waitingToolNames(run).length > 0) return "waiting for approval";
  const denied = deniedToolNames(run);
  return denied.length > 0 ? `${STATUS_LABELS[run.status]}, ${denied.join(", ")} denied` : STATUS_LABELS[run.status];
}

/** The one-line outcome of a finished run. */
export function resultText(run: AgentToolRunState, cancelCause: CancelCause = "elsewhere"): string {
  switch (run.status) {
    case "completed":
      return run.summary || "Completed";
    case "error":
      return run.error ?? "Failed";
    case "aborted":
      // Cancelled elsewhere (another tab, the parent): the run's own reason says by whom, when it gives one.
      return cancelCause === "elsewhere" && run.error ? run.error : CANCEL_LABELS[cancelCause];
    case "interrupted": {
      const details = [run.reason, run.childStillRunning ? "child still running" : null].filter(Boolean).join(", ");
      return `Interrupted${details ? ` (${details})` : ""}`;
    }
    case "starting":
    case "running":
      return "";
  }
}

export function clamp01(value: number): number {
  return Math.max(0, Math.min(1, value));
}

/** `text` without the background run ids it names (` (background:call-1)`): the run's name says which it is. */
export function withoutRunIds(text: string, runIds: readonly string[]): string {
  let result = text;
  for (const runId of runIds) result = result.split(` (${runId})`).join("").split(runId).join("the run");
  return result;
}

/** A token count as a person reads it: 950, 1.2k, 12k, 1.3M. */
export function formatTokens(count: number): string {
  if (count < 1_000) return String(count);
  if (count < 10_000) return `${(count / 1_000).toFixed(1).replace(/\.0$/, "")}k`;
  if (count < 1_000_000) return `${Math.round(count / 1_000)}k`;
  return `${(count / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/**
 * What a run (with its subtree) or a turn spent, in one short line — "1.2k tokens · 3 runs" — and in words for its
 * title: "1,150 input and 84 output tokens; 3 runs dispatched". With `own` (the turn's or run's own model calls), its
 * share as tokens ("436"), also in the title. `null` when nothing was counted.
 */
export function describeUsage(
  usage: AgentToolUsage | null | undefined,
  own?: AgentToolUsage | null,
): { short: string; long: string; own: string | null } | null {
  if (!usage) return null;
  const tokens = usage.inputTokens + usage.outputTokens;
  if (tokens === 0 && usage.runs === 0) return null;
  const runs = usage.runs === 1 ? "1 run" : `${usage.runs} runs`;
  const cost = usage.cost !== undefined ? ` · cost ${usage.cost}` : "";
  const ownTokens = own ? own.inputTokens + own.outputTokens : null;
  return {
    short: `${formatTokens(tokens)} tokens${usage.runs > 0 ? ` · ${runs}` : ""}${cost}`,
    long:
      `${usage.inputTokens.toLocaleString("en")} input and ${usage.outputTokens.toLocaleString("en")} output tokens` +
      `${usage.runs > 0 ? `; ${runs} dispatched` : ""}${usage.cost !== undefined ? `; cost ${usage.cost}` : ""}` +
      (own ? `; its own model calls: ${own.inputTokens.toLocaleString("en")} input and ` : "") +
      (own ? `${own.outputTokens.toLocaleString("en")} output tokens` : ""),
    own: ownTokens === null ? null : formatTokens(ownTokens),
  };
}
