import type { RunStore } from "../ports/run-store.js";
import { type AgentToolLogEntry, isHardTerminalStatus, readStepResetChunk, stepResetChunk } from "../protocol/index.js";
import { encodeLogEntries } from "./log-codec.js";
import { type Delta, deltaChunk, readDelta } from "./log-deltas.js";
import { isMergedEntry, type MergedLogEntry } from "./merged-log-entry.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

/** A compacted log is written only when its encoding is at most this share of the full log's. */
const MIN_SAVING = 0.9;

/** The fewest consecutive deltas worth merging: two take as many entries as a reset and their merge. */
const MIN_MERGED_DELTAS = 3;

/**
 * A finished run's log compacted to what its final state needs: the chunks that build its final message, its
 * milestones, and its sequences, for any reader.
 * - Entries a step reset voids are left out (milestones among them stay); the reset stays, and stands for them.
 * - The consecutive deltas of one part (text, reasoning, tool input) from sequence `a` to `z` become two entries:
 *   a step reset at `z − 1` voiding `a … z − 2` (a reader holding some of them drops them; one holding none counts
 *   them as held), and at `z` one delta with all their text (`MergedLogEntry`: `merged` says where it starts and how
 *   long the last delta was). Deltas with fields of their own are merged too, keeping the last `providerMetadata`, as a
 *   client would.
 * - Everything else stays as it was, at its sequence and time: milestones keep theirs, and the last sequence is
 *   the run's.
 *
 * - A merged text that is the run's `summary` (give it: a child's default summary is its answer's text) is not stored
 *   twice: the merged delta says so instead (`merged.summary`).
 *
 * Replayed through `entriesForReader`, the result brings a client that holds the original log up to any sequence
 * (none, part of it, all of it) to the same run, its `lastSequence` included, as the original would. Compacting a
 * compacted log changes nothing.
 */
export function compactRunLog(
  entries: readonly AgentToolLogEntry[],
  options: { summary?: string | undefined } = {},
): AgentToolLogEntry[] {
  const kept = omitVoidedEntries([...entries].sort((left, right) => left.sequence - right.sequence));
  const compacted: AgentToolLogEntry[] = [];
  let region: { entries: AgentToolLogEntry[]; deltas: Delta[] } | null = null;
  const closeRegion = () => {
    if (region !== null) compacted.push(...mergeRegion(region.entries, region.deltas, options.summary));
    region = null;
  };
  for (const entry of kept) {
    const delta = isMergedEntry(entry) || Object.keys(entry).length !== 3 ? null : readDelta(entry.body, true);
    const previous = region?.entries.at(-1);
    const previousDelta = region?.deltas.at(-1);
    const continues =
      delta !== null &&
      previous !== undefined &&
      previousDelta !== undefined &&
      previous.sequence + 1 === entry.sequence &&
      previousDelta.type === delta.type &&
      previousDelta.part === delta.part;
    if (!continues) closeRegion();
    if (delta === null) {
      compacted.push(entry);
      continue;
    }
    region ??= { entries: [], deltas: [] };
    region.entries.push(entry);
    region.deltas.push(delta);
  }
  closeRegion();
  return compacted;
}

/**
 * What a reader that holds a run's log up to `afterSequence` is sent of it, in order, given the stored entries after
 * that sequence (`readLog(runId, { afterSequence })`, compacted or not). A log that was never compacted is given back
 * as it is. Of a compacted log, each merged region (the reset at `z − 1` and the merged delta at `z`):
 * - after the reader's sequence: the merged delta first, then the reset. A reader cut between the two then holds the
 *   delta ahead of a gap, so its cursor stays before the region, and the region is sent again whole; it never stops
 *   at `z − 1`, which is what a reader of the original log holding all but the last delta has;
 * - that such a reader holds part of (up to `z − 2`): the reset (it drops the deltas it holds), then the delta;
 * - that the reader holds all but the last delta of (`afterSequence` is `z − 1`): only that last delta.
 *
 * A merged delta whose text is the run's summary gets it back from `summary` (the run's row's), and is sent as a
 * plain delta. @internal
 */
