import { AgentToolRegistry, getDefaultRunEventHub } from "@agent-tools/core-runs";
import { createRunEventHub, type RunEventHub } from "@agent-tools/core-runs/internal";
import {
  echoChild,
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  inMemoryRegistry,
  ManualClock,
  ScriptedChild,
  textChunks,
} from "@agent-tools/core-runs/testing";
import { DiagLogLevel, diag, ROOT_CONTEXT, type SpanContext, SpanStatusCode, trace } from "@opentelemetry/api";
import { hrTimeToMilliseconds } from "@opentelemetry/core";
import { BasicTracerProvider, type Span as SdkSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunEvent } from "./channel.js";
import { createOpenTelemetryExporter, type OpenTelemetryExporter } from "./otel-exporter.js";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

/** A run's recorded start (epoch ms: the SDK reads a smaller number as time since the process started). */
const T0 = 1_767_225_600_000;

/** A span the OpenTelemetry SDK recorded, as these tests read it: times in epoch ms, its parent by span id. */
class RecordedSpan {
  constructor(readonly span: SdkSpan) {}
  get name() {
    return this.span.name;
  }
  get attributes() {
    return this.span.attributes;
  }
  get links() {
    return this.span.links;
  }
  get status() {
    return this.span.status;
  }
  get ended() {
    return this.span.ended;
  }
  get startTime() {
    return hrTimeToMilliseconds(this.span.startTime);
  }
  /** `undefined` while the span is open. */
  get endTime() {
    return this.span.ended ? hrTimeToMilliseconds(this.span.endTime) : undefined;
  }
  get parentSpanId() {
    return this.span.parentSpanContext?.spanId;
  }
  get events() {
    return this.span.events.map(({ name, attributes, time }) => ({
      name,
      attributes,
      time: hrTimeToMilliseconds(time),
    }));
  }
  spanContext(): SpanContext {
    return this.span.spanContext();
  }
}

/**
 * The SDK's own tracer, recording every span it starts (open or ended) and every warning it logs: the SDK warns of
 * any operation on an ended span, a second `end` included, and `afterEach` expects none.
 */
