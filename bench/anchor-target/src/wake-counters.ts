/**
 * How often child objects were constructed (woken) and called, per child, for `GET /bench/stats`. Module state:
 * every Durable Object of this Worker runs in one isolate under Miniflare, so the parent reads what its children
 * wrote. Keyed by the child object's id (hex).
 */
export type ChildCounters = { woken: number; calls: Record<string, number> };

const counters = new Map<string, ChildCounters>();

function entry(childId: string): ChildCounters {
  let found = counters.get(childId);
  if (!found) {
    found = { woken: 0, calls: {} };
    counters.set(childId, found);
  }
  return found;
}

export function noteChildWoken(childId: string): void {
  entry(childId).woken += 1;
}

export function noteChildCall(childId: string, method: string): void {
  const { calls } = entry(childId);
  calls[method] = (calls[method] ?? 0) + 1;
}

/** Sums and forgets the counters of these children (reset on read). */
export function takeChildCounters(childIds: Iterable<string>): {
  childrenWoken: number;
  childCalls: Record<string, number>;
} {
  let childrenWoken = 0;
  const childCalls: Record<string, number> = {};
  for (const childId of childIds) {
    const found = counters.get(childId);
    if (!found) continue;
    counters.delete(childId);
    childrenWoken += found.woken;
    for (const [method, count] of Object.entries(found.calls)) childCalls[method] = (childCalls[method] ?? 0) + count;
  }
  return { childrenWoken, childCalls };
}
