import { useAgentToolRun } from "@agent-tools/react";
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from "react";
import { runName, runStatusLabel, waitingToolNames } from "./format.js";
import { partKey, TimelinePart } from "./parts.js";

const FOCUSABLE = 'a[href], button:not([disabled]), input, select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * Drill-in to one child run: a modal dialog with the child's own conversation (its input message and its assistant
 * message, with its own tool calls), live over the run's drill-in socket (`useAgentToolRun`). Focus starts on Close
 * and stays in the dialog while the conversation streams in; Escape or Close closes it, and focus goes back to the
 * control that opened it. On a narrow screen it fills the screen, its header (with Close) always in view.
 */
export function DrillInDialog({
  runId,
  parentUrl,
  jsonUrl,
  onClose,
}: {
  runId: string;
  /** The parent's event socket URL (the drill-in socket is under it). */
  parentUrl: string;
  /** The drill-in as JSON, for the link. */
  jsonUrl: string | null;
  onClose(): void;
}): ReactNode {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const { run, messages, drillIn } = useAgentToolRun(runId, { url: parentUrl });

  // Opened once mounted. Never closed from a clean-up: `close()` fires a `close` event later, which would unmount
  // a dialog that React StrictMode has just mounted again; removing the element takes it out of the top layer anyway.
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    // The dialog would focus its first control (the JSON link): start on Close instead.
    close.current?.focus();
  }, []);

  // Tab and Shift+Tab go round the dialog's controls: a modal dialog alone lets Tab leave for the browser's own UI.
  const keepFocusInside = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key !== "Tab" || !dialog.current) return;
    const controls = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (element) => element.offsetParent !== null,
    );
    const first = controls[0];
    const last = controls.at(-1);
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const title = run ? `${runName(run)} — its own conversation` : "Child conversation";
  return (
    <dialog
      ref={dialog}
      className="drill-in"
      aria-labelledby={titleId}
      onClose={onClose}
      onKeyDown={keepFocusInside}
      data-run-id={runId}
    >
      <header className="drill-head">
        <h2 id={titleId}>{title}</h2>
        <span
          className={`badge s-${run?.status ?? "none"}${run && waitingToolNames(run).length > 0 ? " waiting" : ""}`}
        >
          {run ? runStatusLabel(run) : "cleared"}
        </span>
        <span className="spacer" />
        {jsonUrl !== null && (
          <a href={jsonUrl} target="_blank" rel="noreferrer" className="button">
            JSON
          </a>
        )}
        <button type="button" ref={close} onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      {/* A scrollable region: a tab stop, so it scrolls by keyboard too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: see above */}
      <section className="drill-body" aria-label="The child's conversation" tabIndex={0}>
        <p className="muted run-id">
          Run <code>{runId}</code>
        </p>
        {!drillIn?.isLoaded ? (
          <p role="status">Loading the child's conversation…</p>
        ) : (
          <ol className="drill-messages">
            {messages.map((message) => (
              <li key={message.id} className={`drill-message ${message.role}`} data-role={message.role}>
                <h3>{message.role === "user" ? "Input" : message.role === "assistant" ? "Answer" : message.role}</h3>
                {message.parts.map((part, index) => (
                  <TimelinePart key={partKey(part, index)} part={part} />
                ))}
              </li>
            ))}
          </ol>
        )}
      </section>
    </dialog>
  );
}
