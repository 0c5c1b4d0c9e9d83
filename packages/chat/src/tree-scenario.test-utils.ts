// A scripted tree for kill tests, in Node on in-memory stores and the manual clock: a conversation turn (ChatEngine)
// whose model calls `research` (awaited agent tool, parallel calls), `edit` (an awaited agent tool whose Editor child
// runs a plain `tidy` tool and its Writer grandchild in parallel; the Writer's `saveFile` needs approval) and
// `background` (a detached agent tool: it returns at once, its run goes on after the turn). Every model is a function
// of its prompt, so a turn that goes on after a cut asks it what is left. `runScenario(script, stopAfter)` runs the
// tree until its `stopAfter`-th write lands (or to its end), then — when it was stopped — starts a fresh world on the
// same storage, which recovers, and runs it to its end.
import {
  type AgentToolChildDefinition,
  type AgentToolLogEntry,
  type AgentToolRegistry,
  type AgentToolUsage,
  agentTool,
  agentToolRunId,
  assembleMessage,
  bindConversationTurns,
  type ChildRef,
  delay,
  foldJournal,
  NOT_RUN_TEXT,
  omitVoidedEntries,
  readApprovalChunk,
  readOwnUsage,
} from "@agent-tools/core-runs";
import {
  flushMicrotasks,
  InMemoryTree,
  ManualClock,
  never,
  type ScriptedModelCall,
  type ScriptedModelPart,
  type TreeAgent,
  type TreeWorld,
  turnEventLoop,
  WorldStop,
} from "@agent-tools/core-runs/testing";
import {
  convertToModelMessages,
  isStepCount,
  type LanguageModel,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { ChatEngine } from "./chat-engine.js";
import { InMemoryChatStore } from "./testing/in-memory-chat-store.js";

/** What the tree does: how many parallel research calls, whether the Editor (and its Writer's approval) and the detached run take part. */
export type TreeScript = {
  research: number;
  edit: boolean;
  background: boolean;
  /** The Writer's save is approved (else denied). */
  approve: boolean;
};

export const FULL_SCRIPT: TreeScript = { research: 2, edit: true, background: true, approve: true };

/** One model call: who called (a node: the conversation turn or a run), the prompt, the tokens it made, in which world. */
export type ModelCall = { node: string; prompt: string; outputTokens: number; world: number };

/** Everything the scenario counts across its worlds (the tree's effects). */
export type Counts = {
  calls: ModelCall[];
  /** Executions of plain tools, by `${tool}:${toolCallId}`. */
  executions: Map<string, number>;
  /** What the plain tools did, idempotently by toolCallId (a file saved once per call). */
  effects: Map<string, string>;
  /** Fresh (not resumed) child turns, by node. */
  freshTurns: Map<string, number>;
  /** The own usage each node's budget held when its first turn of a later world started (what it went on from). */
  restored: Map<string, AgentToolUsage>;
};

/** What a finished scenario left: the conversation, every run's final state, and the counts. */
export type ScenarioOutcome = {
  writes: number;
  stopped: boolean;
  conversation: UIMessage[];
  /** Each child run (by its place in the tree): status, summary, its message, its approval chunks. */
  runs: Map<string, RunView>;
  /** The top-level runs as the root registry's copy of their logs shows them (approvals re-published there). */
  topLevel: Map<string, RunView>;
  counts: Counts;
  /** At the stop: each node's journal (raw entries) and the chat turn's chunks. */
  atStop: { logs: Map<string, AgentToolLogEntry[]>; turnChunks: UIMessageChunk[] } | null;
  /** The conversation turn's usage when it ended (its tree's), as announced. */
  turnUsage: AgentToolUsage | undefined;
};

export type RunView = {
  status: string;
  summary: string | undefined;
  usage: AgentToolUsage | undefined;
  message: unknown;
  /** The steps its message holds (each one model call). */
  steps: number;
  approvals: Array<{ approvalId: string; status: string }>;
  /** `tool-approval-response` chunks by approvalId (the asking run's own answers). */
  answers: Map<string, number>;
};

const usageOf = (outputTokens: number) => ({
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
});

type Emit = { text?: string; calls?: Array<{ toolName: string; input: unknown }> };

/**
 * A model whose step is a function of its prompt (what it has been told so far): each call is counted for `node`,
 * with its output tokens (a character count of what it emits); once the world stopped, it never answers.
 */
function promptModel(
  node: string,
  counts: Counts,
  world: TreeWorld,
  worldIndex: number,
  decide: (call: ScriptedModelCall) => Emit,
) {
  return new MockLanguageModelV4({
    doStream: (call) =>
      world.stop.effect(async () => {
        const emit = decide(call);
        const seen = toolCallsSeen(call);
        const parts: ScriptedModelPart[] = [{ type: "stream-start", warnings: [] }];
        let tokens = 0;
        if (emit.text !== undefined) {
          parts.push(
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: emit.text },
            { type: "text-end", id: "t" },
          );
          tokens += emit.text.length;
        }
        for (const { toolName, input } of emit.calls ?? []) {
          // A fresh id per call: the n-th call of a tool in the conversation so far.
          const index = (seen.get(toolName)?.length ?? 0) + 1;
          seen.set(toolName, [...(seen.get(toolName) ?? []), `${toolName}-${index}`]);
          const payload = JSON.stringify(input);
          parts.push({
            type: "tool-call",
            toolCallId: `${node.split("/").at(-1)}:${toolName}-${index}`,
            toolName,
            input: payload,
          });
          tokens += payload.length;
        }
        const finishReason = (emit.calls?.length ?? 0) > 0 ? "tool-calls" : "stop";
        parts.push({ type: "finish", finishReason: { unified: finishReason, raw: undefined }, usage: usageOf(tokens) });
        counts.calls.push({ node, prompt: JSON.stringify(call.prompt), outputTokens: tokens, world: worldIndex });
        return { stream: convertArrayToReadableStream(parts) };
      }),
  });
}

