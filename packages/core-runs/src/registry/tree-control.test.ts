// A tree of runs (issue 25): every run knows its place (root, ancestors, narrowed budget) on both sides of the
// dispatch, and a cancel goes down the whole tree and ends it from its leaves up, each run aborted with the reason;
// a run dispatched to outlive what dispatched it (`onParentCancel: "keep"`) is left running.
import { isStepCount, streamText, toUIMessageStream, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "../agent-tool/agent-tool.js";
import type { AgentToolChildDefinition } from "../child/child-definition.js";
import type { Clock } from "../ports/clock.js";
import { type AgentToolTree, positionOf } from "../protocol/index.js";
import { inMemoryRegistry } from "../testing/in-memory-registry.js";
import type { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { ManualClock } from "../testing/manual-clock.js";
import { scriptedModel, textStep, toolCallsStep } from "../testing/scripted-model.js";
import type { AgentToolRegistry } from "./run-registry.js";

type Finished = { level: string; runId: string; status: string; error?: string };

/** A leaf that says hello, or (with `hold`) holds until its run is cancelled. */
function leaf(options: { hold: boolean; seen: AgentToolTree[] }): AgentToolChildDefinition {
  return {
    agentType: "Leaf",
    turn(context) {
      if (context.tree) options.seen.push(context.tree);
      const aborted = new Promise<void>((resolve) => context.abortSignal.addEventListener("abort", () => resolve()));
      async function* chunks(): AsyncGenerator<UIMessageChunk> {
        yield { type: "start" };
        yield { type: "text-start", id: "t" };
        yield { type: "text-delta", id: "t", delta: `leaf ${context.runId}` };
        if (options.hold) await aborted;
        yield { type: "text-end", id: "t" };
        yield { type: "finish" };
      }
      return chunks();
    },
  };
}

/**
 * A middle level: each run's turn dispatches `leaves` Leaf runs through its own registry (placed under the run in its
 * tree, by `position`), and its `onCancel` cancels what the run dispatched.
 */
function coordinator(options: {
  clock: Clock;
  leaves: number;
  hold: boolean;
  finished: Finished[];
  seenByLeaves: AgentToolTree[];
  seenByCoordinators: AgentToolTree[];
}) {
  const levels = new Map<string, { registry: AgentToolRegistry; store: InMemoryRunStore }>();
  const definition: AgentToolChildDefinition = {
    agentType: "Coordinator",
    turn(context) {
      if (context.tree) options.seenByCoordinators.push(context.tree);
      const tree = context.tree ?? { rootId: context.runId, ancestors: [] };
      const level = inMemoryRegistry([leaf({ hold: options.hold, seen: options.seenByLeaves })], options.clock, {
        position: () => positionOf(tree, { agentType: "Coordinator", runId: context.runId }),
        hooks: {
          onAgentToolFinish: (run, result) =>
            void options.finished.push({
              level: "middle",
              runId: run.runId,
              status: result.status,
              ...(result.error !== undefined ? { error: result.error } : {}),
            }),
        },
      });
      levels.set(context.runId, level);
      const calls = Array.from({ length: options.leaves }, (_, index) => [`leaf-${index + 1}`, { n: index }] as const);
      const tools = {
        work: agentTool(level.registry, "Leaf", {
          description: "Do some work",
          inputSchema: z.object({ n: z.number() }),
        }),
      };
      const result = streamText({
        model: scriptedModel([toolCallsStep("work", calls), textStep(() => "all done")]),
        prompt: "work",
        tools,
        stopWhen: isStepCount(3),
        abortSignal: context.abortSignal,
      });
      return toUIMessageStream({ stream: result.stream, tools });
    },
    async onCancel(runId, reason) {
      await levels.get(runId)?.registry.cancelDispatchedBy({ runId }, reason);
    },
  };
  return { definition, levels };
}

function setUp(options: { hold: boolean; leaves?: number }) {
  const clock = new ManualClock(1_000);
  const finished: Finished[] = [];
  const seenByLeaves: AgentToolTree[] = [];
  const seenByCoordinators: AgentToolTree[] = [];
  const middle = coordinator({
    clock,
    leaves: options.leaves ?? 2,
    hold: options.hold,
    finished,
    seenByLeaves,
    seenByCoordinators,
  });
  const top = inMemoryRegistry([middle.definition], clock, {
    position: () => ({ rootId: "turn:t1", path: [], budget: { maxTokens: 1_000, maxDepth: 4 } }),
    hooks: {
      onAgentToolFinish: (run, result) =>
        void finished.push({
          level: "top",
          runId: run.runId,
          status: result.status,
          ...(result.error !== undefined ? { error: result.error } : {}),
        }),
    },
  });
  return { clock, top, middle, finished, seenByLeaves, seenByCoordinators };
}

describe("a run's place in its tree", () => {
  it("travels with every dispatch: the root, the ancestors, a budget narrowed and never widened", async () => {
    const { top, middle, seenByLeaves, seenByCoordinators } = setUp({ hold: false });
    const result = await top.registry.runAgentTool("Coordinator", {
      input: {},
      runId: "c1",
      // The coordinator asks for more than its parent allows, and for a limit the parent does not set.
      budget: { maxTokens: 5_000, maxRuns: 10 },
    });
    expect(result).toMatchObject({ ok: true, summary: "all done" });
    // The coordinator's own run counts against maxRuns: 9 are left for the runs below it.
    const expectedTree: AgentToolTree = {
      rootId: "turn:t1",
      ancestors: [],
      budget: { maxTokens: 1_000, maxDepth: 4, maxRuns: 9 },
    };
    expect(seenByCoordinators).toEqual([expectedTree]);
    expect((await top.store.getRun("c1"))?.tree).toEqual(expectedTree);
    // The leaves sit under the coordinator's run, with the budget it lives within.
    const leafTree = {
      rootId: "turn:t1",
      ancestors: [{ agentType: "Coordinator", runId: "c1" }],
      budget: { ...expectedTree.budget, maxRuns: 8 },
    };
    expect(seenByLeaves).toEqual([leafTree, leafTree]);
    expect((await middle.levels.get("c1")?.store.getRun("agent-tool:leaf-1"))?.tree).toEqual(leafTree);
  });

  it("a run dispatched outside any tree is the top of its own", async () => {
    const clock = new ManualClock(1_000);
    const seen: AgentToolTree[] = [];
    const { registry, store } = inMemoryRegistry([leaf({ hold: false, seen })], clock);
    await registry.runAgentTool("Leaf", { input: {}, runId: "solo" });
    expect(seen).toEqual([{ rootId: "solo", ancestors: [] }]);
    expect((await store.getRun("solo"))?.tree).toEqual({ rootId: "solo", ancestors: [] });
  });
});

describe("cancelling a tree", () => {
  it("ends every run from the leaves up, each aborted with the reason", async () => {
    const { top, middle, finished } = setUp({ hold: true, leaves: 3 });
    const running = top.registry.runAgentTool("Coordinator", { input: {}, runId: "c1" });
    await expect
      .poll(
        async () => (await middle.levels.get("c1")?.registry.listAgentToolRuns({ status: ["running"] }))?.length ?? 0,
      )
      .toBe(3);
    expect(await top.registry.cancelAgentTool("c1", "Stopped by the user")).toBe(true);
    expect(await running).toMatchObject({ ok: false, status: "aborted", error: "Stopped by the user" });
    await top.registry.whenIdle();
    await middle.levels.get("c1")?.registry.whenIdle();

    const leaves = finished.filter((entry) => entry.level === "middle");
    expect(leaves).toHaveLength(3);
    for (const entry of leaves) expect(entry).toMatchObject({ status: "aborted", error: "Stopped by the user" });
    // The coordinator's end is recorded after every leaf's.
    expect(finished.at(-1)).toEqual({ level: "top", runId: "c1", status: "aborted", error: "Stopped by the user" });
  });

  it("cancelDispatchedBy cancels what a run or a root dispatched, keeping runs dispatched to outlive it", async () => {
    const clock = new ManualClock(1_000);
    const seen: AgentToolTree[] = [];
    const { registry } = inMemoryRegistry([leaf({ hold: true, seen })], clock, {
      position: () => ({ rootId: "turn:t1", path: [] }),
    });
    const awaited = registry.runAgentTool("Leaf", { input: {}, runId: "awaited" });
    const kept = registry.runAgentTool("Leaf", { input: {}, runId: "kept", onParentCancel: "keep" });
    const elsewhere = registry.runAgentTool("Leaf", {
      input: {},
      runId: "other-turn",
      tree: { rootId: "turn:t2", ancestors: [] },
    });
    await expect.poll(() => seen.length).toBe(3);

    expect(await registry.cancelDispatchedBy({ rootId: "turn:t1" }, "Stopped by the user")).toEqual(["awaited"]);
    expect(await awaited).toMatchObject({ ok: false, status: "aborted", error: "Stopped by the user" });
    expect((await registry.getAgentToolRun("kept"))?.status).toBe("running");
    expect((await registry.getAgentToolRun("other-turn"))?.status).toBe("running");
    await registry.cancelAgentTool("kept");
    await registry.cancelAgentTool("other-turn");
    await Promise.all([kept, elsewhere]);
  });
});
