import { type AgentToolDrillIn, type AgentToolDrillInOptions, createAgentToolDrillIn } from "./agent-tool-drill-in.js";
import { type AgentToolStore, createAgentToolStore } from "./agent-tool-store.js";
import { type AgentChatEventListener, createChatEventChannel } from "./chat-event-channel.js";
import { resolveDrillInUrl, withAgentToolCursors } from "./connect-url.js";
import { createListeners } from "./listeners.js";
import { type Clock, systemClock } from "./ports/clock.js";
import { globalWebSocket, type WebSocketConstructor } from "./ports/web-socket.js";
import type { ReconnectOptions } from "./reconnect-delay.js";
import {
  type AgentToolConnectionStatus,
  openReconnectingSocket,
  type ReconnectingSocket,
} from "./reconnecting-socket.js";
import type { AgentToolTimelineOptions, AgentToolTimelineState } from "./run-timeline.js";
import { createSharedPool } from "./shared-pool.js";

/** Options of {@link createAgentToolConnection}: only `url` is required. */
export type AgentToolConnectionOptions = {
  /**
   * The parent agent's event socket (e.g. `wss://host/agents/assistant/default`). Each (re)connect adds the cursors
   * the client holds (`?agentToolCursors=…`), so the server replays only what is newer.
   */
  url: string;
  /** A run's drill-in address, relative to `url` or absolute. Default: `sub/<agentType>/<runId>`. */
  drillInUrl?: AgentToolTimelineOptions["drillInUrl"];
  /** The WebSocket constructor. Default: `globalThis.WebSocket` (browsers, Node 22+). */
  WebSocket?: WebSocketConstructor;
  /** Timers for back-off and grace periods. Default: the system's. */
  clock?: Clock;
  /** The jitter's source of chance, in [0, 1). Default: `Math.random`. */
  random?: () => number;
  /** Back-off after a drop (of the event socket and of drill-in sockets). */
  reconnect?: ReconnectOptions;
  /** How long a drill-in socket stays open after its last view closed (default 1 s): a remount reuses it. */
  drillInGraceMs?: number;
};

/** What a connection shows at a point in time. A new object whenever the status or the timeline changes. */
export type AgentToolConnectionSnapshot = {
  readonly status: AgentToolConnectionStatus;
  /** Everything known of the parent's runs (see `applyAgentToolEvent`). */
  readonly timeline: AgentToolTimelineState;
};

/**
 * A live connection to a parent agent's event socket: it keeps the parent's runs in its {@link AgentToolStore},
 * reconnects after a drop with back-off and the store's gap-free cursors (so nothing is lost and nothing doubled),
 * and opens drill-in sockets to single runs. `subscribe`/`getSnapshot` fit React's `useSyncExternalStore`.
 */
export type AgentToolConnection = {
  /** The parent's URL, as given (without cursors). */
  readonly url: string;
  /** The runs. Fed by the socket; read it, or `reset()` it through {@link AgentToolConnection.resetLocalState}. */
  readonly store: AgentToolStore;
  /** Call `listener` after every change of the snapshot; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** The current snapshot: the same object until something changes. */
  getSnapshot(): AgentToolConnectionSnapshot;
  /** Drop the socket and connect again now (with the cursors held now and the back-off reset); also after `close()`. */
  reconnect(): void;
  /** Forget every run and reconnect without cursors: a full replay. */
  resetLocalState(): void;
  /** Close the socket and every drill-in socket; nothing reopens until `reconnect()`. */
  close(): void;
  /**
   * Call `listener` with each conversation event the socket carries (`agent-chat-event` frames: a message stored, a
   * turn started or ended, the history rewritten), in arrival order; returns the unsubscribe function. Events are
   * live only: none is replayed on (re)connect, so read the stored conversation again after a reconnect
   * (`createAgentChatSync` does).
   */
  onChatEvent(listener: AgentChatEventListener): () => void;
  /**
   * Drill in to one run: a live view of the child's own messages over its own socket, opened once the run's
   * drill-in address is known. Views of one run share one socket; it closes `drillInGraceMs` after the last
   * view's `close()`. `options.url` overrides the address (relative to the parent's URL, or absolute).
   */
  drillIn(runId: string, options?: { url?: string }): AgentToolDrillIn;
};

/** @internal A shared drill-in keeps the address override of its first view. */
type SharedDrillIn = AgentToolDrillIn & { readonly retryUrl: () => void };

