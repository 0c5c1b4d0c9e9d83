import { getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { AgentToolTraceRequest } from "@agent-tools/core-runs/internal";
import type { AgentToolTraceContext } from "@agent-tools/core-runs/protocol";
import type { Attributes, Context, Span, SpanContext, SpanKind, SpanStatusCode, Tracer } from "@opentelemetry/api";
import { type CoreRunEventOf, isCoreRunEvent, type RunEvent, runIdOf } from "./channel.js";
import type { RunSpanIds } from "./run-span-ids.js";
import type { RunEventSource } from "./subscribe.js";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

// `@opentelemetry/api` is an optional peer: only its types are imported, so its enum values are spelled here.
const STATUS_OK = 1 as SpanStatusCode.OK;
const STATUS_ERROR = 2 as SpanStatusCode.ERROR;
const KIND_INTERNAL = 0 as SpanKind.INTERNAL;
const KIND_CLIENT = 2 as SpanKind.CLIENT;

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
  /**
   * The `idGenerator` your tracer's provider uses (`createRunSpanIds()`): with it, a run re-attached after its process
   * died gets back the `execute_tool` / `invoke_agent` pair opened at its dispatch — the same ids (which its child's
   * spans nest under), from the run's recorded start to its end — instead of a continuation span under the lost one.
   */
  ids?: RunSpanIds;
};

