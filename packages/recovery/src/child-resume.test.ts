import {
  type AgentToolChildDefinition,
  type AgentToolEventFrame,
  AgentToolRegistry,
  createRunEventHub,
  type RunEvent,
  readStepResetChunk,
} from "@agent-tools/core-runs";
import {
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  makeRunRecord,
  unitUsage as usage,
} from "@agent-tools/core-runs/testing";
import { convertToModelMessages, isStepCount, jsonSchema, streamText, tool, toUIMessageStream } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { recoverAgentToolRuns } from "./recover-agent-tool-runs.js";

/**
 * A researcher child with a real `streamText` loop: step 1 calls its `lookup` tool, step 2 writes the answer.
 * While `stall` is set, step 2 stops in the middle of its text, as a turn cut off by an eviction would.
 */
function researcher() {
  const state = { stall: true, lookups: 0, modelCalls: 0, turns: [] as boolean[] };
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      state.modelCalls += 1;
      if (prompt.at(-1)?.role !== "tool") {
        return {
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: JSON.stringify({ q: "owls" }) },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
          ]),
        };
      }
      if (state.stall) {
        return {
          stream: new ReadableStream({
            start(controller) {
              controller.enqueue({ type: "stream-start", warnings: [] });
              controller.enqueue({ type: "text-start", id: "t" });
              controller.enqueue({ type: "text-delta", id: "t", delta: "Owls are" });
            },
          }),
        };
      }
      return {
        stream: convertArrayToReadableStream([
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Owls are nocturnal." },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
        ]),
      };
    },
  });
  const tools = {
    lookup: tool({
      inputSchema: jsonSchema<{ q: string }>({
        type: "object",
        properties: { q: { type: "string" } },
        required: ["q"],
      }),
      execute: async ({ q }) => {
        state.lookups += 1;
        return { fact: `${q} hunt at night` };
      },
    }),
  };
  const definition: AgentToolChildDefinition = {
    agentType: "Researcher",
    turn: async ({ messages, abortSignal, resumed }) => {
      state.turns.push(resumed);
      return toUIMessageStream({
        stream: streamText({
          model,
          messages: await convertToModelMessages(messages),
          tools,
          stopWhen: isStepCount(4),
          abortSignal,
        }).stream,
        tools,
      });
    },
  };
  return { state, definition };
}

/**
 * Yield to the event loop until `condition` holds (the AI SDK's stream plumbing is not all microtasks), moving the
 * manual clock too: the child writes each burst of chunks when its event loop turns, which on this clock is when time
 * moves.
 */
async function until(clock: ManualClock, condition: () => Promise<boolean>): Promise<void> {
  for (let turn = 0; turn < 500; turn += 1) {
    if (await condition()) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    await clock.advanceBy(0);
  }
  throw new Error("condition not met");
}

describe("the child's side of recovery", () => {
  it("a child evicted mid-turn resumes on the parent's re-attach and completes, its finished steps not redone", async () => {
    const clock = new ManualClock(5_000, { microtaskTurns: 200 });
    const { state, definition } = researcher();
    const childStore = new InMemoryRunStore();
    const children = new InProcessChildTransport({ children: [definition], clock, createStore: () => childStore });
    const ref = { agentType: "Researcher", runId: "owls" };

    // Before the restart: the child ran its tool step and was cut off in the middle of its text step.
    await children.start(ref, "Tell me about owls");
    await until(clock, async () =>
      (await childStore.readLog("owls")).some((entry) => entry.body.type === "text-delta"),
    );
    expect(state.lookups).toBe(1);
    children.evict(ref);
    state.stall = false;

    // The parent's row as it was left: running, acknowledged, nothing of the log recorded yet.
    const store = new InMemoryRunStore();
    await store.insertRun(
      makeRunRecord({ runId: "owls", agentType: "Researcher", revision: 2, startAcknowledged: true, startedAt: 5_000 }),
    );
    const frames: AgentToolEventFrame[] = [];
    const finished: string[] = [];
    const rowEvents: RunEvent[] = [];
    const sink = createRunEventHub();
    sink.subscribe((event) => {
      if (event.type === "agent_tool:recovery:row") rowEvents.push(event);
    });
    const registry = new AgentToolRegistry({
      store,
      transport: children,
      clock,
      sink,
      broadcast: (frame) => frames.push(frame),
      hooks: { onAgentToolFinish: (run, result) => void finished.push(`${run.runId}:${result.status}`) },
    });

    const report = await recoverAgentToolRuns(registry).done;

    expect(report.rows).toEqual([
      { runId: "owls", agentType: "Researcher", outcome: "reattached", status: "completed", durationMs: 0 },
    ]);
    // Two turns started (the first cut off, the second resumed), one logical run; the tool ran once.
    expect(state.turns).toEqual([false, true]);
    expect(state.lookups).toBe(1);
    expect(state.modelCalls).toBe(3); // step 1 once, the cut-off step twice
    expect(await children.inspect(ref)).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
    expect((await childStore.getRun("owls"))?.recoveryAttempts).toBe(1);
    expect(await store.getRun("owls")).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
    expect(finished).toEqual(["owls:completed"]);
    expect(children.calls.filter((call) => call.method === "start")).toHaveLength(1);

    // Clients got the log once, in order: the tool result once, then a step reset in place of the cut step (its
    // partial text left out: this parent re-attached from before it), then the resumed step.
    const chunks = frames.filter((frame) => frame.event.kind === "chunk");
    const sequences = chunks.map((frame) => frame.sequence ?? 0);
    const bodies = chunks.map((frame) => (frame.event.kind === "chunk" ? frame.event.body : null));
    const resetAt = bodies.findIndex((body) => readStepResetChunk(body) !== null);
    const reset = readStepResetChunk(bodies[resetAt]);
    expect(reset).not.toBeNull();
    // Gap-free: the sequences the reset voids are the ones missing before it.
    const voided = Array.from(
      { length: (sequences[resetAt] ?? 0) - (reset?.fromSequence ?? 0) },
      (_, index) => (reset?.fromSequence ?? 0) + index,
    );
    expect([...sequences, ...voided].sort((left, right) => left - right)).toEqual(
      Array.from({ length: sequences.length + voided.length }, (_, index) => index + 1),
    );
    expect(bodies.filter((body) => body?.type === "tool-output-available")).toHaveLength(1);
    expect(
      bodies.filter((body) => body?.type === "text-delta").map((body) => body && "delta" in body && body.delta),
    ).toEqual(["Owls are nocturnal."]);
    expect(frames.at(-1)).toMatchObject({ event: { kind: "finished", summary: "Owls are nocturnal." } });
    expect(rowEvents).toEqual([expect.objectContaining({ runId: "owls", outcome: "reattached" })]);
  });
});
