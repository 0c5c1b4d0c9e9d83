import { MinHeap } from "@agent-tools/core-runs/internal";

type Entry = { at: number; runId: string };

/**
 * The runs the tick must look at, and when: a binary min-heap on the due time, with one authoritative due time per
 * run (`schedule` keeps the earlier of two). Superseded heap entries are skipped when they reach the top (lazy
 * deletion) and compacted when they pile up. `takeDue` costs O(k log n) for the k runs due, not O(n).
 * @internal
 */
export class DueIndex {
  readonly #heap = new MinHeap<Entry>((a, b) => a.at < b.at);
  readonly #due = new Map<string, number>();

  /** How many runs have a due time. */
  get size(): number {
    return this.#due.size;
  }

  /** The run's due time, if any. */
  dueAt(runId: string): number | undefined {
    return this.#due.get(runId);
  }

  /** Look at `runId` no later than `at`; an earlier due time already set wins. True when it changed. */
  schedule(runId: string, at: number): boolean {
    const current = this.#due.get(runId);
    if (current !== undefined && current <= at) return false;
    this.#due.set(runId, at);
    this.#heap.push({ at, runId });
    if (this.#heap.size > 64 && this.#heap.size > 2 * this.#due.size) this.#rebuild();
    return true;
  }

  /** Drop the run's due time. */
  forget(runId: string): void {
    this.#due.delete(runId);
  }

  /** The earliest due time, or `null` when nothing is due ever. */
  peek(): number | null {
    this.#dropStale();
    return this.#heap.peek()?.at ?? null;
  }

  /** Remove and return the runs due at `now`, earliest first. */
  takeDue(now: number): string[] {
    const runIds: string[] = [];
    for (;;) {
      this.#dropStale();
      const top = this.#heap.peek();
      if (top === undefined || top.at > now) return runIds;
      this.#heap.pop();
      this.#due.delete(top.runId);
      runIds.push(top.runId);
    }
  }

  #isStale(entry: Entry): boolean {
    return this.#due.get(entry.runId) !== entry.at;
  }

  #dropStale(): void {
    for (let top = this.#heap.peek(); top !== undefined && this.#isStale(top); top = this.#heap.peek())
      this.#heap.pop();
  }

  /** Compact: drop superseded entries and keep one entry per run. */
  #rebuild(): void {
    const seen = new Set<string>();
    this.#heap.retain((entry) => {
      if (this.#isStale(entry) || seen.has(entry.runId)) return false;
      seen.add(entry.runId);
      return true;
    });
  }
}