export type OpenTelemetryExporter = {
  /**
   * The span context of a run's open `invoke_agent` span in this isolate: what its child's spans nest under.
   * `undefined` when no span of that run is open here.
   */
  runSpanContext(runId: string): SpanContext | undefined;
  /**
   * For a registry's `traceContext` option: opens a new run's spans at its dispatch (`execute_tool`, in the
   * dispatcher's trace context when the request names one, else as a dispatch's span would start, and its child
   * `invoke_agent`) and answers with the `invoke_agent` span's W3C trace context, which the registry keeps on the run's
   * row and sends to the child: the child's spans (and the AI SDK's, given `context.trace`) nest under it, also after
   * a restart. A detached run's `invoke_agent` starts a trace of its own, linked to its `execute_tool`.
   */
  traceContext(run: AgentToolTraceRequest): AgentToolTraceContext | undefined;
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
      // A run's `execute_tool` goes with its `invoke_agent`.
      const tool = spans === runs ? tools.get(oldest) : undefined;
      if (tool) {
        endUnfinished(tool, at);
        tools.delete(oldest);
      }
    }
  };

  /** A run's pair of spans: `execute_tool` (the tool call) and its child `invoke_agent` (the child agent's run). */
  const tools = new Map<string, Span>();
  /** The `execute_tool` span `openRun` started last. */
  let lastTool: Span | undefined;

  const openRun = (
    event: SpanOpeningEvent & { agentType: string },
    attributes: Attributes,
    startTime: number | undefined,
    how: { dispatcher?: SpanContext; detached?: boolean; parentToolCallId?: string; rootId?: string } = {},
  ): Span => {
    const { runId, agentType } = event;
    const runAttributes = { "agent_tool.run_id": runId, "agent_tool.agent_type": agentType, ...attributes };
    const dispatcherContext = how.dispatcher ? remoteContext(how.dispatcher) : options.parentContext?.(event);
    const tool = tracer.startSpan(
      `execute_tool ${agentType}`,
      {
        kind: KIND_INTERNAL,
        ...(startTime !== undefined ? { startTime } : {}),
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": agentType,
          "gen_ai.tool.type": "extension",
          ...(how.parentToolCallId !== undefined ? { "gen_ai.tool.call.id": how.parentToolCallId } : {}),
          ...runAttributes,
        },
      },
      dispatcherContext,
    );
    const agentAttributes: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": runId,
      "gen_ai.agent.name": agentType,
      ...(how.rootId !== undefined ? { "gen_ai.conversation.id": how.rootId } : {}),
      ...runAttributes,
    };
    const agent = tracer.startSpan(
      `invoke_agent ${agentType}`,
      {
        kind: KIND_CLIENT,
        ...(startTime !== undefined ? { startTime } : {}),
        attributes: agentAttributes,
        // A detached run outlives the call that dispatched it: a trace of its own, linked to that call.
        ...(how.detached ? { root: true, links: [{ context: tool.spanContext() }] } : {}),
      },
      how.detached ? undefined : remoteContext(tool.spanContext()),
    );
    if (how.detached) {
      tool.setStatus({ code: STATUS_OK });
      tool.end(startTime);
    } else {
      tools.set(runId, tool);
    }
    lastTool = tool;
    track(runs, runId, agent, event.at);
    return agent;
  };

  /** Continue a run whose spans were opened in another process: an `invoke_agent` span under its stored context. */
  const continueRun = (
    event: CoreRunEventOf<"agent_tool:run:reattach">,
    stored: SpanContext,
    attributes: Attributes,
  ): Span => {
    const span = tracer.startSpan(
      `invoke_agent ${event.agentType}`,
      {
        kind: KIND_CLIENT,
        startTime: event.at,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.id": event.runId,
          "gen_ai.agent.name": event.agentType,
          "agent_tool.run_id": event.runId,
          "agent_tool.agent_type": event.agentType,
          ...attributes,
        },
      },
      remoteContext(stored),
    );
    track(runs, event.runId, span, event.at);
    return span;
  };

  /**
   * A run whose spans died with the process that opened them (a kill, an eviction): its `execute_tool` and
   * `invoke_agent` spans started again with the ids they had (kept on the run's row, in its trace context) and the
   * run's recorded start, so that the trace shows the run whole, its child's spans under their own parent.
   */
  const recreateRun = (
    event: CoreRunEventOf<"agent_tool:run:reattach">,
    ids: RunSpanIds,
    stored: SpanContext,
    recorded: RecordedSpans,
  ): Span => {
    const { runId, agentType, startedAt } = event;
    const attributes = {
      "agent_tool.run_id": runId,
      "agent_tool.agent_type": agentType,
      "agent_tool.recreated": true,
    };
    const { traceId, traceFlags } = stored;
    let tool: Span | undefined;
    if (!recorded.detached) {
      const parent = recorded.parentSpanId
        ? remoteContext({ traceId, spanId: recorded.parentSpanId, traceFlags, isRemote: true })
        : undefined;
      tool = ids.reuse({ traceId, spanId: recorded.toolSpanId }, () =>
        tracer.startSpan(
          `execute_tool ${agentType}`,
          {
            kind: KIND_INTERNAL,
            startTime: startedAt,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": agentType,
              "gen_ai.tool.type": "extension",
              ...attributes,
            },
            ...(parent ? {} : { root: true }),
          },
          parent,
        ),
      );
      tools.set(runId, tool);
    }
    const agent = ids.reuse({ traceId, spanId: stored.spanId }, () =>
      tracer.startSpan(
        `invoke_agent ${agentType}`,
        {
          kind: KIND_CLIENT,
          startTime: startedAt,
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.id": runId,
            "gen_ai.agent.name": agentType,
            ...attributes,
          },
          ...(tool ? {} : { root: true }),
        },
        tool ? remoteContext(tool.spanContext()) : undefined,
      ),
    );
    agent.addEvent(event.type, { "agent_tool.after_sequence": event.afterSequence }, event.at);
    track(runs, runId, agent, event.at);
    return agent;
  };

  /** A context whose span is `spanContext` (no `@opentelemetry/api` at run time: a non-recording span of our own). */
  const remoteContext = (spanContext: SpanContext): Context => contextWithSpan(spanContext);

  const onDispatch = (event: CoreRunEventOf<"agent_tool:run:dispatch">) => {
    const existing = runs.get(event.runId);
    if (existing) {
      existing.addEvent(event.type, {}, event.at);
      return;
    }
    openRun(event, dispatchAttributes(event), event.at, {
      detached: event.detached,
      ...(event.parentToolCallId !== undefined ? { parentToolCallId: event.parentToolCallId } : {}),
    });
  };

  const onRejected = (event: CoreRunEventOf<"agent_tool:run:rejected">) => {
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
      `execute_tool ${event.agentType}`,
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
  };

  const onFinish = (event: CoreRunEventOf<"agent_tool:run:finish">) => {
    const span = runs.get(event.runId) ?? openRun(event, { "agent_tool.rebuilt": true }, event.at - event.durationMs);
    runs.delete(event.runId);
    const tool = tools.get(event.runId);
    tools.delete(event.runId);
    const usage = usageAttributes(event.usage);
    for (const ended of tool ? [span, tool] : [span]) endRun(ended, event, ended === span ? usage : {});
  };

  const onReattach = (event: CoreRunEventOf<"agent_tool:run:reattach">) => {
    const span = runs.get(event.runId);
    const stored = event.trace ? parseTraceparent(event.trace.traceparent) : undefined;
    const attributes = { "agent_tool.reattached": true, "agent_tool.after_sequence": event.afterSequence };
    const recorded = options.ids && event.trace ? readRecordedSpans(event.trace.tracestate) : undefined;
    if (span) span.addEvent(event.type, { "agent_tool.after_sequence": event.afterSequence }, event.at);
    // The run's spans died with the process that opened them: start them again, with their ids, …
    else if (stored && recorded && options.ids) recreateRun(event, options.ids, stored, recorded);
    // … or go on in the trace its row kept.
    else if (stored) continueRun(event, stored, attributes);
    else openRun(event, attributes, event.at);
  };

  const onClear = (event: CoreRunEventOf<"agent_tool:clear">) => {
    for (const runId of event.runIds) {
      for (const spans of [runs, turns, tools]) {
        const span = spans.get(runId);
        if (!span) continue;
        spans.delete(runId);
        span.setAttributes({ "agent_tool.cleared": true });
        span.setStatus({ code: STATUS_ERROR, message: "cleared" });
        span.end(event.at);
      }
    }
  };

  const onTurnStart = (event: CoreRunEventOf<"agent_tool:child:turn:start">) => {
    // With the trace context its parent sent, the turn nests under the run's `invoke_agent` span; without, it is
    // linked to the run's span when that is open here (or to `linkContext`).
    const parent = event.trace ? parseTraceparent(event.trace.traceparent) : undefined;
    const link = parent ? undefined : (runs.get(event.runId)?.spanContext() ?? options.linkContext?.(event));
    const span = tracer.startSpan(
      `agent_tool.child.turn ${event.agentType}`,
      {
        startTime: event.at,
        attributes: {
          "agent_tool.run_id": event.runId,
          "agent_tool.agent_type": event.agentType,
          "agent_tool.resumed": event.resumed,
        },
        ...(link !== undefined ? { links: [{ context: link }] } : {}),
      },
      parent ? remoteContext(parent) : options.parentContext?.(event),
    );
    track(turns, event.runId, span, event.at);
  };

  const onTurnFinish = (event: CoreRunEventOf<"agent_tool:child:turn:finish">) => {
    const span = turns.get(event.runId);
    if (!span) return;
    turns.delete(event.runId);
    span.setAttributes({ "agent_tool.status": event.status, "agent_tool.entries": event.entries });
    span.setStatus(event.status === "completed" ? { code: STATUS_OK } : { code: STATUS_ERROR, message: event.status });
    span.end(event.at);
  };

  const onEvent = (event: RunEvent) => {
    if (!isCoreRunEvent(event)) {
      const runId = runIdOf(event);
      const span = runId === undefined ? undefined : (runs.get(runId) ?? turns.get(runId));
      span?.addEvent(event.type, scalarAttributes(event), event.at);
      return;
    }
    switch (event.type) {
      case "agent_tool:run:dispatch":
        onDispatch(event);
        return;
      case "agent_tool:run:start":
        runs.get(event.runId)?.addEvent(event.type, {}, event.at);
        return;
      case "agent_tool:run:rejected":
        onRejected(event);
        return;
      case "agent_tool:run:finish":
        onFinish(event);
        return;
      case "agent_tool:run:reattach":
        onReattach(event);
        return;
      case "agent_tool:hook:error":
        runs
          .get(event.runId)
          ?.addEvent(event.type, { "agent_tool.hook": event.hook, "agent_tool.error_name": event.errorName }, event.at);
        return;
      case "agent_tool:replay":
        // About a connection, not a run: no span.
        return;
      case "agent_tool:clear":
        onClear(event);
        return;
      case "agent_tool:child:turn:start":
        onTurnStart(event);
        return;
      case "agent_tool:child:turn:finish":
        onTurnFinish(event);
        return;
    }
  };

  const traceContext = (run: AgentToolTraceRequest): AgentToolTraceContext | undefined => {
    if (runs.has(run.runId)) return undefined;
    const dispatcher = run.dispatcher ? parseTraceparent(run.dispatcher.traceparent) : undefined;
    const event = {
      type: "agent_tool:run:dispatch",
      runId: run.runId,
      agentType: run.agentType,
      detached: run.detached,
      at: options.now?.() ?? 0,
      ...(run.parentToolCallId !== undefined ? { parentToolCallId: run.parentToolCallId } : {}),
    } satisfies CoreRunEventOf<"agent_tool:run:dispatch">;
    const span = openRun(event, dispatchAttributes(event), options.now?.(), {
      detached: run.detached,
      rootId: run.tree.rootId,
      ...(dispatcher ? { dispatcher } : {}),
      ...(run.parentToolCallId !== undefined ? { parentToolCallId: run.parentToolCallId } : {}),
    });
    const traceparent = formatTraceparent(span.spanContext());
    const tool = lastTool;
    if (!options.ids || !tool) return { traceparent };
    // What re-creating the pair after a restart needs, kept with the run's trace context (its row's).
    const recorded = {
      toolSpanId: tool.spanContext().spanId,
      parentSpanId: run.detached ? undefined : parentSpanIdOf(tool),
      detached: run.detached,
    };
    return { traceparent, tracestate: formatRecordedSpans(recorded) };
  };

  const source = options.source ?? getDefaultRunEventHub();
  let unsubscribe: (() => void) | undefined = source.subscribe(onEvent);

  return {
    runSpanContext: (runId) => runs.get(runId)?.spanContext(),
    traceContext,
    get openSpans() {
      return runs.size + turns.size;
    },
    dispose() {
      if (!unsubscribe) return;
      unsubscribe();
      unsubscribe = undefined;
      const at = options.now?.();
      for (const spans of [runs, turns, tools]) {
        for (const span of spans.values()) endUnfinished(span, at);
        spans.clear();
      }
    },
  };
}

