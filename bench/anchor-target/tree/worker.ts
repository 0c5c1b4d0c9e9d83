/**
 * `pnpm bench`'s Stop cascade (issue 25): a parent (`TreeParent`, an `AgentToolParent` as users write one) whose chat
 * turn fans out to a tree of children that run agent tools themselves (`Branch`, `AgentToolChild` with `children()`),
 * down to `Leaf` children streaming slowly. The turn is stopped once every leaf streams; the figures are how long after
 * the Stop each descendant's end is recorded (by its own parent's registry), and how many model calls started after
 * the Stop (every model here is scripted and counts its calls).
 *
 * Shape (default): the turn calls 2 Branches, each calls 4 Branches, each calls 5 Leaves: 2 + 8 + 40 = 50 descendants
 * across 3 levels. Built by `scripts/bench.mjs` with the `@agent-tools/source` condition (not a harness target).
 */
import { AgentToolChild, AgentToolParent, type ChatTurnContext, type ChildNamespace } from "@agent-tools/cloudflare";
import { childObjectName } from "@agent-tools/cloudflare/internal";
import type { AgentToolRegistry, AgentToolRunInfo, AgentToolTurnContext } from "@agent-tools/core-runs";
import { convertToModelMessages, isStepCount, streamText, type ToolSet, toUIMessageStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

type TreeEnv = {
  TreeParent: DurableObjectNamespace<TreeParent>;
  Branch: DurableObjectNamespace<Branch>;
  Leaf: DurableObjectNamespace<Leaf>;
};

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4["doStream"]>>["stream"] extends ReadableStream<infer Part> ? Part : never;

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};

/** Every model call of the process (one isolate under Miniflare): when it started, and whose it was. */
const modelCalls: Array<{ at: number; by: string }> = [];
/** Leaves whose model is streaming now. */
const streamingLeaves = new Set<string>();

/**
 * A scripted model: each call counts itself, then streams `parts(call index)` with `paceMs` between parts (stopping
 * when the call is aborted).
 */
function countedModel(by: string, steps: Array<(callIndex: number) => StreamPart[]>, paceMs = 0): MockLanguageModelV4 {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => {
      modelCalls.push({ at: Date.now(), by });
      const step = steps[index] ?? steps.at(-1);
      index += 1;
      const parts = step ? step(index) : [];
      let next = 0;
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          if (next >= parts.length || abortSignal?.aborted) {
            controller.close();
            return;
          }
          if (paceMs > 0 && next > 1) await new Promise((resolve) => setTimeout(resolve, paceMs));
          controller.enqueue(parts[next] as StreamPart);
          next += 1;
        },
      });
      return { stream };
    },
  });
}

const toolCalls = (toolName: string, count: number, input: object): StreamPart[] => [
  { type: "stream-start", warnings: [] },
  ...Array.from(
    { length: count },
    (_, index): StreamPart => ({
      type: "tool-call",
      toolCallId: `call-${index + 1}`,
      toolName,
      input: JSON.stringify(input),
    }),
  ),
  { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: USAGE },
];

const text = (words: number): StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  ...Array.from({ length: words }, (_, index): StreamPart => ({ type: "text-delta", id: "t", delta: `word${index} ` })),
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE },
];

type BranchInput = { level: number; branches: number; leaves: number };

/** A leaf: its model streams 200 words, 50 ms apart (10 s: it is streaming when the turn is stopped). */
export class Leaf extends AgentToolChild<TreeEnv> {
  static readonly agentType = "Leaf";

  async turn({ messages, abortSignal }: AgentToolTurnContext) {
    // Run ids repeat across branches (each names its runs by its own tool calls): the object's id is the leaf's own.
    const leaf = this.ctx.id.toString();
    streamingLeaves.add(leaf);
    abortSignal.addEventListener("abort", () => streamingLeaves.delete(leaf), { once: true });
    const result = streamText({
      model: countedModel("Leaf", [() => text(200)], 50),
      messages: await convertToModelMessages(messages),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream });
  }
}

/** A branch: its model calls `branches` more Branches (one level down) or, at the last level, `leaves` Leaves. */
export class Branch extends AgentToolChild<TreeEnv> {
  static readonly agentType = "Branch";

  protected override children(): Record<string, ChildNamespace> {
    return { Branch: this.env.Branch, Leaf: this.env.Leaf };
  }

  getTools(): ToolSet {
    const inputSchema = z.object({ level: z.number(), branches: z.number(), leaves: z.number() });
    return {
      branch: this.agentTool(Branch, { description: "Branch out", inputSchema }),
      leaf: this.agentTool(Leaf, { description: "Do a leaf's work", inputSchema }),
    };
  }