function recordingTracer() {
  const spans: RecordedSpan[] = [];
  const provider = new BasicTracerProvider({
    spanProcessors: [
      {
        onStart: (span) => void spans.push(new RecordedSpan(span)),
        onEnd: () => undefined,
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  const tracer = provider.getTracer("otel-exporter.test");
  return {
    tracer,
    spans,
    named: (prefix: string) => spans.filter((span) => span.name.startsWith(prefix)),
  };
}

const warnings: string[] = [];
beforeEach(() => {
  warnings.length = 0;
  const record = (message: string) => void warnings.push(message);
  diag.setLogger(
    { error: record, warn: record, info: () => {}, debug: () => {}, verbose: () => {} },
    DiagLogLevel.WARN,
  );
});
afterEach(() => {
  diag.disable();
  expect(warnings).toEqual([]);
});

const exporters: OpenTelemetryExporter[] = [];
afterEach(() => {
  for (const exporter of exporters.splice(0)) exporter.dispose();
  expect(getDefaultRunEventHub().hasListeners).toBe(false);
});

function exporterFor(options: Parameters<typeof createOpenTelemetryExporter>[0]): OpenTelemetryExporter {
  const exporter = createOpenTelemetryExporter(options);
  exporters.push(exporter);
  return exporter;
}

function setup(options: { maxConcurrentAgentTools?: number } = {}) {
  const clock = new ManualClock(T0);
  const researcher = new ScriptedChild("Researcher");
  const children = [researcher.definition, echoChild("Echo")];
  const { registry, transport } = inMemoryRegistry(children, clock, { sink: getDefaultRunEventHub(), ...options });
  return { clock, researcher, transport, registry };
}

describe("createOpenTelemetryExporter: real runs", () => {
  it("a run is one span nested under the parent's span; the child turn is a span linked to it", async () => {
    const tracer = recordingTracer();
    const toolCall = tracer.tracer.startSpan("ai.toolCall Researcher");
    const exporter = exporterFor({
      tracer: tracer.tracer,
      parentContext: (event) =>
        event.type === "agent_tool:run:dispatch" ? trace.setSpan(ROOT_CONTEXT, toolCall) : undefined,
    });
    const { clock, researcher, registry } = setup();
    const result = registry.runAgentTool("Researcher", {
      input: "secret input",
      runId: "agent-tool:call-1",
      parentToolCallId: "call-1",
    });
    const run = researcher.run("agent-tool:call-1");
    await run.context;
    run.emit(...textChunks(["secret answer"]));
    await clock.advanceBy(60);
    // An extension package's event (e.g. progress) lands on the run's span as an event.
    getDefaultRunEventHub().emit({
      type: "agent_tool:progress",
      runId: "agent-tool:call-1",
      fraction: 0.5,
      phase: "search",
      data: { secret: "objects are never exported" },
      at: clock.now(),
    });
    await clock.advanceBy(60);
    run.complete();
    expect(await result).toMatchObject({ ok: true });

    const [runSpan, ...otherRuns] = tracer.named("invoke_agent");
    const [turnSpan, ...otherTurns] = tracer.named("agent_tool.child.turn");
    expect(otherRuns).toEqual([]);
    expect(otherTurns).toEqual([]);
    if (!runSpan || !turnSpan) throw new Error("expected a run span and a turn span");

    expect(runSpan.name).toBe("invoke_agent Researcher");
    // The GenAI pair: the tool call's `execute_tool` span under the parent's span, the child's `invoke_agent` in it.
    const [toolSpan, ...otherTools] = tracer.named("execute_tool");
    expect(otherTools).toEqual([]);
    expect(toolSpan?.parentSpanId).toBe(toolCall.spanContext().spanId);
    expect(runSpan.parentSpanId).toBe(toolSpan?.spanContext().spanId);
    expect(toolSpan?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Researcher",
      "gen_ai.tool.call.id": "call-1",
      "agent_tool.status": "completed",
    });
    expect(toolSpan?.status).toEqual({ code: SpanStatusCode.OK });
    expect(runSpan.spanContext().traceId).toBe(toolCall.spanContext().traceId);
    expect([runSpan.startTime, runSpan.endTime, runSpan.ended]).toEqual([T0, T0 + 120, true]);
    expect(runSpan.attributes).toStrictEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "agent-tool:call-1",
      "gen_ai.agent.name": "Researcher",
      "agent_tool.run_id": "agent-tool:call-1",
      "agent_tool.agent_type": "Researcher",
      "agent_tool.detached": false,
      "agent_tool.parent_tool_call_id": "call-1",
      "agent_tool.status": "completed",
      "agent_tool.previous_status": "running",
      "agent_tool.duration_ms": 120,
      "agent_tool.cause": "child",
      // The scripted child reports no tokens: its usage is counted all the same.
      "gen_ai.usage.input_tokens": 0,
      "gen_ai.usage.output_tokens": 0,
    });
    expect(runSpan.status).toEqual({ code: SpanStatusCode.OK });
    expect(runSpan.events).toStrictEqual([
      { name: "agent_tool:run:start", attributes: {}, time: T0 },
      {
        name: "agent_tool:progress",
        attributes: {
          "agent_tool.run_id": "agent-tool:call-1",
          "agent_tool.fraction": 0.5,
          "agent_tool.phase": "search",
        },
        time: T0 + 60,
      },
    ]);

    expect(turnSpan.name).toBe("agent_tool.child.turn Researcher");
    expect(turnSpan.links).toEqual([{ context: runSpan.spanContext() }]);
    expect([turnSpan.startTime, turnSpan.endTime, turnSpan.ended]).toEqual([T0, T0 + 120, true]);
    expect(turnSpan.attributes).toStrictEqual({
      "agent_tool.run_id": "agent-tool:call-1",
      "agent_tool.agent_type": "Researcher",
      "agent_tool.resumed": false,
      "agent_tool.status": "completed",
      "agent_tool.entries": 7,
    });
    expect(turnSpan.status).toEqual({ code: SpanStatusCode.OK });
    expect(exporter.openSpans).toBe(0);
    expect(JSON.stringify(tracer.spans.map((span) => [span.attributes, span.events]))).not.toContain("secret");
  });

  it("a cancelled run ends ERROR with its typed status", async () => {
    const tracer = recordingTracer();
    exporterFor({ tracer: tracer.tracer });
    const { clock, researcher, registry } = setup();
    const result = registry.runAgentTool("Researcher", { input: "x", runId: "r1" });
    await researcher.run("r1").context;
    await flushMicrotasks();
    await clock.advanceBy(50);
    await registry.cancelAgentTool("r1");
    await result;
    const [runSpan] = tracer.named("invoke_agent");
    const [turnSpan] = tracer.named("agent_tool.child.turn");
    expect(runSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: "aborted" });
    expect(runSpan?.attributes).toMatchObject({ "agent_tool.status": "aborted", "agent_tool.duration_ms": 50 });
    expect(runSpan?.endTime).toBe(T0 + 50);
    expect(turnSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: "aborted" });
    expect(turnSpan?.attributes).toMatchObject({ "agent_tool.status": "aborted", "agent_tool.entries": 0 });
  });

  it("a dispatch refused by the cap: its span carries the rejection and ends ERROR; a refused input is a span of no length", async () => {
    const tracer = recordingTracer();
    exporterFor({ tracer: tracer.tracer });
    const { researcher, registry } = setup({ maxConcurrentAgentTools: 1 });
    const first = registry.runAgentTool("Researcher", { input: "x", runId: "r1" });
    await researcher.run("r1").context;
    await registry.runAgentTool("Echo", { input: "x", runId: "r2" });
    await registry.runAgentTool("Echo", { input: 1n, runId: "r3" });
    researcher.run("r1").complete();
    await first;

    const spans = tracer.named("invoke_agent");
    expect(spans.map((span) => span.attributes["agent_tool.run_id"])).toEqual(["r1", "r2"]);
    const [, capped] = spans;
    // Refused before any run existed: no agent was invoked, only the tool call shows.
    const refused = tracer.named("execute_tool").find((span) => span.attributes["agent_tool.run_id"] === "r3");
    expect(capped?.attributes).toMatchObject({
      "agent_tool.status": "error",
      "agent_tool.rejection": "max-concurrency",
      "agent_tool.previous_status": "starting",
    });
    expect(capped?.events).toEqual([
      { name: "agent_tool:run:rejected", attributes: { "agent_tool.rejection": "max-concurrency" }, time: T0 },
    ]);
    expect(capped?.status).toEqual({ code: SpanStatusCode.ERROR, message: "error" });
    expect(refused?.attributes).toStrictEqual({
      "agent_tool.run_id": "r3",
      "agent_tool.agent_type": "Echo",
      "agent_tool.status": "error",
      "agent_tool.rejection": "invalid-input",
    });
    expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR, message: "rejected: invalid-input" });
    expect([refused?.startTime, refused?.endTime, refused?.ended]).toEqual([T0, T0, true]);
    expect(tracer.spans.every((span) => span.ended)).toBe(true);
  });

  it("a run cleared while live: its span ends ERROR, aborted (core emits its finish before the clear)", async () => {
    const tracer = recordingTracer();
    const exporter = exporterFor({ tracer: tracer.tracer });
    const { researcher, registry } = setup();
    const result = registry.runAgentTool("Researcher", { input: "x", runId: "r1" });
    await researcher.run("r1").context;
    await flushMicrotasks();
    await registry.clearAgentToolRuns();
    await result;
    const [runSpan] = tracer.named("invoke_agent");
    expect(runSpan?.attributes).toMatchObject({ "agent_tool.status": "aborted" });
    expect(runSpan?.status?.code).toBe(SpanStatusCode.ERROR);
    expect(runSpan?.ended).toBe(true);
    expect(exporter.openSpans).toBe(0);
  });

  it("hook errors are span events", async () => {
    const tracer = recordingTracer();
    exporterFor({ tracer: tracer.tracer });
    const clock = new ManualClock(T0);
    const { registry } = inMemoryRegistry([echoChild("Echo")], clock, {
      sink: getDefaultRunEventHub(),
      hooks: {
        onAgentToolStart() {
          throw new TypeError("bug");
        },
      },
    });
    await registry.runAgentTool("Echo", { input: "x", runId: "r1" });
    const [runSpan] = tracer.named("invoke_agent");
    expect(runSpan?.events[0]).toEqual({
      name: "agent_tool:hook:error",
      attributes: { "agent_tool.hook": "onAgentToolStart", "agent_tool.error_name": "TypeError" },
      time: T0,
    });
  });

  it("a child in another isolate links its turn to the run's span through a traceparent the host carries", async () => {
    // Two hubs stand for two isolates: the parent's Durable Object and the child's.
    const parentHub = createRunEventHub();
    const childHub = createRunEventHub();
    const tracer = recordingTracer();
    const parentExporter = exporterFor({ tracer: tracer.tracer, source: parentHub });
    // What the child's host received with the start call, by runId.
    const carried = new Map<string, string>();
    exporterFor({
      tracer: tracer.tracer,
      source: childHub,
      linkContext: (event) => {
        const traceparent = carried.get(event.runId);
        return traceparent === undefined ? undefined : parseTraceparent(traceparent);
      },
    });
    // The host's transport puts the run's trace context on the start call (here: a map); the registry starts a run
    // with `startTail` where the transport offers it.
    class TracingTransport extends InProcessChildTransport {
      override startTail(...args: Parameters<InProcessChildTransport["startTail"]>) {
        const [ref] = args;
        const spanContext = parentExporter.runSpanContext(ref.runId);
        if (spanContext) carried.set(ref.runId, formatTraceparent(spanContext));
        return super.startTail(...args);
      }
    }
    const clock = new ManualClock(T0);
    const transport = new TracingTransport({ children: [echoChild("Echo")], clock, sink: childHub });
    const registry = new AgentToolRegistry({ store: new InMemoryRunStore(), transport, clock, sink: parentHub });
    expect(await registry.runAgentTool("Echo", { input: "x", runId: "r1" })).toMatchObject({ ok: true });

    const [runSpan] = tracer.named("invoke_agent");
    const [turnSpan] = tracer.named("agent_tool.child.turn");
    if (!runSpan || !turnSpan) throw new Error("expected a run span and a turn span");
    expect(carried.get("r1")).toBe(`00-${runSpan.spanContext().traceId}-${runSpan.spanContext().spanId}-01`);
    expect(turnSpan.links).toEqual([
      {
        context: {
          traceId: runSpan.spanContext().traceId,
          spanId: runSpan.spanContext().spanId,
          traceFlags: 1,
          isRemote: true,
        },
      },
    ]);
    expect(parentExporter.runSpanContext("r1")).toBeUndefined();
  });
});

