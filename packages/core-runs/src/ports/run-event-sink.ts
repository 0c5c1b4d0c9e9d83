import type { RunEvent } from "../events/run-events.js";

/**
 * Where core emits observability events. `emit` must not throw and must be cheap when nobody listens;
 * the registry guards every call anyway, so a throwing sink never breaks a run.
 */
export interface RunEventSink {
  emit(event: RunEvent): void;
}
