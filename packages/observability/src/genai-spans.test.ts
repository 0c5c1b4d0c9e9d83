// GenAI agent spans with the OpenTelemetry SDK (issue 26): a parent → child → grandchild tree is one trace, each run an
// `execute_tool` span whose child is the run's `invoke_agent`, the child's own dispatch nested under its run, and the AI
// SDK's spans of the grandchild's model call (given `context.trace`) under the grandchild's `invoke_agent`. A re-attach
// after a restart (this process's spans gone) continues the same trace from the context the run's row kept.
import { type AgentToolChildDefinition, AgentToolRegistry } from "@agent-tools/core-runs";
import { createRunEventHub } from "@agent-tools/core-runs/internal";
import { type AgentToolTraceContext, positionOf } from "@agent-tools/core-runs/protocol";
import {
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  scriptedModel,
  textStep,
} from "@agent-tools/core-runs/testing";
import { OpenTelemetry } from "@ai-sdk/otel";
import { context, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { streamText, toUIMessageStream, type UIMessageChunk } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenTelemetryExporter } from "./otel-exporter.js";
import { createRunSpanIds } from "./run-span-ids.js";
import { parseTraceparent } from "./traceparent.js";

/** A run's recorded start (epoch ms). */
const T0 = 1_767_225_600_000;

let spans: InMemorySpanExporter;
let provider: BasicTracerProvider;

beforeEach(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  spans = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
});

afterEach(async () => {
  await provider.shutdown();
  context.disable();
});

