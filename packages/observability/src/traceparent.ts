import type { SpanContext } from "@opentelemetry/api";

// One space either side is allowed, as OpenTelemetry's W3C propagator allows it (traceparent.test.ts holds us to it).
const TRACEPARENT = /^\s?([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?\s?$/;
const INVALID_TRACE_ID = "0".repeat(32);
const INVALID_SPAN_ID = "0".repeat(16);

/**
 * A span context as a W3C `traceparent` string (`00-<trace id>-<span id>-<flags>`), for carrying a run's trace
 * to a child in another isolate (e.g. in the Durable Object RPC that starts the child). The trace state is not
 * carried.
 */
export function formatTraceparent(spanContext: Pick<SpanContext, "traceId" | "spanId" | "traceFlags">): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/**
 * The remote span context a W3C `traceparent` string names, or `undefined` when it is not a valid one (an
 * all-zero id, version `ff`, extra fields on version `00`, upper-case hex). Never throws.
 */
export function parseTraceparent(traceparent: string): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === undefined || traceId === undefined || spanId === undefined || flags === undefined) return undefined;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}
