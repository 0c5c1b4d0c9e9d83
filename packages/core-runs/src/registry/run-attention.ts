import { isTerminalStatus } from "../protocol/index.js";
import { isFinishHookPending } from "./run-machine.js";
import type { RunRecord } from "./run-record.js";

/** The registry's own key in `RunRecord.attention`: the `onAgentToolFinish` ledger is behind the row's revision. */
export const FINISH_ATTENTION = "finish";

/**
 * Who has work left on a finished row (`RunRecord.attention`), so that a start-up lists those rows and the live
 * ones, never every retained run. The registry owns `finish` (its finish-hook ledger); an extension that says when
 * its rows are settled (`RegistryExtensionOptions.settled`) owns its key. Each key is written with the owner's own
 * writes (merged per key by the store), so owners never race for each other's.
 */
export class RunAttention {
  /** Per extension key: whether a finished row still needs that extension. */
  readonly #owners = new Map<string, (record: RunRecord) => boolean>();

  /** An extension's rule; returns the function that removes it. */
  register(key: string, needs: (record: RunRecord) => boolean): () => void {
    this.#owners.set(key, needs);
    return () => {
      if (this.#owners.get(key) === needs) this.#owners.delete(key);
    };
  }

  /** The attention patch of a terminal write: every owner's key, set or cleared, for the row as it will be. */
  ofTerminal(row: RunRecord): Record<string, true | undefined> {
    const patch: Record<string, true | undefined> = { [FINISH_ATTENTION]: isFinishHookPending(row) || undefined };
    for (const key of this.#owners.keys()) patch[key] = this.needs(key, row) || undefined;
    return patch;
  }

  /** Whether extension `key` still has work on `row` (only a finished row with its state can need it). */
  needs(key: string, row: RunRecord): boolean {
    const rule = this.#owners.get(key);
    return rule !== undefined && isTerminalStatus(row.status) && rule(row);
  }
}