/** The tool calls in a prompt's assistant messages, by tool name (their ids, in order). */
function toolCallsSeen(call: ScriptedModelCall): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (const message of call.prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type === "tool-call") seen.set(part.toolName, [...(seen.get(part.toolName) ?? []), part.toolCallId]);
    }
  }
  return seen;
}

/** The results in a prompt, by tool name: each a result's text (a call told it did not run is left out). */
function resultsSeen(call: ScriptedModelCall): Map<string, string[]> {
  const names = new Map<string, string>();
  for (const message of call.prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call") names.set(part.toolCallId, part.toolName);
  }
  const results = new Map<string, string[]>();
  for (const message of call.prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const value = JSON.stringify(part.output);
      if (value.includes(NOT_RUN_TEXT.slice(0, 30))) continue;
      const name = names.get(part.toolCallId) ?? part.toolName;
      results.set(name, [...(results.get(name) ?? []), value]);
    }
  }
  return results;
}

/** A child's turn: `streamText` over its journaled tools, at most four steps. */
function childTurn(model: LanguageModel, tools: ToolSet) {
  return async (context: { messages: UIMessage[]; abortSignal: AbortSignal; model(model: never): LanguageModel }) =>
    toUIMessageStream({
      stream: streamText({
        model: context.model(model as never),
        messages: await convertToModelMessages(context.messages, { tools }),
        tools,
        stopWhen: isStepCount(4),
        abortSignal: context.abortSignal,
      }).stream,
      tools,
    });
}