/**
 * Open a parent's event socket and keep it open.
 *
 * Guarantees:
 * - Status goes `connecting` → `open`; after a drop `reconnecting` until open again; `closed` only through `close()`.
 * - Every reopen waits `reconnectDelay(attempt)` (exponential, jittered, capped; reset on each open) on the clock,
 *   then connects with the cursors of the store at that moment: for each run, the highest sequence held with no
 *   gap before it and the newest revision. A chunk missed during the drop is therefore sent again, and a chunk the
 *   client holds is not (and would be deduped if it were).
 * - Messages that are not agent-tool frames, malformed frames and messages of a replaced socket are ignored; socket
 *   events never throw.
 *
 * @example
 * const connection = createAgentToolConnection({ url: "wss://example.com/agents/assistant/default" });
 * connection.subscribe(() => render(connection.getSnapshot()));
 */
export function createAgentToolConnection(options: AgentToolConnectionOptions): AgentToolConnection {
  const WebSocket = options.WebSocket ?? globalWebSocket();
  if (!WebSocket) {
    throw new TypeError("createAgentToolConnection: no global WebSocket here; pass options.WebSocket");
  }
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const reconnect = options.reconnect ?? {};
  const store = createAgentToolStore(options.drillInUrl ? { drillInUrl: options.drillInUrl } : {});
  const listeners = createListeners();
  const chatEvents = createChatEventChannel();
  let snapshot: AgentToolConnectionSnapshot = { status: "connecting", timeline: store.getSnapshot() };

  const publish = (next: AgentToolConnectionSnapshot) => {
    snapshot = next;
    listeners.notify();
  };

  const drillIns = createSharedPool<SharedDrillIn>({
    create: (runId) => openSharedDrillIn(runId),
    dispose: (drillIn) => drillIn.close(),
    graceMs: options.drillInGraceMs ?? 1_000,
    clock,
  });
  /** The first view's address override of each shared drill-in (kept while the drill-in lives). */
  const drillInOverrides = new Map<string, string>();
  const waitingForUrl = new Set<SharedDrillIn>();

  function drillInUrlOf(runId: string): string | null {
    const override = drillInOverrides.get(runId);
    const address = override ?? store.getSnapshot().runsById[runId]?.drillInUrl ?? null;
    return address === null ? null : resolveDrillInUrl(options.url, address);
  }

  function openSharedDrillIn(runId: string): SharedDrillIn {
    const drillInOptions: AgentToolDrillInOptions = {
      runId,
      url: () => drillInUrlOf(runId),
      WebSocket: WebSocket as WebSocketConstructor,
      clock,
      random,
      reconnect,
    };
    const drillIn = createAgentToolDrillIn(drillInOptions);
    const shared: SharedDrillIn = {
      ...drillIn,
      retryUrl: () => drillIn.reconnect(),
      close() {
        waitingForUrl.delete(shared);
        drillInOverrides.delete(runId);
        drillIn.close();
      },
    };
    if (drillInUrlOf(runId) === null) waitingForUrl.add(shared);
    return shared;
  }

  store.subscribe(() => {
    publish({ ...snapshot, timeline: store.getSnapshot() });
    // A drill-in opened before its run's address was known (no `started` yet) connects once it is.
    for (const drillIn of [...waitingForUrl]) {
      if (drillInUrlOf(drillIn.runId) === null) continue;
      waitingForUrl.delete(drillIn);
      drillIn.retryUrl();
    }
  });

  const socket: ReconnectingSocket = openReconnectingSocket({
    url: () => withAgentToolCursors(options.url, store.cursors()),
    WebSocket,
    clock,
    random,
    reconnect,
    onMessage: (data) => {
      if (!chatEvents.dispatch(data)) store.dispatch(data);
    },
    onStatus: (status) => publish({ ...snapshot, status }),
  });

  return {
    url: options.url,
    store,
    subscribe: listeners.subscribe,
    getSnapshot: () => snapshot,
    reconnect: () => socket.reconnect(),
    resetLocalState() {
      store.reset();
      socket.reconnect();
    },
    close() {
      socket.close();
      drillIns.disposeAll();
    },
    onChatEvent: chatEvents.subscribe,
    drillIn(runId, drillInOptions = {}) {
      if (drillInOptions.url !== undefined && drillIns.peek(runId) === undefined) {
        drillInOverrides.set(runId, drillInOptions.url);
      }
      const lease = drillIns.acquire(runId);
      const shared = lease.value;
      return {
        runId,
        subscribe: shared.subscribe,
        getSnapshot: shared.getSnapshot,
        reconnect: shared.reconnect,
        close: lease.release,
      };
    },
  };
}
