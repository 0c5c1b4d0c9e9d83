import { parseAgentToolDrillInFrame } from "@agent-tools/core-runs/protocol";
import {
  type AgentToolDrillInState,
  applyAgentToolDrillInFrame,
  createAgentToolDrillInState,
} from "./drill-in-state.js";
import { createListeners } from "./listeners.js";
import { type Clock, systemClock } from "./ports/clock.js";
import { globalWebSocket, type WebSocketConstructor } from "./ports/web-socket.js";
import type { ReconnectOptions } from "./reconnect-delay.js";
import { type AgentToolConnectionStatus, openReconnectingSocket } from "./reconnecting-socket.js";

/** Options of {@link createAgentToolDrillIn}: which run, and where its drill-in socket is. */
export type AgentToolDrillInOptions = {
  runId: string;
  /**
   * The run's drill-in socket URL, or a function that gives it on every (re)open (`null`: not known yet; call
   * `reconnect()` once it is). A function lets a URL carry a fresh read token each time.
   */
  url: string | (() => string | null);
  /** Default: `globalThis.WebSocket`. */
  WebSocket?: WebSocketConstructor;
  /** Default: the system's timers. */
  clock?: Clock;
  /** Default: `Math.random`. */
  random?: () => number;
  reconnect?: ReconnectOptions;
};

/** What a drill-in shows at a point in time: the child's messages and run, and where its socket stands. */
export type AgentToolDrillInSnapshot = AgentToolDrillInState & {
  /** `closed` after `close()`, or after the socket ended once the run was complete (nothing more would come). */
  readonly status: AgentToolConnectionStatus;
};

/**
 * A live view of one child run's own conversation over its drill-in socket. `subscribe`/`getSnapshot` fit React's
 * `useSyncExternalStore`.
 */
export type AgentToolDrillIn = {
  readonly runId: string;
  subscribe(listener: () => void): () => void;
  /** The current snapshot: the same object until something changes. */
  getSnapshot(): AgentToolDrillInSnapshot;
  /** Drop the socket and open it again now (the child sends its messages again). */
  reconnect(): void;
  /** Stop: close the socket (for a view of a connection's drill-in, release it), and reopen nothing. */
  close(): void;
};

/**
 * Open a run's drill-in socket (see `@agent-tools/core-runs/protocol`'s drill-in frames) and keep a live view of the
 * child's messages.
 *
 * Guarantees:
 * - The child's assistant message goes on from the one it sent with every log entry after it, once each and in
 *   sequence order (see `applyAgentToolDrillInFrame`).
 * - While the run is not complete, a dropped socket is reopened with back-off (reset on each open); the child sends
 *   its messages again, which replace the view: nothing is lost or doubled across the drop. Once the run is complete
 *   a drop ends the view (`closed`).
 * - Malformed frames and messages of a replaced socket are ignored; socket events never throw.
 */
export function createAgentToolDrillIn(options: AgentToolDrillInOptions): AgentToolDrillIn {
  const WebSocket = options.WebSocket ?? globalWebSocket();
  if (!WebSocket) throw new TypeError("createAgentToolDrillIn: no global WebSocket here; pass options.WebSocket");
  const { runId } = options;
  const listeners = createListeners();
  let state = createAgentToolDrillInState(runId);
  let snapshot: AgentToolDrillInSnapshot = { ...state, status: "connecting" };

  // `snapshot` spreads `state`, so its identity cannot say which state it shows: `shown` does.
  let shown = state;
  const show = (status: AgentToolConnectionStatus) => {
    if (status === snapshot.status && state === shown) return;
    shown = state;
    snapshot = { ...state, status };
    listeners.notify();
  };

  const { url } = options;
  const socket = openReconnectingSocket({
    url: typeof url === "string" ? () => url : url,
    WebSocket,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    reconnect: options.reconnect ?? {},
    onMessage(data) {
      const parsed = parseAgentToolDrillInFrame(data);
      if (!parsed.ok) return;
      state = applyAgentToolDrillInFrame(state, parsed.frame);
      show(snapshot.status);
    },
    onStatus: (status) => show(status),
    shouldReopen: () => !state.isComplete,
  });

  return {
    runId,
    subscribe: listeners.subscribe,
    getSnapshot: () => snapshot,
    reconnect: () => socket.reconnect(),
    close: () => socket.close(),
  };
}
