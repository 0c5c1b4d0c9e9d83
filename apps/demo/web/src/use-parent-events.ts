import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolCursors,
  encodeAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import { type AgentToolRunState, type UseAgentToolEventsResult, useAgentToolEvents } from "@agent-tools/react";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { type ChatRoutes, fetchRuns, webSocketUrl } from "./api.js";
import { type ConnectionStatus, EventsConnection } from "./events-connection.js";

export type ParentEvents = Omit<UseAgentToolEventsResult, "connection" | "connectionStatus"> & {
  connection: EventsConnection;
  connectionStatus: ConnectionStatus;
};

/**
 * The Assistant's child-run timelines: this page opens the events socket itself (a reconnecting
 * {@link EventsConnection}) and hands it to `useAgentToolEvents`. Every (re)connect URL carries the hook's cursors
 * (`?agentToolCursors=…`, SPEC §6), so a reconnect receives only the frames it missed.
 */
export function useParentEvents(routes: ChatRoutes): ParentEvents {
  // The connection is made before the hook, so its URL builder reads the hook's cursors through a ref.
  const cursors = useRef<() => AgentToolCursors>(() => ({}));
  const [connection] = useState(
    () =>
      new EventsConnection({
        url: () => {
          const url = new URL(webSocketUrl(routes.base));
          const held = cursors.current();
          if (Object.keys(held).length > 0)
            url.searchParams.set(AGENT_TOOL_CURSORS_PARAM, encodeAgentToolCursors(held));
          return url.toString();
        },
      }),
  );
  const drillInUrl = useCallback(
    (run: AgentToolRunState) => (run.agentType === null ? null : routes.drillIn(run.agentType, run.runId)),
    [routes],
  );
  const events = useAgentToolEvents({ agent: connection, drillInUrl });

  // Declared after the hook: its effect has attached the message listener by the time this one connects.
  useEffect(() => {
    cursors.current = events.cursors;
    connection.start();
    return () => connection.stop();
  }, [connection, events.cursors]);

  const connectionStatus = useSyncExternalStore(connection.subscribeStatus, connection.getStatus);
  return { ...events, connection, connectionStatus };
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * The runIds that `/runs` marks as detached (background) runs. Asked again whenever the set of known runs changes
 * (debounced); an older server without `detached` info simply yields none.
 */
export function useDetachedRunIds(
  routes: ChatRoutes,
  runsById: Readonly<Record<string, AgentToolRunState>>,
): ReadonlySet<string> {
  const key = Object.keys(runsById).sort().join("\n");
  const [ids, setIds] = useState<ReadonlySet<string>>(NO_IDS);
  useEffect(() => {
    if (key === "") {
      setIds(NO_IDS);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetchRuns(routes, controller.signal).then(
        (runs) => {
          const detached = runs.filter((run) => Boolean(run.detached)).map((run) => run.runId);
          setIds((previous) =>
            detached.length === previous.size && detached.every((id) => previous.has(id))
              ? previous
              : new Set(detached),
          );
        },
        () => undefined, // best effort: the tray still shows unbound runs
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key, routes]);
  return ids;
}
