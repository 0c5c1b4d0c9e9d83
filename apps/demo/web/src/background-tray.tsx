import type { AgentToolRunState } from "@agent-tools/react";
import { type ReactNode, useEffect, useRef } from "react";
import { isLive } from "./format.js";
import { type RunActions, RunCard } from "./run-card.js";

export const TRAY_ID = "background-runs";

/**
 * The runs no tool call in the chat waits for (background runs), with Clear. Beside the chat on a wide screen; on a
 * narrow one it is a panel behind the header's badge (`isOpen`), which takes focus when opened and gives it back to
 * the badge when closed (Close or Escape).
 */
export function BackgroundTray({
  runs,
  actions,
  isOpen,
  onClose,
  onClear,
  isClearing,
}: {
  runs: readonly AgentToolRunState[];
  actions: RunActions;
  isOpen: boolean;
  onClose(): void;
  onClear(): void;
  isClearing: boolean;
}): ReactNode {
  const live = runs.filter(isLive).length;
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (isOpen) close.current?.focus();
  }, [isOpen]);
  return (
    <aside
      id={TRAY_ID}
      className={`tray${isOpen ? " open" : ""}`}
      aria-labelledby="tray-title"
      onKeyDown={(event) => {
        if (event.key === "Escape" && isOpen) onClose();
      }}
    >
      <div className="tray-head">
        <h2 id="tray-title">Background runs</h2>
        <span className="spacer" />
        <button type="button" onClick={onClear} aria-disabled={isClearing}>
          {isClearing ? "Clearing…" : "Clear runs"}
        </button>
        <button type="button" ref={close} className="tray-close" onClick={onClose}>
          Close
        </button>
      </div>
      {runs.length > 0 && <p className="muted tray-count">{`${live} running · ${runs.length} in all`}</p>}
      {runs.length === 0 ? (
        <p className="muted">No background runs.</p>
      ) : (
        <div className="runs">
          {runs.map((run) => (
            <RunCard key={run.runId} run={run} actions={actions} />
          ))}
        </div>
      )}
    </aside>
  );
}
