type Entry = { at: number; runId: string };

/**
 * The runs the tick must look at, and when: a binary min-heap on the due time, with one authoritative due time per
 * run (`schedule` keeps the earlier of two). Superseded heap entries are skipped when they reach the top (lazy
 * deletion) and compacted when they pile up. `takeDue` costs O(k log n) for the k runs due, not O(n).
 * @internal
 */
export class DueIndex {
  readonly #heap: Entry[] = [];
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
    this.#push({ at, runId });
    if (this.#heap.length > 64 && this.#heap.length > 2 * this.#due.size) this.#rebuild();
    return true;
  }

  /** Drop the run's due time. */
  forget(runId: string): void {
    this.#due.delete(runId);
  }

  /** The earliest due time, or `null` when nothing is due ever. */
  peek(): number | null {
    this.#dropStale();
    return this.#heap[0]?.at ?? null;
  }

  /** Remove and return the runs due at `now`, earliest first. */
  takeDue(now: number): string[] {
    const runIds: string[] = [];
    for (;;) {
      this.#dropStale();
      const top = this.#heap[0];
      if (top === undefined || top.at > now) return runIds;
      this.#pop();
      this.#due.delete(top.runId);
      runIds.push(top.runId);
    }
  }

  #isStale(entry: Entry): boolean {
    return this.#due.get(entry.runId) !== entry.at;
  }

  #dropStale(): void {
    while (this.#heap.length > 0 && this.#isStale(this.#heap[0] as Entry)) this.#pop();
  }

  #rebuild(): void {
    const live = this.#heap.filter((entry) => !this.#isStale(entry));
    const seen = new Set<string>();
    this.#heap.length = 0;
    for (const entry of live) {
      if (seen.has(entry.runId)) continue;
      seen.add(entry.runId);
      this.#push(entry);
    }
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if ((heap[parent] as Entry).at <= entry.at) break;
      heap[index] = heap[parent] as Entry;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as Entry).at < (heap[left] as Entry).at ? right : left;
      if ((heap[child] as Entry).at >= last.at) break;
      heap[index] = heap[child] as Entry;
      index = child;
    }
    heap[index] = last;
  }
}
