import { AGENT_MILESTONE_PART } from "@agent-tools/core-runs/protocol";
import type { AgentToolApprovalAnswer, AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { ApprovalList } from "./approval-panel.js";
import {
  type CancelCause,
  cancelLabel,
  deniedToolNames,
  describeInputPreview,
  describeUsage,
  isLive,
  resultText,
  runName,
  runStatusLabel,
  waitingToolNames,
} from "./format.js";
import { partKey, TimelinePart } from "./parts.js";
import { ProgressBar } from "./progress-bar.js";
import { StructuredValue } from "./structured-value.js";

export type RunActions = {
  /** Open the drill-in dialog for a run. */
  onDrillIn(runId: string): void;
  onCancel(runId: string): void;
  /** RunIds whose cancel request is in flight. */
  cancelling: ReadonlySet<string>;
  /** True for a run this page cancelled. */
  cancelledHere(runId: string): boolean;
  /** Answer an approval of the run's tree (`runId`: the card's run); resolves whether the server took it. */
  onAnswerApproval(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean>;
  /** The server cannot be reached now: approvals wait for the connection before they can be answered. */
  isOffline: boolean;
};

const STATUS_MARKS: Record<AgentToolRunState["status"], string> = {
  starting: "…",
  running: "…",
  completed: "✓",
  error: "✗",
  aborted: "⊘",
  interrupted: "⚠",
};

/** The mark of a run that completed without a tool its tree was denied. */
const DENIED_MARK = "⊘";

const hasStructuredOutput = (run: AgentToolRunState) =>
  run.status === "completed" && typeof run.output === "object" && run.output !== null;

/**
 * One child run. While it runs: name and status, a progress row, its streaming timeline (a bounded box that
 * follows the end unless you scrolled up) and Cancel. Once it finished it collapses to one line — name, status,
 * outcome — that opens again with its name (a disclosure button). Details (drill-in) is in the same place either
 * way, so focus coming back from the dialog finds it; after Cancel, focus moves to Details.
 *
 * It never opens and then folds by itself: it starts open only when it is live as it first shows (and its tool call
 * has no result yet: on a reload the run's frames are replayed from its start, `started` first), and folds once, when
 * a run it showed live ends. Otherwise only its reader opens and folds it.
 */
export function RunCard({
  run,
  actions,
  cancelCause,
  isCallSettled = false,
}: {
  run: AgentToolRunState;
  actions: RunActions;
  /** Who cancelled it, when the caller knows better than the page's own cancels (a stopped reply). */
  cancelCause?: CancelCause | null;
  /** The tool call that started it has its result: the run is over, whatever its replayed frames say yet. */
  isCallSettled?: boolean;
}): ReactNode {
  const titleId = useId();
  const bodyId = useId();
  const name = runName(run);
  const live = isLive(run);
  const [isOpen, setIsOpen] = useState(live && !isCallSettled);
  /** Whether it showed live (open by itself): only such a card folds by itself, once, when its run ends. */
  const showedLive = useRef(isOpen);
  const toggle = useRef<HTMLButtonElement>(null);
  const details = useRef<HTMLButtonElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const cancelHasFocus = useRef(false);

  // A run shown live folds once it ends (focus inside the part that hides goes to the disclosure button, never to the
  // page's start); a reader's own toggling wins.
  useLayoutEffect(() => {
    if (live || !showedLive.current) return;
    showedLive.current = false;
    if (body.current?.contains(document.activeElement)) toggle.current?.focus();
    setIsOpen(false);
  }, [live]);
  // Cancel disappears once the run ended: if it had focus, Details takes it.
  useEffect(() => {
    if (!live && cancelHasFocus.current) {
      cancelHasFocus.current = false;
      details.current?.focus();
    }
  }, [live]);

  const cause: CancelCause = actions.cancelledHere(run.runId)
    ? "you"
    : cancelCause && cancelCause !== "you"
      ? cancelCause
      : "elsewhere";
  const outcome = resultText(run, cause) || (run.streamError ? `! ${run.streamError}` : "");
  const cancelling = actions.cancelling.has(run.runId);
  const input = describeInputPreview(run.inputPreview);
  const hasMilestoneParts = run.parts.some((part) => part.type === AGENT_MILESTONE_PART);
  // A summary that is the child's last words already on show is not said twice.
  const lastText = [...run.parts].reverse().find((part) => part.type === "text");
  const repeatsText = lastText?.type === "text" && lastText.text.trim() === outcome.trim();
  const isWaiting = waitingToolNames(run).length > 0;
  const denied = deniedToolNames(run).length > 0;
  const statusLabel = runStatusLabel(run);
  // What the run and everything below it spent (tokens counted through the child's `context.model`, runs).
  const usage = describeUsage(run.usage);

  return (
    <article
      className={`run s-${run.status}${isOpen ? "" : " collapsed"}`}
      aria-labelledby={titleId}
      data-run-id={run.runId}
      data-agent-type={run.agentType ?? ""}
      data-status={run.status}
    >
      <header className="run-head">
        <h3 className="run-name">
          <button
            type="button"
            ref={toggle}
            id={titleId}
            className="run-toggle"
            aria-expanded={isOpen}
            aria-controls={bodyId}
            onClick={() => setIsOpen((open) => !open)}
          >
            <span className="chevron" aria-hidden="true" />
            {name}
          </button>
        </h3>
        {isOpen || isWaiting ? (
          // Waiting for an approval, it says so folded too.
          <span className={`badge${isWaiting ? " waiting" : ""}`}>{statusLabel}</span>
        ) : (
          // Folded to one line: the status as a mark (its words for screen readers), then the outcome. A run whose
          // tree was denied a tool is not marked as a plain success.
          <span className={`status-mark ${denied ? "r-denied" : `r-${run.status}`}`}>
            <span aria-hidden="true">{denied ? DENIED_MARK : STATUS_MARKS[run.status]}</span>
            <span className="visually-hidden">{statusLabel}:</span>
          </span>
        )}
        {!isOpen && (
          <span className={`run-line r-${run.status}`} title={outcome}>
            {outcome}
          </span>
        )}
        <span className="spacer" />
        {usage && (
          <span className="usage" title={usage.long}>
            <span className="visually-hidden">Spent: </span>
            {usage.short}
          </span>
        )}
        <button
          type="button"
          ref={details}
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
            onClick={() => {
              if (!cancelling) actions.onCancel(run.runId);
            }}
            onFocus={() => {
              cancelHasFocus.current = true;
            }}
            onBlur={() => {
              cancelHasFocus.current = false;
            }}
            aria-disabled={cancelling}
            aria-label={`Cancel ${name}`}
          >
            {cancelling ? "Cancelling…" : "Cancel"}
          </button>
        )}
      </header>
      {/* Outside the body: a pending approval shows on a folded card too. */}
      <ApprovalList
        approvals={run.approvals}
        runName={name}
        onAnswer={(approvalId, answer) => actions.onAnswerApproval(run.runId, approvalId, answer)}
        closedBy={run.status === "aborted" ? { reason: run.error, label: cancelLabel(cause) } : null}
        isOffline={actions.isOffline}
      />
      <div id={bodyId} ref={body} className="run-body" hidden={!isOpen}>
        {input !== "" && (
          <p className="run-input" title={input}>
            {input}
          </p>
        )}
        <ProgressBar run={run} label={`${name} progress`} />
        {hasStructuredOutput(run) ? (
          <div className="timeline structured">
            <StructuredValue value={run.output} />
          </div>
        ) : (
          <Timeline run={run} label={`${name} output`} showMilestones={!hasMilestoneParts} />
        )}
        <p className={`run-result r-${run.status}`}>{repeatsText ? "" : outcome}</p>
      </div>
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