/** What re-creating a run's spans needs besides its `invoke_agent` span's context: its `execute_tool` span's ids. */
type RecordedSpans = { toolSpanId: string; parentSpanId: string | undefined; detached: boolean };

/** The key of our entry in a run's W3C `tracestate` (a vendor entry: other vendors' entries are left alone). */
const TRACESTATE_KEY = "agent-tools";
const SPAN_ID = /^[0-9a-f]{16}$/;
const NO_SPAN = "0".repeat(16);

/** `agent-tools=<execute_tool span id>-<its parent's span id, or zeros>-<a|d>` (awaited or detached). */
function formatRecordedSpans(recorded: RecordedSpans): string {
  return `${TRACESTATE_KEY}=${recorded.toolSpanId}-${recorded.parentSpanId ?? NO_SPAN}-${recorded.detached ? "d" : "a"}`;
}

/** Our entry of a `tracestate`, or `undefined` when it has none (or a malformed one). Never throws. */
function readRecordedSpans(tracestate: string | undefined): RecordedSpans | undefined {
  for (const member of (tracestate ?? "").split(",")) {
    const [key, value] = member.trim().split("=");
    if (key !== TRACESTATE_KEY || value === undefined) continue;
    const [toolSpanId, parentSpanId, kind] = value.split("-");
    if (!toolSpanId || !SPAN_ID.test(toolSpanId) || toolSpanId === NO_SPAN) return undefined;
    if (!parentSpanId || !SPAN_ID.test(parentSpanId) || (kind !== "a" && kind !== "d")) return undefined;
    return { toolSpanId, parentSpanId: parentSpanId === NO_SPAN ? undefined : parentSpanId, detached: kind === "d" };
  }
  return undefined;
}

