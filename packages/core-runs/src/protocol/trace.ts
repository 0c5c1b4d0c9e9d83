// The W3C trace context a run's work continues (OpenTelemetry's `traceparent` / `tracestate`): data that travels with
// the dispatch (parent → child), is kept on the run's row on both sides, and so outlives a restart.

/** A W3C trace context, as the `traceparent` and `tracestate` headers carry it. */
export type AgentToolTraceContext = { traceparent: string; tracestate?: string };

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A trace context read from the wire or a row: `null` for anything that is not one. Never throws. */
export function readAgentToolTraceContext(value: unknown): AgentToolTraceContext | null {
  if (typeof value !== "object" || value === null) return null;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return null;
  return { traceparent, ...(typeof tracestate === "string" && tracestate !== "" ? { tracestate } : {}) };
}
