import { type AgentToolLogEntry, isVoidedByReset, readStepResetChunk } from "./protocol/index.js";

/**
 * Leaves out of a run's log entries, read in sequence order, the ones a later step reset voids (see
 * `AGENT_STEP_RESET_PART`); the resets themselves are kept. Works page by page: a reset voids only entries of the
 * step it follows, never past a `finish-step`, so the filter holds back the entries after the last `finish-step`
 * until the next one (or `flush()`) shows they stay.
 * @internal
 */
export class VoidedEntryFilter {
  /** Entries since the last `finish-step`: a reset may still void them. */
  #held: AgentToolLogEntry[] = [];

  /** Take the next entries; returns those known to stay, in order. */
  push(entries: readonly AgentToolLogEntry[]): AgentToolLogEntry[] {
    const kept: AgentToolLogEntry[] = [];
    for (const entry of entries) {
      const reset = readStepResetChunk(entry.body);
      if (reset) {
        for (const held of this.#held) if (!isVoidedByReset(held, reset, entry.sequence)) kept.push(held);
        this.#held = [];
        kept.push(entry);
      } else if (entry.body.type === "finish-step") {
        kept.push(...this.#held, entry);
        this.#held = [];
      } else {
        this.#held.push(entry);
      }
    }
    return kept;
  }

  /** The entries held back (there are no more entries to come, or no more now): they stay. */
  flush(): AgentToolLogEntry[] {
    const held = this.#held;
    this.#held = [];
    return held;
  }
}

/** The entries of a log that no step reset voids, in order (resets included). */
export function omitVoidedEntries(entries: readonly AgentToolLogEntry[]): AgentToolLogEntry[] {
  const filter = new VoidedEntryFilter();
  return [...filter.push(entries), ...filter.flush()];
}