/** The span id of a span's parent, as the OpenTelemetry SDK's spans expose it (2.x `parentSpanContext`, 1.x `parentSpanId`). */
function parentSpanIdOf(span: Span): string | undefined {
  const { parentSpanContext, parentSpanId } = span as { parentSpanContext?: SpanContext; parentSpanId?: string };
  const id = parentSpanContext?.spanId ?? parentSpanId;
  return typeof id === "string" && SPAN_ID.test(id) && id !== NO_SPAN ? id : undefined;
}

/** End a run's span at its terminal: its status and the run's attributes. */
function endRun(span: Span, event: CoreRunEventOf<"agent_tool:run:finish">, extra: Attributes): void {
  span.setAttributes({
    "agent_tool.status": event.status,
    "agent_tool.previous_status": event.previousStatus,
    "agent_tool.duration_ms": event.durationMs,
    ...(event.reason !== undefined ? { "agent_tool.reason": event.reason } : {}),
    ...(event.cause !== undefined ? { "agent_tool.cause": event.cause } : {}),
    ...(event.status !== "completed" ? { "error.type": event.reason ?? event.status } : {}),
    ...extra,
  });
  span.setStatus(
    event.status === "completed"
      ? { code: STATUS_OK }
      : { code: STATUS_ERROR, message: event.reason !== undefined ? `${event.status}: ${event.reason}` : event.status },
  );
  span.end(event.at);
}

