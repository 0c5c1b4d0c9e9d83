import { entriesForReader } from "./log-compaction.js";
import type { RunPosition, RunStore } from "./ports/run-store.js";
import {
  AGENT_PROGRESS_PART,
  type AgentToolCursor,
  type AgentToolCursors,
  type AgentToolEventFrame,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  encodeAgentToolFrame,
  isTerminalStatus,
  withLatestApprovals,
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
 * What a paged replay covers: a first page of `limit` runs, or the page of older runs `before` a position — which,
 * with `maxBytes`, ends before the run whose frames would take it past that many bytes (as encoded on the wire, UTF-8),
 * unless it is the page's first run (sent whole, so paging always moves on).
 */
export type ReplayPage = { limit: number; before?: RunPosition; maxBytes?: number };

/** Where a paged replay ended: whether older runs are retained, and where they start. */
export type ReplayPageEnd = { hasOlder: boolean; before?: RunPosition };

const LIVE = ["starting", "running"] as const;

/**
 * Send every retained run to one connection (`replay: true`), or with `cursors` only what is newer than the client
 * holds, plus one `cleared` frame for runs it names that no longer exist. Entries come from the parent's stored
 * copy of each log, then from what a live driver holds beyond it: no child is woken.
 *
 * With `page` (SPEC §6, paged replay), not every retained run, newest first: the page `before` a position; or, on
 * connect, every run from the oldest one the cursors name on (what the client shows, and what started since) — the
 * newest `limit` when it names none — and every live run. Reads the runs it sends (and those the cursors name), not
 * every retained one.
 */
export async function replayRuns(options: {
  store: RunStore;
  liveOf: (runId: string) => LiveRunView | undefined;
  send: (frame: AgentToolEventFrame) => void;
  cursors: AgentToolCursors | null;
  page?: ReplayPage;
}): Promise<{ runs: number; frames: number; cleared: number; page?: ReplayPageEnd }> {
  const { store, liveOf, send, cursors, page } = options;
  const selected: { records: RunRecord[]; gone: string[] | null; oldest?: RunPosition | undefined } = page
    ? await pagedRuns(store, cursors, page)
    : { records: await store.listRuns(), gone: null };
  const records = selected.records;
  let frames = 0;
  let runs = 0;
  const emit = (frame: AgentToolEventFrame) => {
    frames += 1;
    send(frame);
  };
  const known = new Set<string>();
  // A page of older runs within `maxBytes`: each run's frames are weighed before they are sent.
  const budget = page?.before && page.maxBytes !== undefined ? { left: page.maxBytes } : null;
  let oldest = selected.oldest;
  for (const [index, record] of records.entries()) {
    known.add(record.runId);
    const held: AgentToolEventFrame[] = [];
    const sent = await replayRun({
      store,
      record,
      live: liveOf(record.runId),
      cursor: cursors?.[record.runId],
      send: budget ? (frame) => held.push(frame) : emit,
    });
    if (budget) {
      const bytes = held.reduce((sum, frame) => sum + frameBytes(frame), 0);
      if (index > 0 && bytes > budget.left) {
        // The page ends with the run before: the older runs start there.
        oldest = positionOf(records[index - 1]);
        break;
      }
      budget.left -= bytes;
      for (const frame of held) emit(frame);
    }
    if (sent > 0) runs += 1;
  }
  const gone = selected.gone ?? (cursors ? Object.keys(cursors).filter((runId) => !known.has(runId)) : []);
  if (gone.length > 0) emit(clearedFrame(gone, true));
  if (!page) return { runs, frames, cleared: gone.length };
  // Older runs than the page's oldest (a live run older than that is sent anyway, and does not count).
  const older = oldest ? await store.listRuns({ order: "desc", before: oldest, limit: 1 }) : [];
  const end: ReplayPageEnd = oldest && older.length > 0 ? { hasOlder: true, before: oldest } : { hasOlder: false };
  return { runs, frames, cleared: gone.length, page: end };
}

/**
 * The runs of a paged replay, newest first: the page before `page.before`; or the client's window (from the oldest
 * run its cursors name that still exists; the newest `page.limit` when none does) and every live run. `gone`: the
 * named runs that no longer exist; `oldest`: the window's oldest run (where the next page starts).
 */
async function pagedRuns(
  store: RunStore,
  cursors: AgentToolCursors | null,
  page: ReplayPage,
): Promise<{ records: RunRecord[]; gone: string[]; oldest: RunPosition | undefined }> {
  if (page.before) {
    const records = await store.listRuns({ order: "desc", before: page.before, limit: page.limit });
    return { records, gone: [], oldest: positionOf(records.at(-1)) };
  }
  const named = Object.keys(cursors ?? {});
  const found = await Promise.all(named.map((runId) => store.getRun(runId)));
  const gone = named.filter((_, index) => found[index] === null);
  let from: RunPosition | undefined;
  for (const record of found) {
    if (record && (!from || comparePositions(record, from) < 0)) from = positionOf(record);
  }
  const window = from
    ? await store.listRuns({ order: "desc", from })
    : await store.listRuns({ order: "desc", limit: page.limit });
  const inWindow = new Set(window.map((record) => record.runId));
  const live = (await store.listRuns({ status: LIVE, order: "desc" })).filter((record) => !inWindow.has(record.runId));
  const records = [...window, ...live].sort((left, right) => comparePositions(right, left));
  return { records, gone, oldest: positionOf(window.at(-1)) };
}

const encoder = new TextEncoder();

/** A frame's size on the wire: its JSON text, as UTF-8 bytes. */
function frameBytes(frame: AgentToolEventFrame): number {
  return encoder.encode(encodeAgentToolFrame(frame)).byteLength;
}

function positionOf(record: RunRecord | undefined): RunPosition | undefined {
  return record ? { startedAt: record.startedAt, runId: record.runId } : undefined;
}

function comparePositions(left: RunPosition, right: RunPosition): number {
  if (left.startedAt !== right.startedAt) return left.startedAt - right.startedAt;
  return left.runId < right.runId ? -1 : left.runId > right.runId ? 1 : 0;
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
  // An approval is sent in its latest state from its first chunk on: a replay never shows an answered one pending.
  for (const entry of withLatestApprovals(entries)) emit(entryFrame(record, entry, true));
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
