import type { Clock, TimerHandle } from "./ports/clock.js";

/** One user's hold on a shared value; `release()` is idempotent. */
export type SharedLease<T> = { readonly value: T; release(): void };

/** @internal Values shared by key among their users, disposed a grace period after the last one left. */
export type SharedPool<T> = {
  acquire(key: string): SharedLease<T>;
  /** The live value of `key` (in use, or in its grace period), without holding it. */
  peek(key: string): T | undefined;
  /** Dispose every value now, held or not. */
  disposeAll(): void;
};

type Entry<T> = { value: T; holders: number; graceTimer: TimerHandle | null };

/**
 * @internal A reference-counted pool: the first `acquire` of a key creates its value, later ones share it, and
 * `graceMs` after the last release it is disposed — unless someone acquires it again first. The grace is what makes
 * React StrictMode's mount → unmount → mount keep one value instead of making a second.
 */
export function createSharedPool<T>(options: {
  create(key: string): T;
  dispose(value: T): void;
  graceMs: number;
  clock: Clock;
}): SharedPool<T> {
  const entries = new Map<string, Entry<T>>();

  const disposeEntry = (key: string, entry: Entry<T>) => {
    if (entries.get(key) !== entry) return;
    entries.delete(key);
    if (entry.graceTimer !== null) options.clock.clearTimeout(entry.graceTimer);
    options.dispose(entry.value);
  };

  return {
    acquire(key) {
      let entry = entries.get(key);
      if (entry) {
        if (entry.graceTimer !== null) options.clock.clearTimeout(entry.graceTimer);
        entry.graceTimer = null;
      } else {
        entry = { value: options.create(key), holders: 0, graceTimer: null };
        entries.set(key, entry);
      }
      entry.holders += 1;
      const held = entry;
      let isReleased = false;
      return {
        value: held.value,
        release() {
          if (isReleased) return;
          isReleased = true;
          held.holders -= 1;
          if (held.holders > 0 || entries.get(key) !== held) return;
          held.graceTimer = options.clock.setTimeout(() => {
            held.graceTimer = null;
            if (held.holders === 0) disposeEntry(key, held);
          }, options.graceMs);
        },
      };
    },
    peek: (key) => entries.get(key)?.value,
    disposeAll() {
      for (const [key, entry] of [...entries]) disposeEntry(key, entry);
    },
  };
}