/** The tree's child agents: Researcher (leaf), Editor (tidy + its Writer), Writer (saveFile, needs approval). */
function treeAgents(counts: Counts, worldIndex: () => number): TreeAgent[] {
  const fresh = (node: string, context: { resumed: boolean; budget: { own(): AgentToolUsage } }) => {
    if (!context.resumed) counts.freshTurns.set(node, (counts.freshTurns.get(node) ?? 0) + 1);
    if (worldIndex() > 1 && !counts.restored.has(node)) counts.restored.set(node, context.budget.own());
  };
  /** A child's turn on a prompt-driven model (`decide`, given the call and the run's input), counted for `ref`. */
  const scriptedTurn =
    (world: TreeWorld, ref: ChildRef, decide: (call: ScriptedModelCall, input: Record<string, string>) => Emit) =>
    (context: Parameters<AgentToolChildDefinition["turn"]>[0]) => {
      fresh(ref.runId, context);
      const input = context.input as Record<string, string>;
      const model = promptModel(ref.runId, counts, world, worldIndex(), (call) => decide(call, input));
      return childTurn(model, context.tools)(context as never);
    };

  /**
   * A plain tool's execution, counted: its effect (idempotent by toolCallId: recorded under `key`) happens at once, and
   * it takes a while before it answers (5 ms of the world's clock), so a stop may land while it runs.
   */
  const slowEffect = <TResult>(world: TreeWorld, key: string, effect: string, result: TResult) =>
    world.stop.effect(async () => {
      counts.executions.set(key, (counts.executions.get(key) ?? 0) + 1);
      counts.effects.set(key, effect);
      await delay(world.clock, 5);
      return result;
    });
  return [
    {
      agentType: "Researcher",
      define: ({ world, ref }) => ({
        turn: scriptedTurn(world, ref, (_call, input) => ({ text: `Found ${input["topic"]}.` })),
      }),
    },
    {
      agentType: "Writer",
      define: ({ world, ref }) => {
        const tools = () => ({
          saveFile: tool({
            inputSchema: z.object({ path: z.string(), content: z.string() }),
            needsApproval: true,
            execute: ({ path, content }, { toolCallId }) =>
              slowEffect(world, `saveFile:${toolCallId}`, `${path}=${content}`, { path, bytes: content.length }),
          }),
        });
        return {
          getTools: tools,
          turn: scriptedTurn(world, ref, (call, input) => {
            const saved = resultsSeen(call).get("saveFile");
            if (saved) return { text: `Saved: ${saved.join(", ")}` };
            const prompt = JSON.stringify(call.prompt);
            if (prompt.includes("execution-denied") || prompt.includes("not approved")) return { text: "Not saved." };
            return { calls: [{ toolName: "saveFile", input: { path: "notes.md", content: input["text"] ?? "" } }] };
          }),
        };
      },
    },
    {
      agentType: "Editor",
      children: ["Writer"],
      define: ({ world, ref, registry }) => {
        const tools = () => ({
          tidy: tool({
            inputSchema: z.object({ text: z.string() }),
            execute: ({ text }, { toolCallId }) => slowEffect(world, `tidy:${toolCallId}`, text.trim(), text.trim()),
          }),
          write: agentTool(registry as AgentToolRegistry, "Writer", {
            description: "Have the Writer save a text",
            inputSchema: z.object({ text: z.string() }),
          }),
        });
        return {
          getTools: tools,
          turn: scriptedTurn(world, ref, (call, input) => {
            const results = resultsSeen(call);
            const missing = ["tidy", "write"].filter((name) => !results.has(name));
            if (missing.length === 0) return { text: `Edited: ${results.get("write")?.join(", ")}` };
            const isFirst = !call.prompt.some((message) => message.role === "assistant");
            return {
              ...(isFirst ? { text: "Tidying." } : {}),
              calls: missing.map((toolName) => ({ toolName, input: { text: input["text"] ?? "" } })),
            };
          }),
        };
      },
    },
  ];
}

/** The conversation's tools: `research` and `edit` (awaited agent tools), `background` (a detached one). */
function conversationTools(registry: AgentToolRegistry): ToolSet {
  const background = registry.extension<true>({
    key: "tree-background",
    read: (value) => (value === true ? true : null),
  });
  return {
    research: agentTool(registry, "Researcher", {
      description: "Research a topic",
      inputSchema: z.object({ topic: z.string() }),
    }),
    edit: agentTool(registry, "Editor", {
      description: "Edit and save a text",
      inputSchema: z.object({ text: z.string() }),
    }),
    background: tool({
      description: "Research a topic in the background",
      inputSchema: z.object({ topic: z.string() }),
      // Detached: the run is admitted (durably) before the tool answers, then followed on its own.
      execute: async ({ topic }, { toolCallId }) => {
        const runId = agentToolRunId(toolCallId);
        const admitted = await background.admit("Researcher", { input: { topic }, runId, detached: true, state: true });
        if (admitted.ok) void background.follow(runId).done.catch(() => undefined);
        return { runId, started: admitted.ok };
      },
    }),
  };
}

/** The conversation's model: research (in parallel) and edit, then the background run, then its answer. */
function conversationDecide(script: TreeScript) {
  return (call: ScriptedModelCall): Emit => {
    const results = resultsSeen(call);
    const planned = [
      ...Array.from({ length: script.research }, (_, index) => ({
        toolName: "research",
        input: { topic: `topic ${index + 1}` },
      })),
      ...(script.edit ? [{ toolName: "edit", input: { text: "  buy milk  " } }] : []),
    ];
    const isFirst = !call.prompt.some((message) => message.role === "assistant");
    // Of each tool's planned calls, those beyond the results seen so far (a call told it did not run has none).
    const missing = planned.filter((call, index) => {
      const nth = planned.slice(0, index + 1).filter((other) => other.toolName === call.toolName).length;
      return nth > (results.get(call.toolName)?.length ?? 0);
    });
    if (missing.length > 0) return { ...(isFirst ? { text: "On it." } : {}), calls: missing };
    if (script.background && !results.has("background"))
      return { calls: [{ toolName: "background", input: { topic: "later" } }] };
    const all = [...results.entries()].flatMap(([name, values]) => values.map((value) => `${name}=${value}`));
    return { text: `Done: ${all.sort().join("; ")}` };
  };
}

