"use client";

import {
  type AgentToolCursors,
  type AgentToolRunState,
  type AgentToolTimelineOptions,
  createAgentToolStore,
  defaultDrillInUrl,
} from "@agent-tools/client";
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";

/**
 * What a `message` listener receives: only `data` is read. Typed loosely so that DOM `EventTarget`s, browser
 * `WebSocket`s, PartySockets and Node's `ws` sockets all fit.
 */
export type AgentToolMessageEvent = Event | { readonly data: unknown };
export type AgentToolMessageListener = (event: AgentToolMessageEvent) => void;

/**
 * An open connection to the parent agent: anything with `addEventListener`/`removeEventListener` for `message`
 * events — a `WebSocket`, a PartySocket, the socket of the agents SDK's `useAgent`, an `EventTarget` in tests.
 */
export type AgentToolEventSource = {
  addEventListener(type: "message", listener: AgentToolMessageListener): void;
  removeEventListener(type: "message", listener: AgentToolMessageListener): void;
};

export type UseAgentToolEventsOptions = {
  /** The parent connection to listen to (never opened or closed by the hook). `null` while there is none. */
  agent: AgentToolEventSource | null | undefined;
  /** The drill-in address of a run. Default: the relative path `sub/<agentType>/<runId>`. */
  drillInUrl?: AgentToolTimelineOptions["drillInUrl"];
};

export type UseAgentToolEventsResult = {
  /** Every run the connection told about (placeholders included), by runId. */
  runsById: Readonly<Record<string, AgentToolRunState>>;
  /** Runs with no parent tool call (e.g. detached runs), sorted by displayOrder, then first seen. */
  unboundRuns: readonly AgentToolRunState[];
  /** The runs a tool call started, sorted by displayOrder (stable); the same array while they do not change. */
  getRunsForToolCall(toolCallId: string): readonly AgentToolRunState[];
  /** Forget all runs and cursors; reconnect afterwards to receive a full replay. */
  resetLocalState(): void;
  /** The cursors to send on (re)connect, e.g. from PartySocket's `query` function (evaluated on every reconnect). */
  cursors(): AgentToolCursors;
};

/**
 * Child-run timelines of a parent agent connection, for rendering each tool call's runs inline. Headless: it
 * subscribes to a connection you already have and never opens one; it dedupes replay/live races, applies each
 * run's `UIMessageChunk`s to its parts, and groups sibling runs by parent tool call (SPEC §12).
 * A `useSyncExternalStore` wrapper over {@link createAgentToolStore}; StrictMode-safe (the listener is attached
 * once per mounted effect, and durable chunks are deduped by sequence anyway). The returned functions keep their
 * identity for the life of the component.
 *
 * @example
 * const { getRunsForToolCall, unboundRuns } = useAgentToolEvents({ agent: socket });
 * // in a tool part: getRunsForToolCall(part.toolCallId).map((run) => <RunCard key={run.runId} run={run} />)
 */
export function useAgentToolEvents(options: UseAgentToolEventsOptions): UseAgentToolEventsResult {
  const { agent, drillInUrl } = options;
  const drillInUrlRef = useRef(drillInUrl);
  useEffect(() => {
    drillInUrlRef.current = drillInUrl;
  }, [drillInUrl]);

  const [store] = useState(() =>
    createAgentToolStore({ drillInUrl: (run) => (drillInUrlRef.current ?? defaultDrillInUrl)(run) }),
  );

  useEffect(() => {
    if (!agent) return;
    const listener: AgentToolMessageListener = (event) => {
      if ("data" in event) store.dispatch(event.data);
    };
    agent.addEventListener("message", listener);
    return () => agent.removeEventListener("message", listener);
  }, [agent, store]);

  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);

  return useMemo(
    () => ({
      runsById: state.runsById,
      // The store's snapshot is `state` here: it only changes in message handlers, never during a render.
      unboundRuns: store.getUnboundRuns(),
      getRunsForToolCall: store.getRunsForToolCall,
      resetLocalState: store.reset,
      cursors: store.cursors,
    }),
    [state, store],
  );
}
