"use client";

import {
  type AgentToolConnection,
  type AgentToolRunState,
  type AgentToolStore,
  createAgentToolStore,
  createAgentToolTimelineState,
} from "@agent-tools/client";
import {
  type AgentToolConnectionPool,
  type AgentToolConnectionStatus,
  type AgentToolCursors,
  type AgentToolTimelineOptions,
  type AgentToolTimelineState,
  defaultDrillInUrl,
} from "@agent-tools/client/internal";
import { useEffect, useMemo, useRef, useState } from "react";
import type { AgentToolEventSource, AgentToolMessageListener } from "./agent-tool-event-source.js";
import { defaultConnectionPool } from "./default-connection-pool.js";
import type { AgentToolApprovalOptions } from "./use-answer-approval.js";

/**
 * Which parent to listen to: give its URL, a connection you made, or a socket you manage (the seed's form); and, for
 * answering approvals, the `fetch` to send with.
 */
export type UseAgentToolEventsOptions = (
  | {
      /**
       * The parent agent's event socket URL. Every component given the same URL (and pool) shares one socket,
       * opened while any of them is mounted (and `graceMs` after), reconnecting with cursors. `null` while unknown.
       */
      url: string | null | undefined;
      /** Where the connection is kept, with its options (WebSocket, timers, back-off, drillInUrl). Default: one pool per page. */
      pool?: AgentToolConnectionPool;
      connection?: never;
      agent?: never;
    }
  | {
      /** A connection from `createAgentToolConnection` (never closed by the hook). `null` while there is none. */
      connection: AgentToolConnection | null | undefined;
      url?: never;
      agent?: never;
    }
  | {
      /** An open socket to the parent, never opened or closed by the hook. `null` while there is none. */
      agent: AgentToolEventSource | null | undefined;
      /** The drill-in address of a run. Default: the relative path `sub/<agentType>/<runId>`. */
      drillInUrl?: AgentToolTimelineOptions["drillInUrl"];
      url?: never;
      connection?: never;
    }
) &
  AgentToolApprovalOptions;

/** @internal What the hooks read of a parent. `status` is `null` when the hook does not own the socket (`agent`). */
export type EventsSnapshot = {
  readonly status: AgentToolConnectionStatus | null;
  readonly timeline: AgentToolTimelineState;
};

/** @internal A parent, as the hooks read it. Stable while the hook's options name the same parent. */
export type EventsSource = {
  subscribe(listener: () => void): () => void;
  getSnapshot(): EventsSnapshot;
  /** The connection behind this source now (for `url`: while someone holds it), else `null`. */
  connection(): AgentToolConnection | null;
  /** The parent's event socket URL (`url` and `connection` forms), else `null`. */
  readonly url: string | null;
  resetLocalState(): void;
  cursors(): AgentToolCursors;
  /** Run `use` with a connection held for its duration (for drill-ins); `null` when this source has none. */
  hold<T>(use: (connection: AgentToolConnection) => T): { value: T; release(): void } | null;
};

const EMPTY_TIMELINE = createAgentToolTimelineState();
const NO_PARENT: EventsSnapshot = { status: null, timeline: EMPTY_TIMELINE };
const NOT_YET_OPEN: EventsSnapshot = { status: "connecting", timeline: EMPTY_TIMELINE };
const noCursors = (): AgentToolCursors => ({});
const nothing = () => {};

const noSource: EventsSource = {
  subscribe: () => nothing,
  getSnapshot: () => NO_PARENT,
  connection: () => null,
  url: null,
  resetLocalState: nothing,
  cursors: noCursors,
  hold: () => null,
};

function connectionSource(connection: AgentToolConnection): EventsSource {
  return {
    subscribe: connection.subscribe,
    getSnapshot: connection.getSnapshot,
    connection: () => connection,
    url: connection.url,
    resetLocalState: connection.resetLocalState,
    cursors: connection.store.cursors,
    hold: (use) => ({ value: use(connection), release: nothing }),
  };
}

function pooledSource(pool: AgentToolConnectionPool, url: string): EventsSource {
  const hold = <T>(use: (connection: AgentToolConnection) => T) => {
    const lease = pool.acquire(url);
    return { value: use(lease.connection), release: lease.release };
  };
  return {
    subscribe(listener) {
      const held = hold((connection) => connection.subscribe(listener));
      return () => {
        held.value();
        held.release();
      };
    },
    // Before the first subscribe (the first render) nothing is open yet: opening a socket is not a render's job.
    getSnapshot: () => pool.peek(url)?.getSnapshot() ?? NOT_YET_OPEN,
    connection: () => pool.peek(url) ?? null,
    url,
    resetLocalState: () => pool.peek(url)?.resetLocalState(),
    cursors: () => pool.peek(url)?.store.cursors() ?? {},
    hold,
  };
}

function storeSource(store: AgentToolStore): EventsSource {
  let last: EventsSnapshot = NO_PARENT;
  return {
    subscribe: store.subscribe,
    getSnapshot() {
      const timeline = store.getSnapshot();
      if (last.timeline !== timeline) last = { status: null, timeline };
      return last;
    },
    connection: () => null,
    url: null,
    resetLocalState: store.reset,
    cursors: store.cursors,
    hold: () => null,
  };
}

/** @internal The parent the options name, as a stable source; for `agent`, also listens to the socket. */
export function useEventsSource(options: UseAgentToolEventsOptions): EventsSource {
  // Which form is told by which key is present (its value may be null: "not yet").
  const isAgent = "agent" in options;
  const isConnection = "connection" in options;
  const given = options as {
    agent?: AgentToolEventSource | null;
    drillInUrl?: AgentToolTimelineOptions["drillInUrl"];
    connection?: AgentToolConnection | null;
    url?: string | null;
    pool?: AgentToolConnectionPool;
  };
  const agent = given.agent ?? null;
  const drillInUrl = given.drillInUrl;
  const drillInUrlRef = useRef(drillInUrl);
  useEffect(() => {
    drillInUrlRef.current = drillInUrl;
  }, [drillInUrl]);
  // Only the `agent` form uses it; made lazily once per component either way (hooks cannot be conditional).
  const [store] = useState(() =>
    createAgentToolStore({
      drillInUrl: (run: AgentToolRunState) => (drillInUrlRef.current ?? defaultDrillInUrl)(run),
    }),
  );
  useEffect(() => {
    if (!agent) return;
    const listener: AgentToolMessageListener = (event) => {
      if ("data" in event) store.dispatch(event.data);
    };
    agent.addEventListener("message", listener);
    return () => agent.removeEventListener("message", listener);
  }, [agent, store]);

  const connection = given.connection ?? null;
  const url = given.url ?? null;
  const { pool } = given;
  return useMemo(() => {
    if (isAgent) return storeSource(store);
    if (isConnection) return connection ? connectionSource(connection) : noSource;
    return url === null ? noSource : pooledSource(pool ?? defaultConnectionPool(), url);
  }, [isAgent, isConnection, store, connection, url, pool]);
}