const byName = (name: string) => spans.getFinishedSpans().filter((span) => span.name === name);
const one = (name: string): ReadableSpan => {
  const found = byName(name);
  if (found.length !== 1) throw new Error(`${found.length} spans named ${name}: ${names()}`);
  return found[0] as ReadableSpan;
};
const names = () => spans.getFinishedSpans().map((span) => span.name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("GenAI agent spans", () => {
  it("a parent → child → grandchild tree is one trace with the right parentage, the AI SDK's spans included", async () => {
    const tracer = provider.getTracer("agent-tools");
    const clock = new ManualClock(1_767_225_600_000);
    const hub = createRunEventHub();
    const exporter = createOpenTelemetryExporter({
      tracer,
      source: hub,
      parentContext: () => trace.setSpan(ROOT_CONTEXT, root),
    });
    const root: Span = tracer.startSpan("chat turn");

    // The grandchild: a model call through the AI SDK with its OpenTelemetry integration, in the run's trace context.
    const leaf: AgentToolChildDefinition = {
      agentType: "Leaf",
      turn({ messages, trace: runTrace, abortSignal }) {
        const parent = runTrace ? parseTraceparent(runTrace.traceparent) : undefined;
        const runContext = parent ? trace.setSpanContext(context.active(), parent) : context.active();
        return context.with(runContext, () => {
          const result = streamText({
            model: scriptedModel([textStep(() => "leaf answer")]),
            messages: [{ role: "user", content: JSON.stringify(messages.length) }],
            abortSignal,
            telemetry: { integrations: [new OpenTelemetry({ tracer })] },
          });
          return toUIMessageStream({ stream: result.stream });
        });
      },
    };
    const leafTransport = new InProcessChildTransport({ children: [leaf], clock, sink: hub });
    // The child dispatches the grandchild from its turn: the dispatcher is the child's own run (its stored trace).
    const middle: AgentToolChildDefinition = {
      agentType: "Middle",
      turn({ runId, tree, trace: runTrace }) {
        const registry = new AgentToolRegistry({
          position: () => positionOf(tree ?? { rootId: runId, ancestors: [] }, { agentType: "Middle", runId }),
          store: new InMemoryRunStore(),
          transport: leafTransport,
          clock,
          sink: hub,
          traceContext: (run) => exporter.traceContext({ ...run, dispatcher: runTrace }),
        });
        return (async function* () {
          yield { type: "start" } as UIMessageChunk;
          const result = await registry.runAgentTool(leaf, { input: "go", runId: "leaf-1", parentToolCallId: "m-1" });
          yield { type: "text-start", id: "t" } as UIMessageChunk;
          yield { type: "text-delta", id: "t", delta: result.ok ? result.summary : "failed" } as UIMessageChunk;
          yield { type: "text-end", id: "t" } as UIMessageChunk;
          yield { type: "finish" } as UIMessageChunk;
        })();
      },
    };
    const parent = new AgentToolRegistry({
      store: new InMemoryRunStore(),
      transport: new InProcessChildTransport({ children: [middle], clock, sink: hub }),
      clock,
      sink: hub,
      traceContext: exporter.traceContext,
    });
    const result = await parent.runAgentTool(middle, { input: "go", runId: "middle-1", parentToolCallId: "call-1" });
    expect(result).toMatchObject({ ok: true, summary: "leaf answer" });
    root.end();
    exporter.dispose();

    const all = spans.getFinishedSpans();
    expect(new Set(all.map((span) => span.spanContext().traceId)).size).toBe(1);
    const chatTurn = one("chat turn");
    const middleTool = one("execute_tool Middle");
    const middleAgent = one("invoke_agent Middle");
    const leafTool = one("execute_tool Leaf");
    const leafAgent = one("invoke_agent Leaf");
    expect(parentOf(middleTool)).toBe(idOf(chatTurn));
    expect(parentOf(middleAgent)).toBe(idOf(middleTool));
    expect(parentOf(one("agent_tool.child.turn Middle"))).toBe(idOf(middleAgent));
    expect(parentOf(leafTool)).toBe(idOf(middleAgent));
    expect(parentOf(leafAgent)).toBe(idOf(leafTool));
    expect(parentOf(one("agent_tool.child.turn Leaf"))).toBe(idOf(leafAgent));
    // The AI SDK's own spans of the grandchild's model call: their root is a child of the grandchild's run.
    const aiSpans = all.filter(
      (span) =>
        ![chatTurn, middleTool, middleAgent, leafTool, leafAgent].includes(span) &&
        !span.name.startsWith("agent_tool."),
    );
    expect(aiSpans.length).toBeGreaterThan(0);
    expect(aiSpans.some((span) => parentOf(span) === idOf(leafAgent))).toBe(true);

    expect(middleTool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "Middle",
      "gen_ai.tool.call.id": "call-1",
    });
    expect(middleAgent.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "middle-1",
      "gen_ai.agent.name": "Middle",
      "gen_ai.conversation.id": "middle-1",
    });
    expect(leafAgent.attributes).toMatchObject({ "gen_ai.agent.id": "leaf-1", "gen_ai.conversation.id": "middle-1" });
    for (const span of [middleTool, middleAgent, leafTool, leafAgent]) expect(span.status.code).toBe(SpanStatusCode.OK);
  });

  it("a re-attach after a restart continues the trace the run's row kept; a detached run's agent is linked", () => {
    const tracer = provider.getTracer("agent-tools");
    const hub = createRunEventHub();
    const exporter = createOpenTelemetryExporter({ tracer, source: hub });
    const stored: AgentToolTraceContext = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    hub.emit({
      type: "agent_tool:run:reattach",
      runId: "r1",
      agentType: "Echo",
      afterSequence: 3,
      trace: stored,
      at: 5,
    });
    hub.emit({
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Echo",
      status: "completed",
      previousStatus: "running",
      durationMs: 10,
      at: 15,
    });
    const continued = one("invoke_agent Echo");
    expect(continued.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(parentOf(continued)).toBe("b7ad6b7169203331");
    expect(continued.attributes).toMatchObject({ "agent_tool.reattached": true, "gen_ai.agent.id": "r1" });

    const detached = exporter.traceContext({
      runId: "bg",
      agentType: "Importer",
      detached: true,
      tree: { rootId: "bg", ancestors: [] },
      dispatcher: stored,
    });
    const tool = one("execute_tool Importer");
    expect(tool.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    const agent = exporter.runSpanContext("bg");
    expect(detached?.traceparent).toContain(agent?.spanId);
    expect(agent?.traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
    exporter.dispose();
    const agentSpan = byName("invoke_agent Importer")[0];
    expect(agentSpan?.links.map((link) => link.context.spanId)).toEqual([idOf(tool)]);
  });

  it("with the provider's ids, a run whose process died gets back its execute_tool / invoke_agent pair, whole", () => {
    // The first process: a run dispatched under a chat turn's span; its pair opens, and the process dies.
    const ids = createRunSpanIds();
    const first = new BasicTracerProvider({ idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(spans)] });
    const turnSpan = first.getTracer("t").startSpan("chat turn");
    const hub = createRunEventHub();
    const dying = createOpenTelemetryExporter({
      tracer: first.getTracer("agent-tools"),
      source: hub,
      ids,
      now: () => T0,
      parentContext: () => trace.setSpan(ROOT_CONTEXT, turnSpan),
    });
    const stored = dying.traceContext({
      runId: "r1",
      agentType: "Echo",
      detached: false,
      tree: { rootId: "turn:1", ancestors: [] },
      dispatcher: null,
    });
    expect(stored?.tracestate).toMatch(/^agent-tools=[0-9a-f]{16}-[0-9a-f]{16}-a$/);
    expect(spans.getFinishedSpans()).toEqual([]);

    // The next process: a new provider and exporter (with their own ids) re-attach to the run and see it finish.
    const nextIds = createRunSpanIds();
    const next = new BasicTracerProvider({ idGenerator: nextIds, spanProcessors: [new SimpleSpanProcessor(spans)] });
    const nextHub = createRunEventHub();
    createOpenTelemetryExporter({ tracer: next.getTracer("agent-tools"), source: nextHub, ids: nextIds });
    const reattach = { runId: "r1", agentType: "Echo", afterSequence: 3, startedAt: T0 };
    nextHub.emit({
      type: "agent_tool:run:reattach",
      ...reattach,
      ...(stored ? { trace: stored } : {}),
      at: T0 + 4_000,
    });
    nextHub.emit({
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Echo",
      status: "completed",
      previousStatus: "running",
      durationMs: 9_000,
      at: T0 + 9_000,
    });
    const agent = one("invoke_agent Echo");
    const tool = one("execute_tool Echo");
    const run = parseTraceparent(stored?.traceparent ?? "");
    // The ids the run's row kept (what its child's spans nest under), the chat turn's span above them.
    expect(agent.spanContext()).toMatchObject({ traceId: turnSpan.spanContext().traceId, spanId: run?.spanId });
    expect(parentOf(agent)).toBe(idOf(tool));
    expect(parentOf(tool)).toBe(turnSpan.spanContext().spanId);
    // From the run's recorded start to its end.
    for (const span of [agent, tool]) {
      // (Epoch ms, as a registry's clock gives them: the SDK takes numbers below its process's uptime for its own.)
      expect([span.startTime, span.endTime]).toEqual([
        [1_767_225_600, 0],
        [1_767_225_609, 0],
      ]);
      expect(span.status.code).toBe(SpanStatusCode.OK);
    }
    expect(agent.attributes).toMatchObject({ "agent_tool.recreated": true, "gen_ai.agent.id": "r1" });
    expect(agent.events.map((event) => event.name)).toEqual(["agent_tool:run:reattach"]);
  });
});