  async turn({ input, messages, abortSignal }: AgentToolTurnContext) {
    const { level, branches, leaves } = input as BranchInput;
    const tools = this.getTools();
    const isLast = level >= 2;
    const calls = isLast
      ? toolCalls("leaf", leaves, { level: level + 1, branches, leaves })
      : toolCalls("branch", branches, { level: level + 1, branches, leaves });
    const result = streamText({
      model: countedModel("Branch", [() => calls, () => text(3)]),
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(3),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream, tools });
  }

  /** Every run below this branch, once ended (each as its own parent's registry recorded it). */
  async benchSubtree(): Promise<AgentToolRunInfo[]> {
    const registry = this.agentToolRegistry;
    if (!registry) return [];
    return subtree(registry, (runId) => branchOf(this.env, this.ctx.id.toString(), runId));
  }
}

/** The parent: its turn calls `branch` twice (or as the bench says), then answers. */
export class TreeParent extends AgentToolParent<TreeEnv> {
  #shape: BranchInput = { level: 1, branches: 4, leaves: 5 };
  #topBranches = 2;
  /** The turn in flight (its id, from the turn's context). */
  #turnId: string | null = null;

  protected children(): Record<string, ChildNamespace> {
    return { Branch: this.env.Branch };
  }

  protected override getTools(): ToolSet {
    return {
      branch: this.agentTool(Branch, {
        description: "Branch out",
        inputSchema: z.object({ level: z.number(), branches: z.number(), leaves: z.number() }),
      }),
    };
  }

  protected override async onChatMessage({ messages, tools, abortSignal, turnId }: ChatTurnContext) {
    this.#turnId = turnId;
    const result = streamText({
      model: countedModel("TreeParent", [() => toolCalls("branch", this.#topBranches, this.#shape), () => text(3)]),
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(3),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream, tools });
  }

  /**
   * One Stop cascade: a turn fans out to `top` × `branches` × `leaves`; once every leaf streams, the turn is stopped.
   * Resolves each descendant's end after the Stop (ms, as recorded by its parent) and the model calls that started
   * after the Stop.
   */
  async benchStopCascade(top: number, branches: number, leaves: number): Promise<Record<string, unknown>> {
    this.#topBranches = top;
    this.#shape = { level: 1, branches, leaves };
    const expectedLeaves = top * branches * leaves;
    streamingLeaves.clear();
    const turn = this.sendChatMessage(`fan out ${crypto.randomUUID()}`).catch(() => null);
    const deadline = Date.now() + 30_000;
    while (streamingLeaves.size < expectedLeaves && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const leavesStreaming = streamingLeaves.size;
    const stoppedAt = Date.now();
    const callsBefore = modelCalls.length;
    const stopped = this.stopChatTurn(this.#turnId ?? "");
    await turn;
    // Every level's runs, with the end their own parent recorded.
    const descendants = await subtree(this.registry, (runId) => branchOf(this.env, this.ctx.id.toString(), runId), {
      startedAfter: stoppedAt - 60_000,
    });
    const ends = descendants.map((run) => (run.completedAt ?? Number.POSITIVE_INFINITY) - stoppedAt);
    return {
      stopped,
      leavesStreaming,
      descendants: descendants.length,
      statuses: countBy(descendants.map((run) => run.status)),
      endAfterStopMs: ends,
      modelCallsAfterStop: modelCalls.slice(callsBefore).filter((call) => call.at > stoppedAt).length,
    };
  }
}

/** The Branch object of run `runId` dispatched by the object `parentId`. */
function branchOf(env: TreeEnv, parentId: string, runId: string): Branch {
  const name = childObjectName(parentId, { agentType: "Branch", runId });
  return env.Branch.get(env.Branch.idFromName(name)) as unknown as Branch;
}

/** The runs of a registry once ended, and (for each Branch) every run below it. */
async function subtree(
  registry: AgentToolRegistry,
  branch: (runId: string) => Branch,
  options: { startedAfter?: number } = {},
): Promise<AgentToolRunInfo[]> {
  const runs = (await registry.listAgentToolRuns()).filter((run) => run.startedAt >= (options.startedAfter ?? 0));
  const found: AgentToolRunInfo[] = [];
  for (const run of runs) {
    await registry.waitForAgentToolRun(run.runId);
    found.push((await registry.getAgentToolRun(run.runId)) ?? run);
    if (run.agentType === "Branch") found.push(...(await branch(run.runId).benchSubtree()));
  }
  return found;
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default {
  async fetch(request: Request, env: TreeEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/bench/stop-cascade") return new Response("not found", { status: 404 });
    const number = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
    const parent = env.TreeParent.get(env.TreeParent.idFromName(url.searchParams.get("parent") ?? "tree"));
    try {
      return Response.json(await parent.benchStopCascade(number("top", 2), number("branches", 4), number("leaves", 5)));
    } catch (error) {
      return new Response(error instanceof Error ? `${error.message}\n${error.stack}` : String(error), { status: 500 });
    }
  },
} satisfies ExportedHandler<TreeEnv>;