/** The tree's state between worlds: its storage (the children's and the conversation's) and its clock's time. */
export class TreeScenario {
  readonly script: TreeScript;
  readonly counts: Counts = {
    calls: [],
    executions: new Map(),
    effects: new Map(),
    freshTurns: new Map(),
    restored: new Map(),
  };
  readonly tree: InMemoryTree;
  readonly chatStore = new InMemoryChatStore();
  #time = 1_000;
  #worldIndex = 0;
  #turnUsage: AgentToolUsage | undefined;

  constructor(script: TreeScript) {
    this.script = script;
    this.tree = new InMemoryTree(treeAgents(this.counts, () => this.#worldIndex));
  }

  /**
   * Run the tree in a new world: the first sends the user's message; a later one recovers (its registries re-attach
   * live runs, the conversation resumes its cut turn). Runs until the tree is at rest, or the world stops.
   */
  async runWorld(stop: WorldStop): Promise<void> {
    this.#worldIndex += 1;
    const worldIndex = this.#worldIndex;
    const clock = new ManualClock(this.#time);
    const world = this.tree.world(clock, stop);
    let engine: ChatEngine<unknown> | undefined;
    const binding = bindConversationTurns({
      current: () => {
        const turnId = engine?.activeTurnId;
        const budget = engine?.activeBudget;
        return turnId && budget ? { turnId, budget, isResumed: engine?.isActiveTurnResumed ?? false } : null;
      },
      registry: () => root,
      track: () => undefined,
    });
    const root = world.registry("root", binding.registryOptions());
    const tools = conversationTools(root);
    let ids = 0;
    engine = new ChatEngine<unknown>({
      store: stop.wrap(this.chatStore),
      clock,
      sink: world.sink,
      tools: () => tools,
      send: () => undefined,
      announce: (event) => {
        if (event.kind === "turn-ended" && !stop.isStopped) this.#turnUsage = event.usage;
      },
      generateId: () => `w${worldIndex}-${++ids}`,
      onStop: binding.onStop,
      onBudgetExhausted: binding.onBudgetExhausted,
      stream: async (context) => {
        if (worldIndex > 1 && !this.counts.restored.has("conversation")) {
          this.counts.restored.set("conversation", context.budget.own());
        }
        const model = promptModel("conversation", this.counts, world, worldIndex, conversationDecide(this.script));
        return toUIMessageStream({
          stream: streamText({
            model: context.model(model),
            messages: await convertToModelMessages(context.messages, { tools: context.tools }),
            tools: context.tools,
            stopWhen: isStepCount(6),
            abortSignal: context.abortSignal,
          }).stream,
          tools: context.tools,
        });
      },
    });
    if (worldIndex === 1) {
      void engine
        .sendMessage({ id: "user-1", role: "user", parts: [{ type: "text", text: "research and save" }] })
        .catch(() => undefined);
    } else {
      await world.recover("root");
      void engine.recover().catch(() => undefined);
    }
    const answered = new Set<string>();
    for (let round = 0; round < 4_000 && !stop.isStopped; round += 1) {
      if (await this.#atRest()) break;
      // The user answers each approval the top of the tree shows pending (once per world).
      for (const [runId, approvalId] of await this.#pendingAtTop()) {
        if (answered.has(approvalId)) continue;
        answered.add(approvalId);
        void root.answerApproval(
          runId,
          approvalId,
          this.script.approve ? { approved: true } : { approved: false, reason: "not approved" },
        );
      }
      await flushMicrotasks(20);
      // The AI SDK's stream ends only after a turn of the event loop (no time passes: the clock is manual).
      await turnEventLoop();
      await clock.advanceBy(1);
    }
    this.#time = clock.now();
  }

  /** Nothing left to do: no turn stored in flight, no live run at the root. */
  async #atRest(): Promise<boolean> {
    if ((await this.chatStore.turns()).length > 0) return false;
    const root = this.tree.stores.get("root");
    const live = (await root?.listRuns({ status: ["starting", "running"] })) ?? [];
    return live.length === 0 && (await this.chatStore.messages()).length >= 2;
  }

  /** The approvals pending on the top-level runs' logs (the root's copies): `[runId, approvalId]`. */
  async #pendingAtTop(): Promise<Array<[string, string]>> {
    const root = this.tree.stores.get("root");
    if (!root) return [];
    const pending: Array<[string, string]> = [];
    for (const run of await root.listRuns()) {
      const states = new Map<string, string>();
      for (const entry of omitVoidedEntries(await root.readLog(run.runId))) {
        const approval = readApprovalChunk(entry.body);
        if (
          approval &&
          states.get(approval.approvalId) !== "approved" &&
          states.get(approval.approvalId) !== "denied"
        ) {
          states.set(approval.approvalId, approval.status);
        }
      }
      for (const [approvalId, status] of states) if (status === "pending") pending.push([run.runId, approvalId]);
    }
    return pending;
  }

  /** What the storage holds now, raw (for what a stop left). */
  async snapshot(): Promise<{ logs: Map<string, AgentToolLogEntry[]>; turnChunks: UIMessageChunk[] }> {
    const logs = new Map<string, AgentToolLogEntry[]>();
    for (const [place, store] of this.tree.stores) {
      for (const run of await store.listRuns()) logs.set(`${place}#${run.runId}`, await store.readLog(run.runId));
    }
    const turnChunks = (
      await Promise.all((await this.chatStore.turns()).map((turn) => this.chatStore.turnChunks(turn.turnId)))
    ).flat();
    return { logs, turnChunks };
  }

  /** The tree at rest: the conversation, every run, and the counts. */
  async outcome(writes: number, stopped: boolean, atStop: ScenarioOutcome["atStop"]): Promise<ScenarioOutcome> {
    const runs = new Map<string, RunView>();
    const topLevel = new Map<string, RunView>();
    for (const [place, store] of this.tree.stores) {
      const isRegistry = place === "root" || place.endsWith(">");
      for (const run of await store.listRuns()) {
        const view = await runView(run, await store.readLog(run.runId));
        if (!isRegistry) runs.set(place, view);
        if (place === "root") topLevel.set(run.runId, view);
      }
    }
    return {
      writes,
      stopped,
      conversation: await this.chatStore.messages(),
      runs,
      topLevel,
      counts: this.counts,
      atStop,
      turnUsage: this.#turnUsage,
    };
  }
}

async function runView(
  run: { status: string; summary?: string; usage?: AgentToolUsage },
  log: readonly AgentToolLogEntry[],
): Promise<RunView> {
  const kept = omitVoidedEntries(log);
  const approvals = kept.flatMap((entry) => {
    const approval = readApprovalChunk(entry.body);
    return approval ? [{ approvalId: approval.approvalId, status: approval.status }] : [];
  });
  const answers = new Map<string, number>();
  for (const entry of kept) {
    const body = entry.body as { type: string; approvalId?: string };
    if (body.type === "tool-approval-response" && body.approvalId)
      answers.set(body.approvalId, (answers.get(body.approvalId) ?? 0) + 1);
  }
  const message = await assembleMessage(
    kept.map((entry) => entry.body).filter((body) => !body.type.startsWith("data-")),
    "m",
  );
  const steps = message?.parts.filter((part) => part.type === "step-start").length ?? 0;
  return {
    status: run.status,
    summary: run.summary,
    usage: run.usage,
    message: normalize(message),
    steps,
    approvals,
    answers,
  };
}

/** A message as compared across runs: no ids (tool call ids, approval ids, message ids), no step boundaries. */
export function normalize(message: UIMessage | null | undefined): unknown {
  if (!message) return null;
  return message.parts
    .filter((part) => part.type !== "step-start")
    .map((part) => {
      if (part.type === "text") return { text: part.text };
      const tool = part as { type: string; state?: string; input?: unknown; output?: unknown; errorText?: string };
      if (!tool.type.startsWith("tool-")) return { type: tool.type };
      return {
        tool: tool.type,
        state: tool.state,
        input: tool.input,
        output: scrub(tool.output),
        errorText: tool.errorText,
      };
    });
}

/** A value with its ids (approval ids, toolCallIds in run ids) left out. */
function scrub(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value ?? null)
      .replace(/agent-tool:[^"]*/g, "agent-tool:*")
      .replace(/approval[-:][^"]*/g, "approval:*"),
  );
}

/** Run the scenario once: stop after write `stopAfter` (none: never), then recover in a new world if it stopped. */
export async function runScenario(script: TreeScript, stopAfter: number | null): Promise<ScenarioOutcome> {
  const scenario = new TreeScenario(script);
  const stop = new WorldStop({ stopAfter });
  await scenario.runWorld(stop);
  const atStop = stop.isStopped ? await scenario.snapshot() : null;
  if (stop.isStopped) await scenario.runWorld(new WorldStop());
  return scenario.outcome(stop.writes, stop.isStopped, atStop);
}

export { type ChildRef, foldJournal, never, readOwnUsage };
