import type { RunStore } from "./ports/run-store.js";
import {
  AGENT_PROGRESS_PART,
  type AgentToolCursors,
  type AgentToolEventFrame,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  isTerminalStatus,
} from "./protocol/index.js";
import { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./run-frames.js";

/** What a live follower holds of a run beyond the parent's stored copy. */
export type LiveRunView = { entries: readonly AgentToolLogEntry[]; progress?: AgentToolProgressSnapshot | undefined };

/**
 * Send every retained run to one connection (`replay: true`), or with `cursors` only what is newer than the client
 * holds, plus one `cleared` frame for runs it names that no longer exist. Entries come from the parent's stored
 * copy of each log, then from what a live follower holds beyond it: no child is woken.
 */
export async function replayRuns(options: {
  store: RunStore;
  liveOf: (runId: string) => LiveRunView | undefined;
  send: (frame: AgentToolEventFrame) => void;
  cursors: AgentToolCursors | null;
}): Promise<{ runs: number; frames: number; cleared: number }> {
  const { store, liveOf, send, cursors } = options;
  const records = await store.listRuns();
  let frames = 0;
  let runs = 0;
  const emit = (frame: AgentToolEventFrame) => {
    frames += 1;
    send(frame);
  };
  const known = new Set<string>();
  for (const record of records) {
    known.add(record.runId);
    const cursor = cursors?.[record.runId];
    const live = liveOf(record.runId);
    const terminal = terminalFrame(record, true);
    // A client that knows a run only from its chunks (revision 0) still needs its `started`.
    const knowsStart = cursor !== undefined && cursor.revision >= 1;
    const needsLifecycle = !knowsStart || (terminal !== null && (cursor?.revision ?? 0) < record.revision);
    const afterSequence = cursor?.sequence ?? 0;
    const stored =
      cursor && afterSequence >= record.lastSequence ? [] : await store.readLog(record.runId, { afterSequence });
    const storedUpTo = Math.max(stored.at(-1)?.sequence ?? afterSequence, record.lastSequence);
    const entries = live ? [...stored, ...live.entries.filter((entry) => entry.sequence > storedUpTo)] : stored;
    if (!needsLifecycle && entries.length === 0) continue;
    runs += 1;
    if (!knowsStart) emit(startedFrame(record, true));
    for (const entry of entries) emit(entryFrame(record, entry, true));
    const progress = live?.progress;
    if (progress && !isTerminalStatus(record.status)) {
      emit(ephemeralFrame(record, { type: AGENT_PROGRESS_PART, data: progress, transient: true } as never, true));
    }
    if (terminal && needsLifecycle) emit(terminal);
  }
  const gone = cursors ? Object.keys(cursors).filter((runId) => !known.has(runId)) : [];
  if (gone.length > 0) emit(clearedFrame(gone, true));
  return { runs, frames, cleared: gone.length };
}
