"use client";

import {
  type AgentToolConnection,
  type AgentToolRunState,
  selectRunsForToolCall,
  selectUnboundRuns,
} from "@agent-tools/client";
import type { AgentToolConnectionStatus, AgentToolCursors, AgentToolTimelineState } from "@agent-tools/client/internal";
import { useCallback, useMemo } from "react";
import { type AnswerAgentToolApproval, useAnswerApproval } from "./use-answer-approval.js";
import { type EventsSnapshot, type UseAgentToolEventsOptions, useEventsSource } from "./use-events-source.js";
import { useStoreSelector } from "./use-store-selector.js";

export type UseAgentToolEventsResult = {
  /** Every run the parent told about (placeholders included), by runId. */
  runsById: Readonly<Record<string, AgentToolRunState>>;
  /** Runs with no parent tool call (e.g. detached runs), sorted by displayOrder, then first seen. */
  unboundRuns: readonly AgentToolRunState[];
  /** The runs a tool call started, sorted by displayOrder (stable); the same array while they do not change. */
  getRunsForToolCall(toolCallId: string): readonly AgentToolRunState[];
  /** Forget all runs and cursors; with `url` or `connection`, also reconnect for a full replay. */
  resetLocalState(): void;
  /** The cursors held now, for a URL you build yourself (e.g. PartySocket's `query`, evaluated on every reconnect). */
  cursors(): AgentToolCursors;
  /** Where the socket stands (`url` and `connection` forms); `null` with `agent` (not the hook's socket) or no parent. */
  connectionStatus: AgentToolConnectionStatus | null;
  /** The connection in use (`url` and `connection` forms), e.g. to `reconnect()`; `null` otherwise. */
  connection: AgentToolConnection | null;
  /**
   * Answer an approval a run's tree waits for (one of `run.approvals`; `runId` is the run whose state shows it):
   * resolves `true` when this answer was taken, `false` when it was already answered or is unknown; rejects saying
   * why (a network failure, a status other than 2xx; with `agent`, there is no URL to answer at). The new state comes
   * back to every tab through the event socket.
   */
  answerApproval: AnswerAgentToolApproval;
};

const wholeSnapshot = (snapshot: EventsSnapshot) => snapshot;

/**
 * Child-run timelines of a parent agent, for rendering each tool call's runs inline (SPEC §12): durable chunks are
 * deduped, each run's `UIMessageChunk`s become its parts, sibling runs are grouped by parent tool call.
 *
 * Name the parent one of three ways:
 * - `{ url }`: the hook opens the parent's event socket, reconnects with back-off and cursors, and shares one
 *   socket among every component given that URL, closing it a grace period after the last one unmounts;
 * - `{ connection }`: a connection from `createAgentToolConnection` that you own;
 * - `{ agent }`: a socket you open and close yourself (`WebSocket`, PartySocket, the agents SDK's `useAgent`).
 *
 * Pass a `selector` (and optionally `isEqual`) to read one value of the timeline: the component then re-renders
 * only when that value changes. StrictMode-safe: its mount → unmount → mount keeps one socket, and text is never
 * doubled (the reducer is pure, chunks are deduped by sequence). The returned functions keep their identity while
 * the options name the same parent.
 *
 * @example
 * const { getRunsForToolCall, unboundRuns } = useAgentToolEvents({ url: "wss://host/agents/assistant/default" });
 * const runs = useAgentToolEvents({ url }, (state) => selectRunsForToolCall(state, toolCallId));
 */
export function useAgentToolEvents(options: UseAgentToolEventsOptions): UseAgentToolEventsResult;
export function useAgentToolEvents<TSelection>(
  options: UseAgentToolEventsOptions,
  selector: (state: AgentToolTimelineState) => TSelection,
  isEqual?: (left: TSelection, right: TSelection) => boolean,
): TSelection;
export function useAgentToolEvents<TSelection>(
  options: UseAgentToolEventsOptions,
  selector?: (state: AgentToolTimelineState) => TSelection,
  isEqual?: (left: TSelection, right: TSelection) => boolean,
): UseAgentToolEventsResult | TSelection {
  const source = useEventsSource(options);
  // One hook call either way (hooks cannot be conditional): with no selector, the snapshot itself is selected.
  const selectFromSnapshot = useMemo(
    () => (selector ? (snapshot: EventsSnapshot) => selector(snapshot.timeline) : wholeSnapshot),
    [selector],
  );
  const selected = useStoreSelector<EventsSnapshot, unknown>(
    source.subscribe,
    source.getSnapshot,
    selectFromSnapshot,
    isEqual as ((left: unknown, right: unknown) => boolean) | undefined,
  );
  const getRunsForToolCall = useCallback(
    (toolCallId: string) => selectRunsForToolCall(source.getSnapshot().timeline, toolCallId),
    [source],
  );
  const answerApproval = useAnswerApproval(source.url, options.fetch);
  const result = useMemo((): UseAgentToolEventsResult | null => {
    if (selector) return null;
    const snapshot = selected as EventsSnapshot;
    return {
      runsById: snapshot.timeline.runsById,
      unboundRuns: selectUnboundRuns(snapshot.timeline),
      getRunsForToolCall,
      resetLocalState: source.resetLocalState,
      cursors: source.cursors,
      connectionStatus: snapshot.status,
      connection: source.connection(),
      answerApproval,
    };
  }, [selector, selected, source, getRunsForToolCall, answerApproval]);
  return result ?? (selected as TSelection);
}
