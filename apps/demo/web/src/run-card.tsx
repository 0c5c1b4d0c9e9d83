import { AGENT_MILESTONE_PART } from "@agent-tools/core-runs/protocol";
import type { AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useId, useLayoutEffect, useRef } from "react";
import { clamp01, isLive, progressText, resultText, runName, STATUS_LABELS } from "./format.js";
import { partKey, TimelinePart } from "./parts.js";

export type RunActions = {
  /** Open the drill-in panel for a run. */
  onDrillIn(runId: string): void;
  onCancel(runId: string): void;
  /** RunIds whose cancel request is in flight. */
  cancelling: ReadonlySet<string>;
};

/**
 * One child run: name and status, a progress row (always there, so a report appearing never moves anything), its
 * streaming timeline (a bounded, scrollable box that follows the end while you have not scrolled up), and its
 * outcome. Details opens the drill-in panel; Cancel shows while the run is live.
 */
export function RunCard({
  run,
  actions,
  compact = false,
}: {
  run: AgentToolRunState;
  actions: RunActions;
  compact?: boolean;
}): ReactNode {
  const titleId = useId();
  const name = runName(run);
  const live = isLive(run);
  const fraction = run.progress?.fraction;
  // Indeterminate (no value) only while a live run has reported no fraction.
  const barValue =
    fraction !== undefined && Number.isFinite(fraction)
      ? clamp01(fraction)
      : run.status === "completed"
        ? 1
        : live
          ? undefined
          : 0;
  const hasMilestoneParts = run.parts.some((part) => part.type === AGENT_MILESTONE_PART);
  const outcome = resultText(run) || (run.streamError ? `! ${run.streamError}` : "");
  const cancelling = actions.cancelling.has(run.runId);

  return (
    <article
      className={`run s-${run.status}${compact ? " compact" : ""}`}
      aria-labelledby={titleId}
      data-run-id={run.runId}
      data-agent-type={run.agentType ?? ""}
      data-status={run.status}
    >
      <header className="run-head">
        <h4 id={titleId} className="run-name">
          {name}
        </h4>
        <span className="badge" title={`Status: ${STATUS_LABELS[run.status]}`}>
          {STATUS_LABELS[run.status]}
        </span>
        <span className="spacer" />
        <button
          type="button"
          onClick={() => actions.onDrillIn(run.runId)}
          disabled={run.drillInUrl === null}
          aria-label={`Details of ${name}: its own conversation`}
        >
          Details
        </button>
        {live && (
          <button
            type="button"
            className="danger"
            onClick={() => actions.onCancel(run.runId)}
            disabled={cancelling}
            aria-label={`Cancel ${name}`}
          >
            {cancelling ? "Cancelling…" : "Cancel"}
          </button>
        )}
      </header>
      {run.inputPreview !== null && run.inputPreview !== "" && (
        <p className="run-input" title={run.inputPreview}>
          {run.inputPreview}
        </p>
      )}
      <div className="progress-row">
        <progress aria-label={`${name} progress`} max={1} value={barValue} />
        <span className="progress-text">{progressText(run)}</span>
      </div>
      <Timeline run={run} label={`${name} output`} showMilestones={!hasMilestoneParts} />
      <p className={`run-result r-${run.status}`} role={run.status === "error" ? "alert" : undefined}>
        {outcome}
      </p>
    </article>
  );
}

/** The run's streaming output, following its end unless the reader scrolled up. */
function Timeline({ run, label, showMilestones }: { run: AgentToolRunState; label: string; showMilestones: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follow the end whenever the parts change
  useLayoutEffect(() => {
    const element = box.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [run.parts]);
  return (
    <div
      className="timeline"
      ref={box}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region needs a tab stop, to scroll it by keyboard
      tabIndex={0}
      role="log"
      aria-label={label}
      aria-live="off"
      onScroll={(event) => {
        const element = event.currentTarget;
        pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
      }}
    >
      {run.parts.map((part, index) => (
        <TimelinePart key={partKey(part, index)} part={part} />
      ))}
      {showMilestones &&
        run.milestones.map((milestone) => (
          <p className="t-milestone" key={`milestone-${milestone.sequence}`}>
            ◆ {milestone.name}
            {milestone.message ? ` — ${milestone.message}` : ""}
          </p>
        ))}
    </div>
  );
}
