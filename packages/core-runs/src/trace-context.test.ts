// The W3C trace context of a run (issue 26): asked once of the registry's `traceContext` when the run is created,
// kept on the parent's row, sent to the child with `start`, kept on the child's row and given to its turn
// (`context.trace`), and carried by the run's events, so an exporter continues the same trace after a restart.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import type { AgentToolChildDefinition } from "./child-definition.js";
import type { AgentToolTraceContext } from "./protocol/index.js";
import { readAgentToolTraceContext } from "./protocol/index.js";
import type { AgentToolTraceRequest } from "./registry-options.js";
import { createRunEventHub } from "./run-event-hub.js";
import type { RunEvent } from "./run-events.js";
import { inMemoryRegistry } from "./testing/in-memory-registry.js";
import { ManualClock } from "./testing/manual-clock.js";

const TRACE: AgentToolTraceContext = {
  traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  tracestate: "vendor=1",
};

function tracedChild(seen: Array<AgentToolTraceContext | null>): AgentToolChildDefinition {
  return {
    agentType: "Traced",
    turn(context) {
      seen.push(context.trace);
      const chunks: UIMessageChunk[] = [{ type: "start" }, { type: "finish" }];
      return new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
    },
  };
}

describe("a run's trace context", () => {
  it("is asked once at dispatch, kept on the row, sent to the child's turn, and carried by the dispatch event", async () => {
    const clock = new ManualClock(1_000);
    const seen: Array<AgentToolTraceContext | null> = [];
    const asked: AgentToolTraceRequest[] = [];
    const child = tracedChild(seen);
    const sink = createRunEventHub();
    const events: RunEvent[] = [];
    sink.subscribe((event) => events.push(event));
    const { registry, store } = inMemoryRegistry([child], clock, {
      sink,
      traceContext: (run) => {
        asked.push(run);
        return TRACE;
      },
    });
    const result = await registry.runAgentTool(child, {
      input: "hi",
      runId: "r1",
      parentToolCallId: "call-1",
      onFrame: () => {},
    });
    expect(result).toMatchObject({ ok: true });
    expect(asked).toEqual([
      {
        runId: "r1",
        agentType: "Traced",
        parentToolCallId: "call-1",
        detached: false,
        tree: { rootId: "r1", ancestors: [] },
        dispatcher: null,
      },
    ]);
    expect((await store.getRun("r1"))?.trace).toEqual(TRACE);
    expect(seen).toEqual([TRACE]);
    expect(events.find((event) => event.type === "agent_tool:run:dispatch")).toMatchObject({
      trace: TRACE,
    });
    // Dispatching the run again finds it: nothing is asked again.
    await registry.runAgentTool(child, { input: "hi", runId: "r1" });
    expect(asked).toHaveLength(1);
  });

  it("is none without a `traceContext`, and a turn then gets `null`", async () => {
    const clock = new ManualClock(1_000);
    const seen: Array<AgentToolTraceContext | null> = [];
    const child = tracedChild(seen);
    const { registry, store } = inMemoryRegistry([child], clock);
    await registry.runAgentTool(child, { input: "hi", runId: "r1" });
    expect((await store.getRun("r1"))?.trace).toBeUndefined();
    expect(seen).toEqual([null]);
  });

  it("reads only well-formed W3C trace contexts", () => {
    expect(readAgentToolTraceContext(TRACE)).toEqual(TRACE);
    expect(readAgentToolTraceContext({ traceparent: TRACE.traceparent, tracestate: "" })).toEqual({
      traceparent: TRACE.traceparent,
    });
    expect(readAgentToolTraceContext({ traceparent: "00-xyz" })).toBeNull();
    expect(readAgentToolTraceContext("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBeNull();
  });
});
