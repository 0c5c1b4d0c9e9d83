/**
 * A binary min-heap ordered by `isBefore`: O(log n) push and pop, O(1) peek. Shared by the manual clock's timers
 * and the detached reconcile tick's due index (so a tick's cost follows the runs that are due, not every run).
 */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #isBefore: (a: T, b: T) => boolean;

  constructor(isBefore: (a: T, b: T) => boolean) {
    this.#isBefore = isBefore;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The first item, or `undefined` when empty. */
  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let index = items.length - 1;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex] as T;
      if (!this.#isBefore(item, parent)) break;
      items[index] = parent;
      index = parentIndex;
    }
    items[index] = item;
  }

  /** Remove and return the first item (`undefined` when empty). */
  pop(): T | undefined {
    const items = this.#items;
    const first = items[0];
    const last = items.pop();
    if (last === undefined || items.length === 0) return first;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const rightItem = items[right];
      const child = rightItem !== undefined && this.#isBefore(rightItem, items[left] as T) ? right : left;
      const childItem = items[child] as T;
      if (!this.#isBefore(childItem, last)) break;
      items[index] = childItem;
      index = child;
    }
    items[index] = last;
    return first;
  }

  /** Keep only the items `keep` accepts (rebuilds the heap; for compacting stale entries). */
  retain(keep: (item: T) => boolean): void {
    const kept = this.#items.filter(keep);
    this.#items.length = 0;
    for (const item of kept) this.push(item);
  }
}
