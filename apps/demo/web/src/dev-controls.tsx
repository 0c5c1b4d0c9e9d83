import type { AgentToolConnection, AgentToolConnectionStatus } from "@agent-tools/react";
import type { ReactNode } from "react";

const CONNECTION_LABELS: Record<AgentToolConnectionStatus, string> = {
  connecting: "connecting…",
  open: "live",
  reconnecting: "reconnecting…",
  closed: "closed",
};

/**
 * For developers, with `?dev=1`: the event socket's and the chat's status, and "Reconnect events" (drop the event
 * socket and resume it with the page's cursors).
 */
export function DevControls({
  connection,
  connectionStatus,
  chatStatus,
}: {
  connection: AgentToolConnection | null;
  connectionStatus: AgentToolConnectionStatus | null;
  chatStatus: string;
}): ReactNode {
  return (
    <div className="dev-controls">
      <span className="muted conn" role="status">
        events: {connectionStatus === null ? "not connected" : CONNECTION_LABELS[connectionStatus]} · chat: {chatStatus}
      </span>
      <button
        type="button"
        onClick={() => connection?.reconnect()}
        title="Drop the events connection and resume it with this page's cursors"
      >
        Reconnect events
      </button>
    </div>
  );
}
