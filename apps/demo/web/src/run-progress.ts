import type { AgentToolRunState } from "@agent-tools/react";
import { clamp01, isLive, waitingToolNames } from "./format.js";

/** What a run's progress row shows. */
export type RunProgressView = {
  /** 0…1, or `null` while nothing says how far the run is (an indeterminate bar). */
  fraction: number | null;
  /** "60% · Imported batch 3 of 5". */
  text: string;
};

/**
 * A run's progress as the page shows it, given what it showed last: a report without a fraction (a milestone, a
 * phase change) keeps the last known fraction and message, so the bar never falls back to "unknown" once it moved;
 * a finished run is full when it completed.
 */
export function runProgressView(run: AgentToolRunState, previous: RunProgressView | null): RunProgressView {
  const progress = run.progress;
  const reported = progress?.fraction;
  const milestoneFraction = [...run.milestones]
    .reverse()
    .find((milestone) => milestone.fraction !== undefined)?.fraction;
  let fraction: number | null =
    reported !== undefined && Number.isFinite(reported)
      ? clamp01(reported)
      : (previous?.fraction ?? (milestoneFraction !== undefined ? clamp01(milestoneFraction) : null));
  if (run.status === "completed") fraction = 1;
  // A run waiting for an approval says so, not what it did last: it does nothing until someone answers.
  const waiting = waitingToolNames(run);
  const message = waiting.length > 0 ? `Waiting for your approval: ${waiting.join(", ")}` : (progress?.message ?? "");
  const percent = fraction === null ? "" : `${Math.round(fraction * 100)}%`;
  let text = [percent, message].filter(Boolean).join(" · ");
  if (text === "" && previous !== null && isLive(run)) text = previous.text;
  if (text === "" && isLive(run)) text = run.agentType === null ? "Waiting for the run to start…" : "Working…";
  return { fraction, text };
}
