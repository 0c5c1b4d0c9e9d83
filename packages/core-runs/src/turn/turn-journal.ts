import type { UIMessageChunk } from "ai";
import type { JournalEntry } from "./journal-fold.js";

/**
 * Where a turn's chunks go, durably, in order: a child run's log, a conversation turn's stored chunks. What the turn
 * engine needs of it; each host implements it over its own storage and its own readers.
 *
 * Guarantees an implementation gives:
 * - `append` numbers each chunk with the next sequence and queues it for a bounded write; a **fact**
 *   (`isJournalFact`) is written at once, a step's `finish-step` never ahead of the chunk after it in the same burst
 *   (`waitsForNext`). A fact is handed to no reader (a tail, a follower) before it is written, or — where the host's
 *   platform holds what it sends until the writes before it are durable (a Durable Object's output gate) — before
 *   its write is issued;
 * - `appendAll` does the same for chunks that go in one write (never split between two);
 * - `durable()` resolves once everything appended before the call is stored, and rejects once a write failed;
 * - `read()` gives what is stored (entries void by a step reset left out), in order;
 * - `keep(entries, voided)` makes the journal go on from `entries` without the sequences `voided` (durably: a step
 *   reset in a run's log, a rewrite of a conversation turn's chunks) and hands what it keeps to its readers.
 */
export interface TurnJournal {
  read(): Promise<JournalEntry[]>;
  keep(entries: readonly JournalEntry[], voided: readonly number[]): Promise<void>;
  append(chunk: UIMessageChunk): number;
  /** Append chunks together: they are written in the same write (a fact and the host's chunk that goes with it). */
  appendAll(chunks: readonly UIMessageChunk[]): number;
  durable(): Promise<void>;
}
