import {
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolCursors,
  type AgentToolEventFrame,
  parseAgentToolFrame,
  unpackAgentToolMessage,
} from "@agent-tools/core-runs/protocol";
import { createListeners } from "./listeners.js";
import {
  type AgentToolRunState,
  type AgentToolTimelineOptions,
  type AgentToolTimelineState,
  applyAgentToolEvent,
  createAgentToolTimelineState,
} from "./run-timeline.js";
import { EMPTY_RUNS, type RunIndex, runIndexOf, selectAgentToolCursors } from "./timeline-selectors.js";

/**
 * A framework-free store of one parent connection's runs: feed it the connection's messages, read snapshots.
 * `subscribe`/`getSnapshot` fit React's `useSyncExternalStore` (or any other view layer).
 */
export type AgentToolStore = {
  /** Call `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** The current state: the same object until something changes. */
  getSnapshot(): AgentToolTimelineState;
  /**
   * Apply one message of the connection (its `data`: JSON text or an already-parsed value): a frame, or a batch of
   * them (a JSON array, SPEC §6), applied in order with one change to listen to. Messages that are not agent-tool
   * frames, and malformed frames, are ignored (a malformed frame in a batch only itself). Never throws. Returns
   * whether the state changed.
   */
  dispatch(message: unknown): boolean;
  /** Apply a parsed frame. Returns whether the state changed. */
  dispatchFrame(frame: AgentToolEventFrame): boolean;
  /** Forget everything (runs, cursors, cleared runIds): the next connection without cursors replays it all. */
  reset(): void;
  /** The cursors of the current state, for the connection's URL builder. */
  cursors(): AgentToolCursors;
  getRunsForToolCall(toolCallId: string): readonly AgentToolRunState[];
  getUnboundRuns(): readonly AgentToolRunState[];
};

/**
 * Create an {@link AgentToolStore}.
 *
 * @example
 * const store = createAgentToolStore();
 * socket.addEventListener("message", (event) => store.dispatch(event.data));
 * store.subscribe(() => render(store.getSnapshot()));
 */
export function createAgentToolStore(options: AgentToolTimelineOptions = {}): AgentToolStore {
  let state = createAgentToolTimelineState();
  let index: RunIndex | null = null;
  const listeners = createListeners();

  const currentIndex = () => {
    index = runIndexOf(state, index);
    return index;
  };
  const commit = (next: AgentToolTimelineState) => {
    if (next === state) return false;
    state = next;
    listeners.notify();
    return true;
  };
  const dispatchFrame = (frame: AgentToolEventFrame) => commit(applyAgentToolEvent(state, frame, options));

  return {
    subscribe: listeners.subscribe,
    getSnapshot: () => state,
    dispatch(message) {
      // Cheap test first: the same connection usually carries chat traffic too.
      if (typeof message === "string" && !message.includes(AGENT_TOOL_EVENT_TYPE)) return false;
      let next = state;
      for (const one of unpackAgentToolMessage(message)) {
        const parsed = parseAgentToolFrame(one);
        if (parsed.ok) next = applyAgentToolEvent(next, parsed.frame, options);
      }
      return commit(next);
    },
    dispatchFrame,
    reset() {
      index = null;
      commit(createAgentToolTimelineState());
    },
    cursors: () => selectAgentToolCursors(state),
    getRunsForToolCall: (toolCallId) => currentIndex().byToolCall.get(toolCallId) ?? EMPTY_RUNS,
    getUnboundRuns: () => currentIndex().unbound,
  };
}
