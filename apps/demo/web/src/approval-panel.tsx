import { type AgentToolApproval, type AgentToolApprovalAnswer, MAX_APPROVAL_REASON_LENGTH } from "@agent-tools/react";
import { type FormEvent, type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import {
  type ApprovalClosedBy,
  approvalAsker,
  approvalInputText,
  approvalOutcome,
  isClosedByRun,
} from "./approval-format.js";
import "./approval.css";

/** Send an answer; resolves whether the server took it (`false`: it was already answered, or is unknown). */
export type AnswerApproval = (approvalId: string, answer: AgentToolApprovalAnswer) => Promise<boolean>;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The approvals of one run's tree, on its card: each pending one as a panel with Approve and Deny, each answered one
 * as its status (same box, same place: only its controls row turns into the outcome).
 */
export function ApprovalList({
  approvals,
  runName,
  onAnswer,
  closedBy = null,
  isOffline = false,
}: {
  approvals: readonly AgentToolApproval[];
  /** The card's run, as the start of each asker's path. */
  runName: string;
  onAnswer: AnswerApproval;
  /** How the card's run ended, when its end (a Cancel, a Stop) closed what was pending. */
  closedBy?: ApprovalClosedBy | null;
  /** The server cannot be reached now: an answer waits until it can. */
  isOffline?: boolean;
}): ReactNode {
  if (approvals.length === 0) return null;
  return (
    <div className="approvals">
      {approvals.map((approval) => (
        <ApprovalPanel
          key={approval.approvalId}
          approval={approval}
          asker={approvalAsker(runName, approval)}
          onAnswer={onAnswer}
          closedBy={closedBy}
          isOffline={isOffline}
        />
      ))}
    </div>
  );
}

const OFFLINE_NOTE = "The connection is lost: you can answer once it is back.";

/** Why an answer failed, in plain words: a request that never reached the server says so. */
function failureNote(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  // `fetch` rejects with a TypeError when the request never got an answer (offline, refused, cut).
  if (error instanceof TypeError || cause instanceof TypeError) {
    return "Could not reach the server: your answer was not sent. Try again.";
  }
  return `Could not answer: ${errorText(error)}`;
}

/**
 * One approval: which tool, with what input, which run asks; while pending, a reason field (for Deny, optional) and
 * Deny and Approve, off while an answer is in flight (and after it was taken, until the new state arrives). The
 * pending panel never changes its size: a note line is always there. Once answered, its controls turn into the
 * outcome, and focus that was in them goes to it.
 */
export function ApprovalPanel({
  approval,
  asker,
  onAnswer,
  closedBy = null,
  isOffline = false,
}: {
  approval: AgentToolApproval;
  asker: string;
  onAnswer: AnswerApproval;
  closedBy?: ApprovalClosedBy | null;
  isOffline?: boolean;
}): ReactNode {
  const titleId = useId();
  const reasonId = useId();
  const [reason, setReason] = useState("");
  const [sending, setSending] = useState<"approve" | "deny" | null>(null);
  /** Taken by the server: the new state is on its way through the event socket. */
  const [isTaken, setIsTaken] = useState(false);
  const [note, setNote] = useState<{ text: string; isError: boolean } | null>(null);
  /** This tab's answer that was not taken (another tab's, or the expiry, came first): said with the outcome too. */
  const [lost, setLost] = useState<"Approve" | "Deny" | null>(null);
  const panel = useRef<HTMLElement>(null);
  const outcome = useRef<HTMLParagraphElement>(null);
  const isPending = approval.status === "pending";
  // Closed by its run's end (a Cancel, a Stop), not denied by anyone: said in neutral colours.
  const shownStatus = isClosedByRun(approval, closedBy) ? "closed" : approval.status;
  const wasPending = useRef(isPending);
  const hadFocus = useRef(false);

  // The controls go once it is answered: focus that was in them moves to the outcome, not to the page's start.
  useLayoutEffect(() => {
    if (wasPending.current && !isPending && hadFocus.current) outcome.current?.focus();
    wasPending.current = isPending;
  }, [isPending]);

  /** An answer is in flight, or was taken: the reason is kept as sent. */
  const isLocked = sending !== null || isTaken;
  const isBusy = isLocked || isOffline;
  // Offline, what an earlier attempt said no longer holds: the panel says why it waits instead.
  useEffect(() => {
    if (isOffline) setNote(null);
  }, [isOffline]);
  const answer = (approved: boolean) => {
    if (isBusy) return;
    const given = approved || reason.trim() === "" ? { approved } : { approved, reason: reason.trim() };
    setSending(approved ? "approve" : "deny");
    setNote(null);
    onAnswer(approval.approvalId, given)
      .then((taken) => {
        setIsTaken(taken);
        if (!taken) setLost(approved ? "Approve" : "Deny");
        setNote(
          taken
            ? { text: approved ? "Approved: the run goes on…" : "Denied: the run goes on without it…", isError: false }
            : { text: "It was already answered (in another tab, or it expired).", isError: false },
        );
      })
      .catch((error: unknown) => setNote({ text: failureNote(error), isError: true }))
      .finally(() => setSending(null));
  };
  const deny = (event: FormEvent) => {
    event.preventDefault();
    answer(false);
  };

  return (
    <section
      ref={panel}
      className={`approval a-${shownStatus}`}
      aria-labelledby={titleId}
      data-approval-id={approval.approvalId}
      data-status={approval.status}
      onFocus={() => {
        hadFocus.current = true;
      }}
      onBlur={(event) => {
        hadFocus.current = panel.current?.contains(event.relatedTarget as Node | null) ?? false;
      }}
    >
      <h4 id={titleId} className="approval-title">
        {isPending ? "Approval needed" : "Approval"}: <code>{approval.toolName}</code>
      </h4>
      <p className="approval-asker">Asked by {asker}</p>
      <section
        className="approval-input"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region needs a tab stop, to scroll it by keyboard
        tabIndex={0}
        aria-label={`Input of ${approval.toolName}, asked by ${asker}`}
      >
        <pre>{approvalInputText(approval.input)}</pre>
      </section>
      {isPending ? (
        <form className="approval-form" onSubmit={deny}>
          <label className="approval-reason" htmlFor={reasonId}>
            Reason for denying (optional)
            <input
              id={reasonId}
              className="approval-reason-field"
              value={reason}
              maxLength={MAX_APPROVAL_REASON_LENGTH}
              onChange={(event) => setReason(event.target.value)}
              readOnly={isLocked}
            />
          </label>
          <div className="approval-actions">
            <button
              type="submit"
              className="danger"
              aria-disabled={isBusy}
              aria-describedby={titleId}
              onClick={(event) => {
                if (isBusy) event.preventDefault();
              }}
            >
              {sending === "deny" ? "Denying…" : "Deny"}
            </button>
            <button
              type="button"
              className="primary"
              aria-disabled={isBusy}
              aria-describedby={titleId}
              onClick={() => answer(true)}
            >
              {sending === "approve" ? "Approving…" : "Approve"}
            </button>
          </div>
          <p className={`approval-note${note?.isError ? " is-error" : ""}`} aria-live="polite">
            {isOffline && sending === null && !isTaken ? OFFLINE_NOTE : (note?.text ?? "")}
          </p>
        </form>
      ) : (
        <p ref={outcome} className={`approval-outcome o-${shownStatus}`} tabIndex={-1}>
          {approvalOutcome(approval, closedBy)}
          {lost !== null && ` (your ${lost} came too late: it was already answered)`}
        </p>
      )}
    </section>
  );
}