function dispatchAttributes(event: CoreRunEventOf<"agent_tool:run:dispatch">): Attributes {
  return {
    "agent_tool.detached": event.detached,
    ...(event.parentToolCallId !== undefined ? { "agent_tool.parent_tool_call_id": event.parentToolCallId } : {}),
  };
}

/**
 * The GenAI usage attributes of a run's token usage (`inputTokens`, `outputTokens`: its subtree's, counted through
 * `context.model`), when its finish carries one.
 */
function usageAttributes(usage: unknown): Attributes {
  if (typeof usage !== "object" || usage === null) return {};
  const { inputTokens, outputTokens } = usage as Record<string, unknown>;
  return {
    ...(typeof inputTokens === "number" ? { "gen_ai.usage.input_tokens": inputTokens } : {}),
    ...(typeof outputTokens === "number" ? { "gen_ai.usage.output_tokens": outputTokens } : {}),
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

/** The key `@opentelemetry/api` keeps a context's span under (`createContextKey` is `Symbol.for` of its description). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/**
 * A context holding a span that is only its span context (as the API's `trace.setSpanContext(ROOT_CONTEXT, …)`
 * makes): a parent for spans started in it, with no `@opentelemetry/api` at run time.
 */
function contextWithSpan(spanContext: SpanContext): Context {
  const span = {
    spanContext: () => spanContext,
    setAttribute: () => span,
    setAttributes: () => span,
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: () => span,
    end: () => {},
    isRecording: () => false,
    recordException: () => {},
  };
  return new ValueContext(new Map<symbol, unknown>([[SPAN_KEY, span]]));
}

/** An immutable OpenTelemetry `Context` over a map. */
class ValueContext implements Context {
  readonly #values: Map<symbol, unknown>;

  constructor(values: Map<symbol, unknown>) {
    this.#values = values;
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ValueContext(new Map(this.#values).set(key, value));
  }

  deleteValue(key: symbol): Context {
    const values = new Map(this.#values);
    values.delete(key);
    return new ValueContext(values);
  }
}
