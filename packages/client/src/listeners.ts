/** @internal A set of change listeners: what every subscribable object here hands out as `subscribe`. */
export type Listeners = {
  /** Call `listener` after every change; returns the unsubscribe function (idempotent). */
  subscribe(listener: () => void): () => void;
  /** Call every listener once, in subscription order; one that unsubscribes (or subscribes) meanwhile is safe. */
  notify(): void;
};

/** @internal */
export function createListeners(): Listeners {
  const listeners = new Set<() => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    notify() {
      for (const listener of [...listeners]) listener();
    },
  };
}