export function entriesForReader(
  stored: readonly AgentToolLogEntry[],
  afterSequence: number,
  summary?: string,
): readonly AgentToolLogEntry[] {
  if (!stored.some(isMergedEntry)) return stored;
  const withText = stored.map((entry) => (isMergedEntry(entry) ? withSummary(entry, summary) : entry));
  const sent: AgentToolLogEntry[] = [];
  for (let index = 0; index < withText.length; index += 1) {
    const entry = withText[index] as AgentToolLogEntry;
    const next = withText[index + 1];
    if (next !== undefined && isRegionReset(entry, next)) {
      if (next.merged.from > afterSequence) sent.push(next, entry);
      else sent.push(entry, next);
      index += 1;
    } else if (isMergedEntry(entry) && entry.merged.from <= afterSequence) {
      sent.push(lastDeltaOf(entry));
    } else {
      sent.push(entry);
    }
  }
  return sent;
}

/**
 * Compact a finished (hard-terminal) run's stored log in `store`: read it, `compactRunLog` it, and `compactLog` the
 * result — or the log as it is when that would not save a tenth of its encoded size. `false` for an unknown, live,
 * `interrupted` (it may still be repaired) or empty run. @internal
 */
export async function compactStoredLog(store: RunStore, runId: string): Promise<boolean> {
  const record = await store.getRun(runId);
  if (record === null || !isHardTerminalStatus(record.status)) return false;
  const entries = await store.readLog(runId);
  if (entries.length === 0) return false;
  const compacted = compactRunLog(entries, { summary: record.summary });
  // Where compaction saves little (a log of few, long deltas is already its final message in the compact encoding),
  // the log is marked compacted as it is: rewriting it would cost more than it saves.
  const pays = encodeLogEntries(compacted).length < MIN_SAVING * encodeLogEntries(entries).length;
  return store.compactLog(runId, pays ? compacted : entries);
}

/** True when `reset` is the step reset `compactRunLog` put before the merged delta `next`. */
function isRegionReset(reset: AgentToolLogEntry, next: AgentToolLogEntry): next is MergedLogEntry {
  return (
    isMergedEntry(next) &&
    reset.sequence + 1 === next.sequence &&
    readStepResetChunk(reset.body)?.fromSequence === next.merged.from
  );
}

/** A merged delta cut down to its last delta (what a reader holding all the others lacks). */
function lastDeltaOf(entry: MergedLogEntry): AgentToolLogEntry {
  const delta = readDelta(entry.body, true);
  if (delta === null) return entry;
  const text = delta.text.slice(Math.max(0, delta.text.length - entry.merged.last));
  return { sequence: entry.sequence, body: deltaChunk({ ...delta, text }), at: entry.at };
}

/** A merged delta with its text: the summary's when it stands for it, its own otherwise. */
function withSummary(entry: MergedLogEntry, summary: string | undefined): MergedLogEntry {
  if (entry.merged.summary !== true || summary === undefined) return entry;
  const delta = readDelta(entry.body, true);
  if (delta === null) return entry;
  const { summary: _isSummary, ...merged } = entry.merged;
  return { ...entry, body: deltaChunk({ ...delta, text: summary }), merged };
}

/** A region of consecutive deltas of one part, as it is kept: itself when short, else a reset and one merged delta. */
function mergeRegion(
  entries: readonly AgentToolLogEntry[],
  deltas: readonly Delta[],
  summary: string | undefined,
): AgentToolLogEntry[] {
  const first = entries[0];
  const beforeLast = entries.at(-2);
  const last = entries.at(-1);
  const lastDelta = deltas.at(-1);
  if (entries.length < MIN_MERGED_DELTAS || !first || !beforeLast || !last || !lastDelta) return [...entries];
  let providerMetadata: unknown;
  for (const delta of deltas) if (delta.providerMetadata != null) providerMetadata = delta.providerMetadata;
  const text = deltas.map((delta) => delta.text).join("");
  const isSummary = text !== "" && text === summary && lastDelta.type === "text-delta";
  const merged: MergedLogEntry = {
    sequence: last.sequence,
    body: deltaChunk({ ...lastDelta, text: isSummary ? "" : text, providerMetadata }),
    at: last.at,
    merged: { from: first.sequence, last: lastDelta.text.length, ...(isSummary ? { summary: true as const } : {}) },
  };
  return [{ sequence: beforeLast.sequence, body: stepResetChunk(first.sequence), at: beforeLast.at }, merged];
}
