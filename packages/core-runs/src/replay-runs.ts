import { entriesForReader } from "./log-compaction.js";
import type { RunStore } from "./ports/run-store.js";
import {
  AGENT_PROGRESS_PART,
  type AgentToolCursor,
  type AgentToolCursors,
  type AgentToolEventFrame,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  isTerminalStatus,
} from "./protocol/index.js";
import type { LiveRunView } from "./run-driver.js";
import { clearedFrame, entryFrame, ephemeralFrame, startedFrame, terminalFrame } from "./run-frames.js";
import type { RunRecord } from "./run-record.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

/**
 * What one run's replay sends a client that holds `cursor` (none: a full replay), as a pure decision:
 * - `started` unless the client knows the run's start (cursor revision ≥ 1);
 * - log entries after the client's sequence (without those a step reset voids);
 * - the latest progress: always for a live run (progress is ephemeral: the client may have missed it, and it cannot
 *   say which it holds), and for a finished run together with its terminal frame;
 * - the terminal frame when the client's revision is older.
 */
export type ReplayPlan = { started: boolean; afterSequence: number; progress: boolean; terminal: boolean };

export function planReplay(
  record: RunRecord,
  cursor: AgentToolCursor | undefined,
  progress: AgentToolProgressSnapshot | undefined,
): ReplayPlan {
  const knowsStart = cursor !== undefined && cursor.revision >= 1;
  const isFinished = isTerminalStatus(record.status);
  const terminal = isFinished && (!knowsStart || (cursor?.revision ?? 0) < record.revision);
  return {
    started: !knowsStart,
    afterSequence: cursor?.sequence ?? 0,
    progress: progress !== undefined && (!isFinished || terminal),
    terminal,
  };
}

/**
 * Send every retained run to one connection (`replay: true`), or with `cursors` only what is newer than the client
 * holds, plus one `cleared` frame for runs it names that no longer exist. Entries come from the parent's stored
 * copy of each log, then from what a live driver holds beyond it: no child is woken.
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
    const sent = await replayRun({
      store,
      record,
      live: liveOf(record.runId),
      cursor: cursors?.[record.runId],
      send: emit,
    });
    if (sent > 0) runs += 1;
  }
  const gone = cursors ? Object.keys(cursors).filter((runId) => !known.has(runId)) : [];
  if (gone.length > 0) emit(clearedFrame(gone, true));
  return { runs, frames, cleared: gone.length };
}

/**
 * Send one run to one receiver (`replay: true`): what is newer than `cursor` (none: everything), as `planReplay`
 * decides. Returns the number of frames sent.
 */
export async function replayRun(options: {
  store: RunStore;
  record: RunRecord;
  live: LiveRunView | undefined;
  cursor: AgentToolCursor | undefined;
  send: (frame: AgentToolEventFrame) => void;
}): Promise<number> {
  const { store, record, live, cursor, send } = options;
  // What the driver holds is read before the store: entries it writes meanwhile are in one or the other.
  const liveEntries = live ? [...live.entries] : [];
  const progress = live?.progress ?? record.progress;
  const plan = planReplay(record, cursor, progress);
  const entries = await entriesAfter(store, record, plan.afterSequence, live ? liveEntries : null);
  if (!plan.started && !plan.terminal && !plan.progress && entries.length === 0) return 0;
  let frames = 0;
  const emit = (frame: AgentToolEventFrame) => {
    frames += 1;
    send(frame);
  };
  if (plan.started) emit(startedFrame(record, true));
  for (const entry of entries) emit(entryFrame(record, entry, true));
  if (plan.progress && progress) {
    emit(ephemeralFrame(record, { type: AGENT_PROGRESS_PART, data: progress, transient: true } as never, true));
  }
  const terminal = plan.terminal ? terminalFrame(record, true) : null;
  if (terminal) emit(terminal);
  return frames;
}

/**
 * The stored copy after `afterSequence` (of a compacted log, what that reader needs: `entriesForReader`), then the
 * entries a live driver holds beyond it (`null`: no driver here),
 * without the entries a step reset voids (the client either never had them, or drops them on the reset, which is
 * sent). A run nobody follows here has nothing stored past its row's `lastSequence`, so a client at or past it costs
 * no read.
 */
async function entriesAfter(
  store: RunStore,
  record: RunRecord,
  afterSequence: number,
  liveEntries: readonly AgentToolLogEntry[] | null,
): Promise<AgentToolLogEntry[]> {
  if (liveEntries === null && afterSequence >= record.lastSequence) return [];
  const stored = await store.readLog(record.runId, { afterSequence });
  // A finished run's log may be compacted (log retention): sent as that reader needs it.
  if (liveEntries === null) return [...entriesForReader(omitVoidedEntries(stored), afterSequence, record.summary)];
  const storedUpTo = stored.at(-1)?.sequence ?? afterSequence;
  return omitVoidedEntries([...stored, ...liveEntries.filter((entry) => entry.sequence > storedUpTo)]);
}
