import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunEvent } from "./run-events.js";

/** A listener of run events. A listener that throws is isolated: other listeners and the run go on. */
export type RunEventListener = (event: RunEvent) => void;

/** A sink that fans events out to subscribers. `emit` costs one size check when nobody listens. */
export type RunEventHub = RunEventSink & {
  subscribe(listener: RunEventListener): () => void;
  /** True when at least one listener is subscribed (lets emitters skip building events). */
  readonly hasListeners: boolean;
};

/** Create a hub of run events. */
export function createRunEventHub(): RunEventHub {
  const listeners = new Set<RunEventListener>();
  return {
    get hasListeners() {
      return listeners.size > 0;
    },
    emit(event) {
      if (listeners.size === 0) return;
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A subscriber's bug must never break a run.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

const hubKey = Symbol.for("agent-tools.run-event-hub");

/**
 * The process-wide hub core emits into by default, so observability works with no wiring. Shared through a
 * global symbol, so two copies of this package in one bundle still meet.
 */
export function getDefaultRunEventHub(): RunEventHub {
  const holder = globalThis as { [hubKey]?: RunEventHub };
  holder[hubKey] ??= createRunEventHub();
  return holder[hubKey];
}
