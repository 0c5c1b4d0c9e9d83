import { describe, expect, it } from "vitest";
import { MinHeap } from "./min-heap.js";

describe("MinHeap", () => {
  it("pops in order, ties in the order isBefore says", () => {
    const heap = new MinHeap<{ at: number; order: number }>(
      (a, b) => a.at < b.at || (a.at === b.at && a.order < b.order),
    );
    const values = [5, 3, 9, 3, 1, 7, 1, 8].map((at, order) => ({ at, order }));
    for (const value of values) heap.push(value);
    expect(heap.size).toBe(8);
    expect(heap.peek()).toEqual({ at: 1, order: 4 });
    const popped: Array<[number, number]> = [];
    for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push([item.at, item.order]);
    expect(popped).toEqual([
      [1, 4],
      [1, 6],
      [3, 1],
      [3, 3],
      [5, 0],
      [7, 5],
      [8, 7],
      [9, 2],
    ]);
    expect(heap.pop()).toBeUndefined();
  });

  it("retains only what is kept, still ordered", () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    for (const value of [10, 4, 8, 2, 6]) heap.push(value);
    heap.retain((value) => value % 4 !== 0);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop()]).toEqual([2, 6, 10, undefined]);
  });
});
