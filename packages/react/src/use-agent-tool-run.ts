"use client";

import {
  type AgentToolApproval,
  type AgentToolConnection,
  type AgentToolRunState,
  selectPendingApprovals,
} from "@agent-tools/client";
import type {
  AgentToolApprovalAnswer,
  AgentToolConnectionPool,
  AgentToolDrillIn,
  AgentToolDrillInSnapshot,
  AgentToolTimelineState,
} from "@agent-tools/client/internal";
import type { UIMessage } from "ai";
import { useCallback, useMemo, useRef, useSyncExternalStore } from "react";
import { useAgentToolEvents } from "./use-agent-tool-events.js";
import { type AgentToolApprovalOptions, useAnswerApproval } from "./use-answer-approval.js";
import { useEventsSource } from "./use-events-source.js";

/** Which parent the run belongs to (as for `useAgentToolEvents`, but not `agent`: drill-in needs the parent's URL). */
export type UseAgentToolRunOptions = (
  | { url: string | null | undefined; pool?: AgentToolConnectionPool; connection?: never }
  | { connection: AgentToolConnection | null | undefined; url?: never; pool?: never }
) & {
  /** Open the run's drill-in socket for its own messages (default `true`); `false` reads only the run's state. */
  drillIn?: boolean;
} & AgentToolApprovalOptions;

export type UseAgentToolRunResult = {
  /** The run as the parent's event socket tells it; `undefined` until it is known (or once cleared). */
  run: AgentToolRunState | undefined;
  /** The child's own conversation, live (its input message, then its assistant message); empty until loaded. */
  messages: readonly UIMessage[];
  /** The drill-in view (status, `isLoaded`, `isComplete`, the child's inspection); `null` while none is open. */
  drillIn: AgentToolDrillInSnapshot | null;
  /** The approvals of the run's tree that wait for an answer (`run.approvals` holds all, answered ones too). */
  pendingApprovals: readonly AgentToolApproval[];
  /**
   * Answer one of the run's approvals: resolves `true` when this answer was taken, `false` when it was already
   * answered (another tab, or it expired) or is unknown; rejects saying why it failed. The new state comes back
   * through the event socket, to every tab.
   */
  answerApproval(approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean>;
};

const NO_MESSAGES: readonly UIMessage[] = Object.freeze([]);
const NO_APPROVALS: readonly AgentToolApproval[] = Object.freeze([]);
const nothing = () => {};

/**
 * One run of a parent, for a detail or drill-in view: its state from the parent's event socket, and its child's own
 * messages, live, from the run's drill-in socket — opened only while a component using this hook is mounted (and
 * shared by all of them: one drill-in socket per run, one event socket per parent). The drill-in socket reopens
 * after a drop until the run is complete; StrictMode's mount → unmount → mount keeps it.
 *
 * @example
 * const { run, messages } = useAgentToolRun(runId, { url: "wss://host/agents/assistant/default" });
 */
export function useAgentToolRun(runId: string | null, options: UseAgentToolRunOptions): UseAgentToolRunResult {
  const { drillIn: wantsDrillIn = true, ...parent } = options;
  const selectRun = useCallback(
    (state: AgentToolTimelineState) =>
      runId !== null && Object.hasOwn(state.runsById, runId) ? state.runsById[runId] : undefined,
    [runId],
  );
  const run = useAgentToolEvents(parent, selectRun);
  const source = useEventsSource(parent);

  const view = useRef<AgentToolDrillIn | null>(null);
  const subscribe = useCallback(
    (listener: () => void) => {
      if (runId === null || !wantsDrillIn) return nothing;
      const held = source.hold((connection) => connection.drillIn(runId));
      if (!held) return nothing;
      const drillIn = held.value;
      view.current = drillIn;
      const unsubscribe = drillIn.subscribe(listener);
      return () => {
        unsubscribe();
        if (view.current === drillIn) view.current = null;
        drillIn.close(); // this view only: the socket stays while other views (or the grace period) hold it
        held.release();
      };
    },
    [source, runId, wantsDrillIn],
  );
  const getSnapshot = useCallback(() => {
    const current = view.current;
    return current !== null && current.runId === runId ? current.getSnapshot() : null;
  }, [runId]);
  const drillIn = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);

  const answer = useAnswerApproval(source.url, options.fetch);
  const answerApproval = useCallback(
    (approvalId: string, given: AgentToolApprovalAnswer) =>
      runId === null
        ? Promise.reject(new Error("answerApproval: no run (useAgentToolRun was given runId null)"))
        : answer(runId, approvalId, given),
    [answer, runId],
  );
  const pendingApprovals = run ? selectPendingApprovals(run) : NO_APPROVALS;
  return useMemo(
    () => ({ run, messages: drillIn?.messages ?? NO_MESSAGES, drillIn, pendingApprovals, answerApproval }),
    [run, drillIn, pendingApprovals, answerApproval],
  );
}