describe("createOpenTelemetryExporter: events from elsewhere, and bounds", () => {
  const dispatch = (runId: string, at: number): RunEvent => ({
    type: "agent_tool:run:dispatch",
    runId,
    agentType: "Echo",
    detached: true,
    at,
  });

  function withHub(options: { maxOpenSpans?: number; now?: () => number } = {}) {
    const hub: RunEventHub = createRunEventHub();
    const tracer = recordingTracer();
    const exporter = exporterFor({ tracer: tracer.tracer, source: hub, ...options });
    return { hub, tracer, exporter };
  }

  it("an interrupted run ends ERROR with its typed reason", () => {
    const { hub, tracer } = withHub();
    hub.emit(dispatch("r1", T0));
    hub.emit({
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Echo",
      status: "interrupted",
      reason: "no-progress",
      previousStatus: "running",
      durationMs: 900,
      at: T0 + 900,
    });
    const [span] = tracer.named("invoke_agent");
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "interrupted: no-progress" });
    expect(span?.attributes).toMatchObject({ "agent_tool.status": "interrupted", "agent_tool.reason": "no-progress" });
  });

  it("a run's usage (its subtree's tokens) is on its invoke_agent span, not on execute_tool", () => {
    const { hub, tracer } = withHub();
    hub.emit(dispatch("r1", T0));
    hub.emit({
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Echo",
      status: "completed",
      previousStatus: "running",
      durationMs: 400,
      usage: { inputTokens: 120, outputTokens: 30, runs: 1 },
      at: T0 + 400,
    });
    const [span] = tracer.named("invoke_agent");
    expect(span?.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 30 });
    const [tool] = tracer.named("execute_tool");
    expect(tool?.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
  });

  it("a finish whose dispatch this isolate never saw gets a span rebuilt from its duration", () => {
    const { hub, tracer } = withHub();
    hub.emit({
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Echo",
      status: "completed",
      previousStatus: "running",
      durationMs: 400,
      at: T0 + 400,
    });
    const [span] = tracer.named("invoke_agent");
    expect(span?.name).toBe("invoke_agent Echo");
    expect([span?.startTime, span?.endTime]).toEqual([T0, T0 + 400]);
    expect(span?.attributes).toMatchObject({ "agent_tool.rebuilt": true, "agent_tool.status": "completed" });
  });

  it("a re-attach with no open span opens one; a re-attach of an open run is an event", () => {
    const { hub, tracer } = withHub();
    hub.emit({ type: "agent_tool:run:reattach", runId: "r1", agentType: "Echo", afterSequence: 4, at: T0 });
    hub.emit({ type: "agent_tool:run:reattach", runId: "r1", agentType: "Echo", afterSequence: 6, at: T0 + 1 });
    const spans = tracer.named("invoke_agent");
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes).toMatchObject({
      "agent_tool.reattached": true,
      "agent_tool.after_sequence": 4,
    });
    expect(spans[0]?.events).toEqual([
      { name: "agent_tool:run:reattach", attributes: { "agent_tool.after_sequence": 6 }, time: T0 + 1 },
    ]);
  });

  it("replays and events of unknown runs open no span", () => {
    const { hub, tracer } = withHub();
    hub.emit({ type: "agent_tool:replay", runs: 1, frames: 3, cleared: 0, withCursors: false, at: T0 });
    hub.emit({ type: "agent_tool:progress", runId: "nobody", fraction: 1, at: T0 });
    hub.emit({
      type: "agent_tool:child:turn:finish",
      runId: "nobody",
      agentType: "Echo",
      status: "completed",
      entries: 1,
      at: T0,
    });
    expect(tracer.spans).toEqual([]);
  });

  it("keeps at most `maxOpenSpans` open: the oldest is ended as unfinished", () => {
    const { hub, tracer, exporter } = withHub({ maxOpenSpans: 2 });
    hub.emit(dispatch("r1", T0));
    hub.emit(dispatch("r2", T0 + 1));
    hub.emit(dispatch("r3", T0 + 2));
    expect(exporter.openSpans).toBe(2);
    const [first, second, third] = tracer.named("invoke_agent");
    expect(first?.attributes["agent_tool.unfinished"]).toBe(true);
    expect([first?.endTime, first?.ended]).toEqual([T0 + 2, true]);
    expect(second?.ended).toBe(false);
    expect(third?.ended).toBe(false);
    expect(exporter.runSpanContext("r1")).toBeUndefined();
    expect(exporter.runSpanContext("r3")).toEqual(third?.spanContext());
  });

  it("an awaited run past `maxOpenSpans` ends its `execute_tool` with its `invoke_agent`", () => {
    const { hub, tracer } = withHub({ maxOpenSpans: 1 });
    hub.emit({ ...dispatch("r1", T0), detached: false });
    hub.emit({ ...dispatch("r2", T0 + 1), detached: false });
    const [firstTool, secondTool] = tracer.named("execute_tool");
    expect(firstTool?.attributes["agent_tool.unfinished"]).toBe(true);
    expect([firstTool?.endTime, firstTool?.ended]).toEqual([T0 + 1, true]);
    expect(secondTool?.ended).toBe(false);
  });

  it("dispose ends every open span as unfinished, stops listening, and is idempotent", () => {
    const { hub, tracer, exporter } = withHub({ now: () => T0 + 99 });
    hub.emit(dispatch("r1", T0));
    hub.emit({ type: "agent_tool:child:turn:start", runId: "r1", agentType: "Echo", resumed: false, at: T0 });
    expect(exporter.openSpans).toBe(2);
    exporter.dispose();
    exporter.dispose();
    expect(hub.hasListeners).toBe(false);
    expect(exporter.openSpans).toBe(0);
    // (A detached run's `execute_tool` ended at its dispatch: the call returned at once.)
    for (const span of [...tracer.named("invoke_agent"), ...tracer.named("agent_tool.child.turn")]) {
      expect(span.attributes["agent_tool.unfinished"]).toBe(true);
      expect([span.endTime, span.ended]).toEqual([T0 + 99, true]);
    }
    const opened = tracer.spans.length;
    hub.emit(dispatch("r2", T0 + 100));
    expect(tracer.spans).toHaveLength(opened);
  });
});
