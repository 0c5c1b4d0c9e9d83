import type { AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useEffect, useRef } from "react";
import { isLive } from "./format.js";
import { type RunProgressView, runProgressView } from "./run-progress.js";

/**
 * A run's progress row: always there with a fixed height (a report appearing never moves the layout), a bar that
 * glides to each new value (CSS transition; none with reduced motion) and keeps its last known value when a report
 * says no fraction, and the progress line.
 */
export function ProgressBar({ run, label }: { run: AgentToolRunState; label: string }): ReactNode {
  // The view last shown: a report without a fraction keeps its value.
  const shown = useRef<RunProgressView | null>(null);
  const view = runProgressView(run, shown.current);
  useEffect(() => {
    shown.current = view;
  });
  const percent = view.fraction === null ? null : Math.round(view.fraction * 100);
  // Indeterminate only while a live run has said nothing of how far it is; a run that ended without saying shows empty.
  const isIndeterminate = percent === null && isLive(run);
  return (
    <div className="progress-row">
      <div
        className={`bar${isIndeterminate ? " indeterminate" : ""}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        {...(percent === null ? {} : { "aria-valuenow": percent })}
        aria-valuetext={view.text || undefined}
      >
        <div className="bar-fill" style={isIndeterminate ? {} : { transform: `scaleX(${view.fraction ?? 0})` }} />
      </div>
      <span className="progress-text">{view.text}</span>
    </div>
  );
}
