import type { AgentToolCursors } from "@agent-tools/core-runs/protocol";
import type { AgentToolRunState, AgentToolTimelineState } from "./run-timeline.js";

// Derived views of a timeline: memoized per state object (states are immutable), so a view keeps its identity
// while what it shows does not change.

const getOwn = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;

/** @internal Runs grouped for rendering: by parent tool call, and the unbound ones. */
export type RunIndex = {
  readonly byToolCall: ReadonlyMap<string, readonly AgentToolRunState[]>;
  readonly unbound: readonly AgentToolRunState[];
};

/** @internal */
export const EMPTY_RUNS: readonly AgentToolRunState[] = Object.freeze([]);
const indexCache = new WeakMap<AgentToolTimelineState, RunIndex>();
const cursorsCache = new WeakMap<AgentToolTimelineState, AgentToolCursors>();

const sameRuns = (left: readonly AgentToolRunState[], right: readonly AgentToolRunState[]) =>
  left.length === right.length && left.every((run, index) => run === right[index]);

/**
 * Group and sort the runs (by `displayOrder`, ties in the order first seen). Arrays equal to those of `previous`
 * are reused, so a group whose runs did not change keeps its identity.
 */
function buildRunIndex(state: AgentToolTimelineState, previous: RunIndex | null): RunIndex {
  const runs = state.runOrder.flatMap((runId) => {
    const run = getOwn(state.runsById, runId);
    return run ? [run] : [];
  });
  // Array.prototype.sort is stable: equal displayOrders keep first-seen order.
  runs.sort((left, right) => left.displayOrder - right.displayOrder);
  const groups = new Map<string, AgentToolRunState[]>();
  const unbound: AgentToolRunState[] = [];
  for (const run of runs) {
    if (run.parentToolCallId === null) {
      unbound.push(run);
      continue;
    }
    const group = groups.get(run.parentToolCallId);
    if (group) group.push(run);
    else groups.set(run.parentToolCallId, [run]);
  }
  const byToolCall = new Map<string, readonly AgentToolRunState[]>();
  for (const [toolCallId, group] of groups) {
    const before = previous?.byToolCall.get(toolCallId);
    byToolCall.set(toolCallId, before && sameRuns(before, group) ? before : group);
  }
  return {
    byToolCall,
    unbound: previous && sameRuns(previous.unbound, unbound) ? previous.unbound : unbound,
  };
}

/**
 * The index built last, by any caller: the usual `previous` when none is given, since states are mostly read one
 * after another. It only lets equal groups keep their identity; what an index holds never depends on it.
 */
let lastBuilt: RunIndex | null = null;

/**
 * @internal The run index of a state, reusing the unchanged groups of `previous` (default: the index built last).
 * Memoized per state.
 */
export function runIndexOf(state: AgentToolTimelineState, previous: RunIndex | null = lastBuilt): RunIndex {
  let index = indexCache.get(state);
  if (!index) {
    index = buildRunIndex(state, previous);
    indexCache.set(state, index);
    lastBuilt = index;
  }
  return index;
}

/**
 * The runs a tool call started, sorted by `displayOrder` (stable). The same array while they do not change, from
 * one state to the next: a selector over it needs no custom equality.
 */
export function selectRunsForToolCall(state: AgentToolTimelineState, toolCallId: string): readonly AgentToolRunState[] {
  return runIndexOf(state).byToolCall.get(toolCallId) ?? EMPTY_RUNS;
}

/** The runs with no parent tool call (e.g. detached runs for a background tray), in the same order. */
export function selectUnboundRuns(state: AgentToolTimelineState): readonly AgentToolRunState[] {
  return runIndexOf(state).unbound;
}

/**
 * What the client holds of each run, for `encodeAgentToolCursors`: the gap-free durable sequence and the newest
 * revision. A reconnect that sends these receives only what is newer (SPEC §6). Runs known only as placeholders
 * are left out, so that they are replayed in full, `started` included.
 */
export function selectAgentToolCursors(state: AgentToolTimelineState): AgentToolCursors {
  let cursors = cursorsCache.get(state);
  if (!cursors) {
    const built: AgentToolCursors = Object.create(null);
    for (const runId of state.runOrder) {
      const run = getOwn(state.runsById, runId);
      // A placeholder (no `started` yet) is left out: a replay with a cursor never re-sends `started`, so the
      // server must replay that run in full for the client to learn who it is.
      if (run && run.agentType !== null) built[runId] = { sequence: run.lastSequence, revision: run.revision };
    }
    cursors = built;
    cursorsCache.set(state, cursors);
  }
  return cursors;
}
