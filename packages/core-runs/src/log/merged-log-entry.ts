import type { AgentToolLogEntry } from "../protocol/index.js";

/**
 * An entry of a compacted log that stands for the consecutive deltas of one part from sequence `merged.from` up to its
 * own: its body is one delta with all their text. `merged.last` is the length of the last of them (its own), so that
 * a reader who holds all but that one can be sent just it. With `merged.summary`, the text is the run's summary (a
 * child's default summary is its answer's text): the body's text is left empty, and `entriesForReader` puts the
 * summary back.
 */
export type MergedLogEntry = AgentToolLogEntry & { merged: { from: number; last: number; summary?: true } };

/** True for an entry `compactRunLog` merged. */
export function isMergedEntry(entry: AgentToolLogEntry): entry is MergedLogEntry {
  const merged = (entry as Partial<MergedLogEntry>).merged;
  return typeof merged === "object" && merged !== null && Number.isSafeInteger(merged.from);
}
