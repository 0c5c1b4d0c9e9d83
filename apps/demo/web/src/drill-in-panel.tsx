import type { AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { type DrillInSnapshot, fetchDrillIn } from "./api.js";
import { runName, STATUS_LABELS } from "./format.js";
import { partKey, TimelinePart } from "./parts.js";

/** Refetch the child's conversation at most this often while the run streams. */
const REFRESH_MS = 300;

/**
 * Drill-in to one child run: a modal dialog showing the child's own conversation (its input message and its
 * assistant message, with its own tool calls), read from the child through the parent's drill-in route
 * (`/sub/<agentType>/<runId>`, JSON). While the run streams, the events socket says when it changed and the
 * panel reads the child again (at most every 300 ms). Escape or Close closes it and focus goes back to Details.
 */
export function DrillInPanel({
  runId,
  run,
  url,
  onClose,
}: {
  runId: string;
  /** The run as the events socket knows it; `undefined` once it was cleared. */
  run: AgentToolRunState | undefined;
  url: string;
  onClose(): void;
}): ReactNode {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [snapshot, setSnapshot] = useState<DrillInSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const lastFetch = useRef(0);
  const inFlight = useRef<AbortController | null>(null);

  // Opened once mounted. Never closed from a clean-up: `close()` fires a `close` event later, which would unmount
  // a panel that React StrictMode has just mounted again; removing the element takes it out of the top layer anyway.
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => inFlight.current?.abort();
  }, []);

  // Read the child again when the run changes (new durable chunks, a new status), throttled.
  const version = run ? `${run.lastSequence}:${run.revision}:${run.status}` : "cleared";
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the trigger
  useEffect(() => {
    const wait = Math.max(0, lastFetch.current + REFRESH_MS - Date.now());
    const timer = setTimeout(() => {
      lastFetch.current = Date.now();
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      fetchDrillIn(url, controller.signal).then(
        (next) => {
          setSnapshot(next);
          setError(null);
        },
        (reason: unknown) => {
          if (!controller.signal.aborted) setError(reason instanceof Error ? reason.message : String(reason));
        },
      );
    }, wait);
    return () => clearTimeout(timer);
  }, [url, version]);

  const title = run ? `${runName(run)} — its own conversation` : "Child conversation";
  return (
    <dialog ref={dialog} className="drill-in" aria-labelledby={titleId} onClose={onClose} data-run-id={runId}>
      <header className="drill-head">
        <h2 id={titleId}>{title}</h2>
        <span className="badge">{run ? STATUS_LABELS[run.status] : "cleared"}</span>
        <span className="spacer" />
        <a href={url} target="_blank" rel="noreferrer" className="button">
          JSON
        </a>
        {/* biome-ignore lint/a11y/noAutofocus: a dialog says where focus goes when it opens */}
        <button type="button" onClick={() => dialog.current?.close()} autoFocus>
          Close
        </button>
      </header>
      <p className="muted run-id">
        Run <code>{runId}</code>
      </p>
      {error !== null && (
        <p className="notice" role="alert">
          {error}
        </p>
      )}
      {snapshot === null && error === null && <p role="status">Loading the child's conversation…</p>}
      {snapshot !== null && (
        <ol className="drill-messages">
          {snapshot.messages.map((message) => (
            <li key={message.id} className={`drill-message ${message.role}`} data-role={message.role}>
              <h3>{message.role === "user" ? "Input" : message.role === "assistant" ? "Answer" : message.role}</h3>
              {message.parts.map((part, index) => (
                <TimelinePart key={partKey(part, index)} part={part} />
              ))}
            </li>
          ))}
        </ol>
      )}
    </dialog>
  );
}
