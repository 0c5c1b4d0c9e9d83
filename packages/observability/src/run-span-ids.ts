/**
 * The ids of new spans, for an OpenTelemetry SDK's `idGenerator` (`new BasicTracerProvider({ idGenerator })`): random,
 * as the SDK's own, except inside `reuse`, where the span started gets the ids a span had before (in a process that
 * died before it could end it). Give the same object to `createOpenTelemetryExporter({ ids })`: a run re-attached
 * after a restart then gets back the `execute_tool` / `invoke_agent` spans its work nests under, with their ids.
 */
export type RunSpanIds = {
  generateTraceId(): string;
  generateSpanId(): string;
  /**
   * Run `start` (one synchronous `tracer.startSpan`) with the next span id `spanId`, and, if the span is the root of
   * its trace, the trace id `traceId`. Returns what `start` returns.
   */
  reuse<T>(ids: { traceId: string; spanId: string }, start: () => T): T;
};

/** `bytes` random bytes as lower-case hex, never all zero (an invalid id). */
function randomHex(bytes: number): string {
  const values = new Uint8Array(bytes);
  do crypto.getRandomValues(values);
  while (values.every((value) => value === 0));
  return [...values].map((value) => value.toString(16).padStart(2, "0")).join("");
}

/**
 * A `RunSpanIds` (see there).
 *
 * @experimental New API: it may change without a major version.
 */
export function createRunSpanIds(): RunSpanIds {
  let next: { traceId: string; spanId: string } | undefined;
  return {
    generateTraceId: () => next?.traceId ?? randomHex(16),
    generateSpanId() {
      const spanId = next?.spanId;
      return spanId ?? randomHex(8);
    },
    reuse(ids, start) {
      next = ids;
      try {
        return start();
      } finally {
        next = undefined;
      }
    },
  };
}
