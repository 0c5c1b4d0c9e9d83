import type { UIMessageChunk } from "ai";
import type { LiveRun } from "./live-run.js";
import type { RunStore } from "./ports/run-store.js";
import { stepResetVoiding } from "./protocol/index.js";
import { isJournalFact } from "./turn/journal-facts.js";
import type { JournalEntry } from "./turn/journal-fold.js";
import type { TurnJournal } from "./turn/turn-journal.js";
import { omitVoidedEntries } from "./voided-entry-filter.js";

/**
 * A child run's journal: its durable log. Chunks get the log's next sequence and go in its burst writes (a fact at
 * once); tails get an entry only once it is written. What recovery drops is voided by a step reset naming exactly
 * those entries.
 * @internal
 */
export class ChildRunJournal implements TurnJournal {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #live: LiveRun;

  constructor(options: { store: RunStore; live: LiveRun }) {
    this.#store = options.store;
    this.#runId = options.live.runId;
    this.#live = options.live;
  }

  async read(): Promise<JournalEntry[]> {
    return omitVoidedEntries(await this.#store.readLog(this.#runId));
  }

  async keep(_entries: readonly JournalEntry[], voided: readonly number[]): Promise<void> {
    const reset = stepResetVoiding(voided, this.#live.log.lastSequence + 1);
    if (reset === null) return;
    // Ordering invariant: the reset is durable before the turn goes on (every reader after it finds the cut voided).
    this.#live.append(reset);
    await this.#live.log.durable();
  }

  append(chunk: UIMessageChunk): number {
    const sequence = this.#live.append(chunk);
    if (isJournalFact(chunk)) this.#live.log.writeNow();
    return sequence;
  }

  appendAll(chunks: readonly UIMessageChunk[]): number {
    const sequence = this.#live.appendAll(chunks);
    if (chunks.some(isJournalFact)) this.#live.log.writeNow();
    return sequence;
  }

  durable(): Promise<void> {
    return this.#live.log.durable();
  }
}
