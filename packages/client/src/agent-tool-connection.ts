import {
  AGENT_TOOL_EVENT_TYPE,
  AGENT_TOOL_PAGE_REQUEST_TYPE,
  type AgentToolPageRequest,
  isObject,
  parseAgentToolPageFrame,
  unpackAgentToolMessage,
} from "@agent-tools/core-runs/protocol";
import { type AgentToolDrillIn, type AgentToolDrillInOptions, createAgentToolDrillIn } from "./agent-tool-drill-in.js";
import { type AgentToolStore, createAgentToolStore } from "./agent-tool-store.js";
import { type AgentChatEventListener, createChatEventChannel } from "./chat-event-channel.js";
import { resolveDrillInUrl, withAgentToolBatches, withAgentToolCursors, withAgentToolPage } from "./connect-url.js";
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
  /**
   * Receive the parent's retained runs a page at a time (SPEC §6, paged replay): on connect the `page` newest runs
   * and every live one, older ones on {@link AgentToolConnection.loadOlderRuns}; a reconnect brings what the client
   * shows up to date. Default 50; `false` asks for every retained run at once (as before).
   */
  page?: number | false;
};

/** Whether the parent retains runs older than those the connection holds, and whether a page of them is on its way. */
export type AgentToolOlderRuns = {
  readonly hasOlder: boolean;
  readonly loading: boolean;
};

/** Default `page`: the newest 50 runs (and every live one) on connect. */
export const DEFAULT_AGENT_TOOL_PAGE = 50;

/** What a connection shows at a point in time. A new object whenever the status or the timeline changes. */
export type AgentToolConnectionSnapshot = {
  readonly status: AgentToolConnectionStatus;
  /** Everything known of the parent's runs (see `applyAgentToolEvent`). */
  readonly timeline: AgentToolTimelineState;
  /** Older runs not loaded yet (paged replay; always `hasOlder: false` with `page: false`). */
  readonly olderRuns: AgentToolOlderRuns;
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
  /** Forget every run and reconnect without cursors: a full replay (of the newest page, when paged). */
  resetLocalState(): void;
  /**
   * Ask the parent for the page of runs older than those held (`limit`, default the `page` option). Returns false
   * (and asks nothing) when there are none, a page is already on its way, the socket is not open, or paging is off.
   */
  loadOlderRuns(limit?: number): boolean;
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
  const pageSize = options.page === false ? null : Math.max(1, Math.floor(options.page ?? DEFAULT_AGENT_TOOL_PAGE));
  const noOlderRuns: AgentToolOlderRuns = { hasOlder: false, loading: false };
  /** Where the older runs start (the last page frame's `before`). */
  let olderBefore: string | null = null;
  let snapshot: AgentToolConnectionSnapshot = {
    status: "connecting",
    timeline: store.getSnapshot(),
    olderRuns: noOlderRuns,
  };

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

  /** A page frame: where older runs start now (the page asked for, if any, has come). */
  const takePage = (data: unknown): boolean => {
    const page = parseAgentToolPageFrame(data);
    if (!page) return false;
    olderBefore = page.before ?? null;
    publish({ ...snapshot, olderRuns: { hasOlder: page.hasOlder, loading: false } });
    return true;
  };

  const socket: ReconnectingSocket = openReconnectingSocket({
    url: () => withAgentToolCursors(withAgentToolPage(withAgentToolBatches(options.url), pageSize), store.cursors()),
    WebSocket,
    clock,
    random,
    reconnect,
    // A batch's frames in order: the run frames between two other messages applied to the store at once.
    onMessage: (data) => {
      let frames: unknown[] = [];
      const applyFrames = () => {
        if (frames.length === 0) return;
        store.dispatch(frames);
        frames = [];
      };
      for (const message of unpackAgentToolMessage(data)) {
        if (isObject(message) && message["type"] === AGENT_TOOL_EVENT_TYPE) {
          frames.push(message);
          continue;
        }
        applyFrames();
        if (takePage(message)) continue;
        if (!chatEvents.dispatch(message)) store.dispatch(message);
      }
      applyFrames();
    },
    // A page asked on a socket that dropped never comes: the reconnect's own page frame says what is older.
    onStatus: (status) =>
      publish({
        ...snapshot,
        status,
        ...(status === "open" ? {} : { olderRuns: { ...snapshot.olderRuns, loading: false } }),
      }),
  });

  return {
    url: options.url,
    store,
    subscribe: listeners.subscribe,
    getSnapshot: () => snapshot,
    reconnect: () => socket.reconnect(),
    resetLocalState() {
      store.reset();
      olderBefore = null;
      publish({ ...snapshot, olderRuns: noOlderRuns });
      socket.reconnect();
    },
    loadOlderRuns(limit) {
      const { hasOlder, loading } = snapshot.olderRuns;
      if (pageSize === null || !hasOlder || loading || olderBefore === null) return false;
      const request: AgentToolPageRequest = {
        type: AGENT_TOOL_PAGE_REQUEST_TYPE,
        before: olderBefore,
        limit: Math.max(1, Math.floor(limit ?? pageSize)),
      };
      if (!socket.send(JSON.stringify(request))) return false;
      publish({ ...snapshot, olderRuns: { hasOlder, loading: true } });
      return true;
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
