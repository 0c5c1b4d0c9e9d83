import { getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { Attributes, Context, Span, SpanContext, SpanStatusCode, Tracer } from "@opentelemetry/api";
import { type CoreRunEventOf, isCoreRunEvent, type RunEvent, runIdOf } from "./channel.js";
import type { RunEventSource } from "./subscribe.js";

// `@opentelemetry/api` is an optional peer: only its types are imported, so its enum values are spelled here.
const STATUS_OK = 1 as SpanStatusCode.OK;
const STATUS_ERROR = 2 as SpanStatusCode.ERROR;

/** Default bound on open run spans (and, separately, on open child-turn spans). */
export const DEFAULT_MAX_OPEN_SPANS = 1000;

/** The events that may open a span; `parentContext` receives them. */
export type SpanOpeningEvent = CoreRunEventOf<
  | "agent_tool:run:dispatch"
  | "agent_tool:run:reattach"
  | "agent_tool:run:rejected"
  | "agent_tool:run:finish"
  | "agent_tool:child:turn:start"
>;

export type OpenTelemetryExporterOptions = {
  /** From your SDK, e.g. `trace.getTracer("agent-tools")`. Only `startSpan` is used. */
  tracer: Pick<Tracer, "startSpan">;
  /**
   * The context a span is started in, e.g. the parent agent's tool-call span: `trace.setSpan(context.active(),
   * toolCallSpan)`. Returning `undefined` (or leaving this out) uses the tracer's active context.
   */
  parentContext?: (event: SpanOpeningEvent) => Context | undefined;
  /**
   * For a child turn whose run span is not in this isolate (the child runs in another Durable Object): the run
   * span's context, which the host carried to the child itself, e.g. as a `traceparent` it received with the
   * start call (`parseTraceparent`). The turn's span gets a link to it.
   */
  linkContext?: (event: CoreRunEventOf<"agent_tool:child:turn:start">) => SpanContext | undefined;
  /** Listen here instead of the process-wide hub. */
  source?: RunEventSource;
  /** At most this many open run spans, and as many open turn spans; past it, the oldest is ended. Default 1000. */
  maxOpenSpans?: number;
  /** Epoch ms, for ending spans left open on `dispose()`. Default: the tracer's own clock. */
  now?: () => number;
};

export type OpenTelemetryExporter = {
  /**
   * The span context of a run's open span in this isolate, to pass to its child (see `formatTraceparent`).
   * `undefined` when no span of that run is open here.
   */
  runSpanContext(runId: string): SpanContext | undefined;
  /** How many spans (runs and child turns) are open now. */
  readonly openSpans: number;
  /** Stop listening and end every open span (marked `agent_tool.unfinished`). Idempotent. */
  dispose(): void;
};

/**
 * Export agent-tool runs as OpenTelemetry spans, from the run events core emits (no dependency on
 * `@opentelemetry/api` at run time: pass your tracer).
 *
 * - A span `agent_tool.run <agentType>` per run, opened by `agent_tool:run:dispatch` and ended by
 *   `agent_tool:run:finish` with status OK (`completed`) or ERROR (any other status), and attributes
 *   `agent_tool.run_id`, `agent_tool.agent_type`, `agent_tool.status`, `agent_tool.reason`,
 *   `agent_tool.duration_ms`. It starts in `parentContext(event)`, else in the active context.
 * - A span `agent_tool.child.turn <agentType>` per child turn (`agent_tool:child:turn:start` → `…:finish`),
 *   linked to its run's span when that span is open in this isolate, else to `linkContext(event)`.
 * - Other events of a run (start, progress, re-attach, hook errors, extension events) become span events, with
 *   their typed scalar fields as `agent_tool.*` attributes.
 *
 * Limits: spans live in this isolate's memory. A run whose dispatch was seen by another process gets its span
 * when its finish arrives here, rebuilt from `durationMs` (`agent_tool.rebuilt`), or when it is re-attached
 * (`agent_tool.reattached`); a run interrupted and later repaired gets a second span. Open spans are bounded
 * (`maxOpenSpans`) and ended on `dispose()`. A cleared run's span ends with ERROR `cleared`.
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * const exporter = createOpenTelemetryExporter({ tracer: trace.getTracer("agent-tools") });
 * // on shutdown
 * exporter.dispose();
 */
export function createOpenTelemetryExporter(options: OpenTelemetryExporterOptions): OpenTelemetryExporter {
  const { tracer } = options;
  const maxOpenSpans = Math.max(1, options.maxOpenSpans ?? DEFAULT_MAX_OPEN_SPANS);
  const runs = new Map<string, Span>();
  const turns = new Map<string, Span>();

  const startSpan = (
    name: string,
    event: SpanOpeningEvent,
    attributes: Attributes,
    startTime: number,
    link?: SpanContext,
  ): Span =>
    tracer.startSpan(
      name,
      { attributes, startTime, ...(link !== undefined ? { links: [{ context: link }] } : {}) },
      options.parentContext?.(event),
    );

  const track = (spans: Map<string, Span>, runId: string, span: Span, at: number) => {
    const previous = spans.get(runId);
    if (previous) endUnfinished(previous, at);
    spans.delete(runId);
    spans.set(runId, span);
    // Maps keep insertion order: the first entry is the oldest open span.
    for (const [oldest, oldestSpan] of spans) {
      if (spans.size <= maxOpenSpans) break;
      endUnfinished(oldestSpan, at);
      spans.delete(oldest);
    }
  };

  const openRun = (event: SpanOpeningEvent & { agentType: string }, attributes: Attributes, startTime: number) => {
    const span = startSpan(
      `agent_tool.run ${event.agentType}`,
      event,
      { "agent_tool.run_id": event.runId, "agent_tool.agent_type": event.agentType, ...attributes },
      startTime,
    );
    track(runs, event.runId, span, event.at);
    return span;
  };

  const onEvent = (event: RunEvent) => {
    if (!isCoreRunEvent(event)) {
      const runId = runIdOf(event);
      const span = runId === undefined ? undefined : (runs.get(runId) ?? turns.get(runId));
      span?.addEvent(event.type, scalarAttributes(event), event.at);
      return;
    }
    switch (event.type) {
      case "agent_tool:run:dispatch": {
        const existing = runs.get(event.runId);
        if (existing) {
          existing.addEvent(event.type, {}, event.at);
          return;
        }
        openRun(
          event,
          {
            "agent_tool.detached": event.detached,
            ...(event.parentToolCallId !== undefined
              ? { "agent_tool.parent_tool_call_id": event.parentToolCallId }
              : {}),
          },
          event.at,
        );
        return;
      }
      case "agent_tool:run:start":
        runs.get(event.runId)?.addEvent(event.type, {}, event.at);
        return;
      case "agent_tool:run:rejected": {
        // Only the cap refuses a dispatch that was recorded (and opened a span); other refusals come before any
        // run exists, and an open span of the same runId belongs to the run the refused dispatch collided with.
        const span = event.rejection === "max-concurrency" ? runs.get(event.runId) : undefined;
        if (span) {
          span.setAttributes({ "agent_tool.rejection": event.rejection });
          span.addEvent(event.type, { "agent_tool.rejection": event.rejection }, event.at);
          return;
        }
        // Refused before any run existed: a span of no length, so the refusal shows in the trace.
        const refused = startSpan(
          `agent_tool.run ${event.agentType}`,
          event,
          {
            "agent_tool.run_id": event.runId,
            "agent_tool.agent_type": event.agentType,
            "agent_tool.status": "error",
            "agent_tool.rejection": event.rejection,
          },
          event.at,
        );
        refused.setStatus({ code: STATUS_ERROR, message: `rejected: ${event.rejection}` });
        refused.end(event.at);
        return;
      }
      case "agent_tool:run:finish": {
        const span =
          runs.get(event.runId) ?? openRun(event, { "agent_tool.rebuilt": true }, event.at - event.durationMs);
        runs.delete(event.runId);
        span.setAttributes({
          "agent_tool.status": event.status,
          "agent_tool.previous_status": event.previousStatus,
          "agent_tool.duration_ms": event.durationMs,
          ...(event.reason !== undefined ? { "agent_tool.reason": event.reason } : {}),
          ...(event.cause !== undefined ? { "agent_tool.cause": event.cause } : {}),
        });
        span.setStatus(
          event.status === "completed"
            ? { code: STATUS_OK }
            : {
                code: STATUS_ERROR,
                message: event.reason !== undefined ? `${event.status}: ${event.reason}` : event.status,
              },
        );
        span.end(event.at);
        return;
      }
      case "agent_tool:run:reattach": {
        const span = runs.get(event.runId);
        if (span) span.addEvent(event.type, { "agent_tool.after_sequence": event.afterSequence }, event.at);
        else
          openRun(event, { "agent_tool.reattached": true, "agent_tool.after_sequence": event.afterSequence }, event.at);
        return;
      }
      case "agent_tool:hook:error":
        runs
          .get(event.runId)
          ?.addEvent(event.type, { "agent_tool.hook": event.hook, "agent_tool.error_name": event.errorName }, event.at);
        return;
      case "agent_tool:replay":
        // About a connection, not a run: no span.
        return;
      case "agent_tool:clear":
        for (const runId of event.runIds) {
          for (const spans of [runs, turns]) {
            const span = spans.get(runId);
            if (!span) continue;
            spans.delete(runId);
            span.setAttributes({ "agent_tool.cleared": true });
            span.setStatus({ code: STATUS_ERROR, message: "cleared" });
            span.end(event.at);
          }
        }
        return;
      case "agent_tool:child:turn:start": {
        const link = runs.get(event.runId)?.spanContext() ?? options.linkContext?.(event);
        const span = startSpan(
          `agent_tool.child.turn ${event.agentType}`,
          event,
          {
            "agent_tool.run_id": event.runId,
            "agent_tool.agent_type": event.agentType,
            "agent_tool.resumed": event.resumed,
          },
          event.at,
          link,
        );
        track(turns, event.runId, span, event.at);
        return;
      }
      case "agent_tool:child:turn:finish": {
        const span = turns.get(event.runId);
        if (!span) return;
        turns.delete(event.runId);
        span.setAttributes({ "agent_tool.status": event.status, "agent_tool.entries": event.entries });
        span.setStatus(
          event.status === "completed" ? { code: STATUS_OK } : { code: STATUS_ERROR, message: event.status },
        );
        span.end(event.at);
        return;
      }
    }
  };

  const source = options.source ?? getDefaultRunEventHub();
  let unsubscribe: (() => void) | undefined = source.subscribe(onEvent);

  return {
    runSpanContext: (runId) => runs.get(runId)?.spanContext(),
    get openSpans() {
      return runs.size + turns.size;
    },
    dispose() {
      if (!unsubscribe) return;
      unsubscribe();
      unsubscribe = undefined;
      const at = options.now?.();
      for (const spans of [runs, turns]) {
        for (const span of spans.values()) endUnfinished(span, at);
        spans.clear();
      }
    },
  };
}

function endUnfinished(span: Span, at: number | undefined): void {
  span.setAttributes({ "agent_tool.unfinished": true });
  span.end(at);
}

/** An extension event's scalar fields as `agent_tool.<snake_case>` attributes; objects are never exported. */
function scalarAttributes(event: RunEvent): Attributes {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(event)) {
    if (key === "type" || key === "at") continue;
    const name = `agent_tool.${key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      attributes[name] = value;
    } else if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === typeof value[0])) {
      if (typeof value[0] === "string" || typeof value[0] === "number" || typeof value[0] === "boolean") {
        attributes[name] = value as string[] | number[] | boolean[];
      }
    }
  }
  return attributes;
}
