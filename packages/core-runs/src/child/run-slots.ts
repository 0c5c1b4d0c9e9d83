import type { AgentToolRunInspection } from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { LiveRun } from "./live-run.js";
import type { StartTail } from "./start-tail.js";

/**
 * What a runner holds for one run while the run needs any of it.
 * @internal
 */
export type RunSlot = {
  /** The run's turn, executing or paused, here. */
  live: LiveRun | undefined;
  /** Its `start` in flight (single-flight per run). */
  starting: Promise<AgentToolRunInspection> | undefined;
  /** Its wake in flight (single-flight per run). */
  waking: Promise<RunRecord | null> | undefined;
  /** True between its insert and the start of its turn (not cut off, though `running` with no turn). */
  isRecording: boolean | undefined;
  /** True while `startTail` starts it: its tail comes right after the start. */
  isTailExpected: boolean | undefined;
  /** The tail of a run `startTail` began, listening from its start, until `startTail` opens it. */
  startTail: StartTail | undefined;
};

/**
 * A runner's per-run state, one slot per run that needs some: made when first needed, dropped once empty (a run that
 * has ended leaves nothing; a runner with no run in flight holds no table at all). A child object is made per run
 * and kept in memory a while after it: what it holds once its run has ended is what a fan-out's thousand children
 * cost.
 * @internal
 */
export class RunSlots {
  #slots: Map<string, RunSlot> | undefined;

  get<TKey extends keyof RunSlot>(runId: string, key: TKey): RunSlot[TKey] {
    return this.#slots?.get(runId)?.[key];
  }

  set<TKey extends keyof RunSlot>(runId: string, key: TKey, value: RunSlot[TKey]): void {
    if (value === undefined) {
      this.delete(runId, key);
      return;
    }
    this.#slots ??= new Map();
    let slot = this.#slots.get(runId);
    if (slot === undefined) {
      slot = emptySlot();
      this.#slots.set(runId, slot);
    }
    slot[key] = value;
  }

  delete(runId: string, key: keyof RunSlot): void {
    const slot = this.#slots?.get(runId);
    if (slot === undefined) return;
    slot[key] = undefined;
    if (!isEmpty(slot)) return;
    this.#slots?.delete(runId);
    if (this.#slots?.size === 0) this.#slots = undefined;
  }

  /** The runs live here (in the order their slots were made). */
  *live(): IterableIterator<LiveRun> {
    if (this.#slots === undefined) return;
    for (const slot of this.#slots.values()) if (slot.live !== undefined) yield slot.live;
  }

  /** How many runs hold a slot (0 once every run has ended and nothing is in flight). */
  get size(): number {
    return this.#slots?.size ?? 0;
  }
}

function emptySlot(): RunSlot {
  return {
    live: undefined,
    starting: undefined,
    waking: undefined,
    isRecording: undefined,
    isTailExpected: undefined,
    startTail: undefined,
  };
}

function isEmpty(slot: RunSlot): boolean {
  return (
    slot.live === undefined &&
    slot.starting === undefined &&
    slot.waking === undefined &&
    slot.isRecording === undefined &&
    slot.isTailExpected === undefined &&
    slot.startTail === undefined
  );
}
