/**
 * A test Worker on `@agent-tools/cloudflare`'s hosts, for the Node-side tests in `test/*.test.ts` (bundled and run by
 * `@agent-tools/workerd-harness`): a parent (`Parent`, binding `PARENT`) with one child type (`Echo`, binding `ECHO`),
 * routed by `routeAgentToolRequest` under `/agents/parent/<name>/…`.
 *
 * - `Echo` answers its input (a tool run: `{ text }`; a direct chat: the last user message) word by word, `ECHO_PACE_MS`
 *   apart, and says how many user messages its conversation holds. `ECHO_MAX_RECOVERY_ATTEMPTS` sets its
 *   `maxRecoveryAttempts`; with `ECHO_HOLD_AFTER=N` it stops after N words until its run is cancelled (a run that
 *   stays live whatever the load, for tests that cancel, stop or kill it), or until `POST /test/echo-release`
 *   (Worker level) lets every `Echo` of the process go on, the ones holding then and every later one (for tests
 *   that act while the run is live, then let it complete).
 * - `Parent` answers a chat message by calling its `echo` tool once (or `note`, a plain tool that writes the text with
 *   its call id, with `PARENT_TOOL=note`; `GET /test/notes` reads them), then saying what the tool said. It asks for
 *   `authorization: Bearer <PARENT_KEY>` (or `?key=`) when `PARENT_KEY` is set. With `PRELIMINARY=1` its tool streams
 *   the child's answer as preliminary results. With `PARENT_HOLD_TURN=1` (a kill
 *   test's fault point) its tool call ids are random, as a real model's are, and the host never gets a chunk of the
 *   turn: the model and its tools run on, the host holds; `GET /test/held` answers once a turn is held so.
 *   `GET /test/socket-closed` answers once a socket of the parent has closed and the parent has handled it (a chat
 *   socket's sends still waiting are dropped by then).
 * - Test routes (after `authorize`): `POST /test/start?runId=&text=` starts a run (of `Echo`, or of `&agent=Lookout`)
 *   without waiting; `GET /test/hooks`
 *   the finish hook calls counted in storage; `POST /test/direct?name=&text=` one direct chat message to `Echo`,
 *   answered as text; `POST /test/direct-abort?name=&text=` one aborted after its first word, answered with the text
 *   that came and the child's run status; `GET /test/direct-messages?name=` that conversation; `POST /test/send?text=` a chat message
 *   from code (`sendChatMessage`), answered as the stored answer; `POST /test/seed-turns` writes turn rows, their
 *   user messages and raw log rows into the chat tables (what a crash of an earlier version could leave).
 * - `WORKER_KEY` set: `routeAgentToolRequest`'s own `authorize` asks for it in an `x-worker-key` header, in the Worker.
 *   `GET /test/tables?name=` (Worker level) lists the tables in the storage of the `Parent` named so (RPC, creating
 *   nothing).
 * - `GET /test/config-errors` (Worker level): the `agent_tool:config:error` events emitted in this isolate.
 * - `POST /test/sub-chat-abandon?parent=&runId=&messageId=` (Worker level): a client that posts a message to the run's
 *   child through the parent and goes away (cancels its request) while the message waits for its turn; answers once
 *   the child dropped it.
 * - `GET /constructed` (Worker level): how many `Echo` objects were constructed in this process (a guessed drill-in
 *   must construct none), and how many `Parent` objects (one more after an eviction: a new instance).
 * - `Lookout` (binding `LOOKOUT`) gives its model two tools, `fast` and `slow`, which it calls in one step, then says what
 *   they answered; it hands them to the runner too (`getTools`). Each tool counts its runs in the child's storage
 *   (the drill-in JSON's `toolRuns`); with `LOOKOUT_HOLD_SLOW=1`, `slow` never answers.
 * - `Gauge` (binding `GAUGE`) has its model call one tool of its `getTools()`, `measure`, which reports progress with the
 *   child's own `this.reportProgress`, named after the run's input text: a milestone, then — once a second party has
 *   arrived at its gate (the input's `gate`, default the text) — ephemeral progress. `POST /test/gauge-gate?name=`
 *   (Worker level) arrives at a gate; `GET /test/gauge-pair` runs `a` and `b` on one object through one gate (their
 *   tools report at the same time) and answers both runs' inspections. With `GAUGE_LATE_TAIL=1` the tool reports 10%
 *   before its milestone, and the parent's tail attaches only after the milestone. `POST /test/start?…&trailing=1`:
 *   the tool reports 75% right after its 50% (held by the throttle window until the turn ends).
 * - `StaticsParent` (binding `STATICS`, routed under `/agents/statics/<name>/…`) is a `Parent` with the origin page's
 *   static options: `detachedMaxBudgetMs = 400`, `agentToolReattachNoProgressTimeoutMs = 0`. `POST /test/start` with
 *   `&detached=1` dispatches a detached run (answers the dispatch's result).
 * - `WorkflowParent` (binding `WORKFLOW`, under `/agents/workflow/<name>/…`) has no conversation, only workflow runs.
 * - `Parent` serves `echo`, `gauge` and `relay` as MCP tools at `/agents/parent/<name>/mcp` (MCP Tasks).
 * - `PARENT_PAGE_BURST`, `PARENT_PAGE_REFILL_MS` and `PARENT_MAX_PAGE_BYTES` set the parent's `eventSocketOptions()`.
 * - `PARENT_RETAIN_RUNS` sets the parent's `retainLogs` to `{ maxRuns: N, settleMs: 0 }`; `GET /test/compacted` lists
 *   the runs whose logs it compacted.
 * - `PARENT_AG_UI_MAX_STREAMS` sets the parent's `agUiOptions().maxStreams` (its open AG-UI streams at most).
 * - `PARENT_WAKE_MS` sets the parent's `agentToolWakeIntervalMs`. After each of its alarms, once its start-up is done,
 *   the parent tells the `Probe` object (binding `PROBE`) "answered" when its conversation ends with an answer; a test
 *   waits for that with `GET /probe/wait?event=answered` (Worker level, never touching the parent).
 */
import { DurableObject } from "cloudflare:workers";
import {
  AgentToolChild,
  AgentToolParent,
  type AgentToolParentRoute,
  type ChatTurnContext,
  type ChildNamespace,
  routeAgentToolRequest,
} from "@agent-tools/cloudflare";
import { CHAT_STORE_TABLES, childObjectName, DEFAULT_PARENT_WAKE_INTERVAL_MS } from "@agent-tools/cloudflare/internal";
import {
  type AgentToolLifecycleResult,
  type AgentToolRunInfo,
  type AgentToolTurnContext,
  getDefaultRunEventHub,
} from "@agent-tools/core-runs";
import { type AgentToolTraceRequest, DEFAULT_MAX_RECOVERY_ATTEMPTS } from "@agent-tools/core-runs/internal";
import {
  type ScriptedModelStep,
  scriptedModel,
  scriptedUsage,
  textStep,
  toolCallsStep,
  toolResultsSeen,
} from "@agent-tools/core-runs/testing";
import { OpenTelemetry } from "@ai-sdk/otel";
import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { z } from "zod";
import { Relay } from "./approval-agents.js";
import { enableSpanLog, exporter, inRunTrace, tracer } from "./otel-spans.js";
import { streamTurn } from "./stream-turn.js";

export { Relay, Writer } from "./approval-agents.js";
export { SpanLog } from "./otel-spans.js";

type Env = {
  PARENT: DurableObjectNamespace;
  STATICS: DurableObjectNamespace;
  WORKFLOW: DurableObjectNamespace;
  ECHO: DurableObjectNamespace;
  LOOKOUT: DurableObjectNamespace;
  GAUGE: DurableObjectNamespace;
  PROBE: DurableObjectNamespace;
  /** The `Echo`'s `maxRecoveryAttempts` (default: the package's). */
  ECHO_MAX_RECOVERY_ATTEMPTS?: string;
  /**
   * "1": the `Gauge`'s tool reports 10% before its milestone, and the tails of its runs (what its parent follows)
   * attach only once the milestone is reported — the parent's tail reaches a busy child late.
   */
  GAUGE_LATE_TAIL?: string;
  /** "1": the `Lookout`'s `slow` tool never answers (a restart test's fault point). */
  LOOKOUT_HOLD_SLOW?: string;
  PARENT_WAKE_MS?: string;
  /** The parent's `agUiOptions().maxStreams`. */
  PARENT_AG_UI_MAX_STREAMS?: string;
  AGENT_TOOLS_RUN_TOKEN_SECRET?: string;
  PARENT_KEY?: string;
  /** Set: the Worker's router refuses requests without an `x-worker-key: <WORKER_KEY>` header. */
  WORKER_KEY?: string;
  ECHO_PACE_MS?: string;
  /**
   * Set (a count of words): the `Echo` stops after that many words and waits until its run is cancelled, or until
   * `POST /test/echo-release`.
   */
  ECHO_HOLD_AFTER?: string;
  /** "1": the parent's `echo` tool streams the child's answer as preliminary results. */
  PRELIMINARY?: string;
  PARENT_HOLD_TURN?: string;
  /** The tool the parent's model calls: "echo" (an agent tool, the default) or "note" (a plain tool that writes). */
  PARENT_TOOL?: string;
  MIDDLE: DurableObjectNamespace;
  RELAY: DurableObjectNamespace;
  WRITER: DurableObjectNamespace;
  /** The parent's event socket options: page requests at once, then one per this many ms, and bytes a page. */
  PARENT_PAGE_BURST?: string;
  PARENT_PAGE_REFILL_MS?: string;
  PARENT_MAX_PAGE_BYTES?: string;
  /** The parent keeps full logs for this many finished runs (`retainLogs`); unset: all. */
  PARENT_RETAIN_RUNS?: string;
  /** The span log (`OTEL=1`). */
  SPANS: DurableObjectNamespace;
  /** "1": runs carry trace contexts (the parent and `Middle` ask the exporter), and finished spans are logged. */
  OTEL?: string;
};

const constructed = { echo: 0, parent: 0 };

/** The `agent_tool:config:error` events of this isolate (the Worker's and its objects'), for `GET /test/config-errors`. */
const configErrors: unknown[] = [];
getDefaultRunEventHub().subscribe((event) => {
  if (event.type === "agent_tool:config:error") configErrors.push(event);
});

/** The newest tool result in the prompt after its last user message (`undefined`: none yet). */
function resultSinceAsked(call: Parameters<ScriptedModelStep>[0]): unknown {
  const roles = call.prompt.map((message) => message.role);
  const since = { ...call, prompt: call.prompt.slice(roles.lastIndexOf("user") + 1) };
  return [...toolResultsSeen(since).values()].at(-1);
}

/** Resolved by `POST /test/echo-release`: an `Echo` holding (`ECHO_HOLD_AFTER`) goes on, and no later one holds. */
let releaseEchoes: () => void = () => undefined;
const echoesReleased = new Promise<void>((resolve) => {
  releaseEchoes = resolve;
});

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

export class Echo extends AgentToolChild<Env> {
  static readonly agentType = "Echo";
  protected override readonly maxRecoveryAttempts = Number(
    this.env.ECHO_MAX_RECOVERY_ATTEMPTS ?? DEFAULT_MAX_RECOVERY_ATTEMPTS,
  );

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    constructed.echo += 1;
  }

  formatAgentToolInput(input: unknown) {
    const text = (input as { text?: unknown } | null)?.text;
    return typeof text === "string" ? text : JSON.stringify(input);
  }

  turn({ messages, abortSignal }: AgentToolTurnContext) {
    const users = messages.filter((message) => message.role === "user");
    const words = `#${users.length} ${textOf(users.at(-1))}`.split(" ");
    const pace = Number(this.env.ECHO_PACE_MS ?? "0");
    const holdAfter = Number(this.env.ECHO_HOLD_AFTER ?? "0");
    const cancelled = new Promise<void>((resolve) => {
      if (abortSignal.aborted) resolve();
      else abortSignal.addEventListener("abort", () => resolve(), { once: true });
    });
    async function* chunks(): AsyncGenerator<UIMessageChunk> {
      yield { type: "start" };
      yield { type: "start-step" };
      yield { type: "text-start", id: "t" };
      for (const [index, word] of words.entries()) {
        if (pace > 0) await new Promise((resolve) => setTimeout(resolve, pace));
        // A run that stays live whatever the machine's load, until a test cancels it or releases the Echoes.
        if (holdAfter > 0 && index === holdAfter) await Promise.race([cancelled, echoesReleased]);
        if (abortSignal.aborted) return;
        yield { type: "text-delta", id: "t", delta: index === 0 ? word : ` ${word}` };
      }
      yield { type: "text-end", id: "t" };
      yield { type: "finish-step" };
      yield { type: "finish" };
    }
    return chunks();
  }
}

const NOTES_TABLE = "CREATE TABLE IF NOT EXISTS test_notes (tool_call_id TEXT NOT NULL, text TEXT NOT NULL)";
const TOOL_RUNS_TABLE = "CREATE TABLE IF NOT EXISTS test_tool_runs (name TEXT PRIMARY KEY, runs INTEGER NOT NULL)";

/** Count one run of a tool in the child's storage (SQL: committed with the call that made it). */
function countToolRun(storage: DurableObjectStorage, name: string): void {
  storage.sql.exec(TOOL_RUNS_TABLE);
  storage.sql.exec(
    "INSERT INTO test_tool_runs (name, runs) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET runs = runs + 1",
    name,
  );
}

export class Lookout extends AgentToolChild<Env> {
  static readonly agentType = "Lookout";

  getTools(): ToolSet {
    const storage = this.ctx.storage;
    const holdSlow = this.env.LOOKOUT_HOLD_SLOW === "1";
    return {
      fast: tool({
        description: "Answers at once",
        inputSchema: z.object({}),
        execute: async () => {
          countToolRun(storage, "fast");
          return "fast done";
        },
      }),
      slow: tool({
        description: "Answers later",
        inputSchema: z.object({}),
        execute: async () => {
          countToolRun(storage, "slow");
          if (holdSlow) await new Promise<never>(() => {});
          return "slow done";
        },
      }),
    };
  }

  async turn({ messages, tools, abortSignal }: AgentToolTurnContext) {
    // Both tools in one step; once their results are in the prompt, say what they answered.
    const step: ScriptedModelStep = (call) => {
      const seen = toolResultsSeen(call);
      if (seen.size === 0) {
        return [
          { type: "stream-start", warnings: [] },
          { type: "tool-call", toolCallId: "c-fast", toolName: "fast", input: "{}" },
          { type: "tool-call", toolCallId: "c-slow", toolName: "slow", input: "{}" },
          { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: scriptedUsage },
        ];
      }
      const said = (id: string) => String((seen.get(id) as { value?: unknown } | undefined)?.value);
      return textStep(() => `fast: ${said("c-fast")}, slow: ${said("c-slow")}`)(call);
    };
    return streamTurn({ model: scriptedModel([step, step, step]), messages, tools, abortSignal });
  }

  protected override async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    this.ctx.storage.sql.exec(TOOL_RUNS_TABLE);
    const rows = this.ctx.storage.sql.exec<{ name: string; runs: number }>("SELECT name, runs FROM test_tool_runs");
    const toolRuns = Object.fromEntries(rows.toArray().map((row) => [row.name, row.runs]));
    return { ...(await super.drillInSnapshot(runId)), toolRuns };
  }
}

/** Waits until two callers have arrived, then lets both go on. Module-level: every object of the isolate shares it. */
class Rendezvous {
  #arrived = 0;
  #release: () => void = () => undefined;
  readonly #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  arrive(): Promise<void> {
    this.#arrived += 1;
    if (this.#arrived >= 2) this.#release();
    return this.#released;
  }
}

const gates = new Map<string, Rendezvous>();
const gate = (name: string) => {
  const found = gates.get(name) ?? new Rendezvous();
  gates.set(name, found);
  return found;
};

export class Gauge extends AgentToolChild<Env> {
  static readonly agentType = "Gauge";
  /** Opened once the tool has reported its milestone (`GAUGE_LATE_TAIL`: tails wait for it). */
  #milestoneReported: () => void = () => undefined;
  readonly #afterMilestone = new Promise<void>((resolve) => {
    this.#milestoneReported = resolve;
  });

  /** With `GAUGE_LATE_TAIL=1`, the parent's tail reaches the run only after its milestone (a busy child). */
  override async agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>> {
    if (this.env.GAUGE_LATE_TAIL === "1") await this.#afterMilestone;
    return super.agentToolTail(runId, afterSequence);
  }

  getTools(): ToolSet {
    return {
      measure: tool({
        description: "Measures, reporting its progress",
        inputSchema: z.object({ label: z.string(), gate: z.string(), trailing: z.boolean().optional() }),
        execute: async ({ label, gate: name, trailing }) => {
          if (this.env.GAUGE_LATE_TAIL === "1") await this.reportProgress({ fraction: 0.1, message: "starting" });
          await this.reportProgress({ milestone: `measuring ${label}` });
          this.#milestoneReported();
          await gate(name).arrive();
          await this.reportProgress({ fraction: 0.5, phase: `measuring ${label}`, message: `half of ${label}` });
          // Within the throttle window of the one before: held, and sent only when the turn ends.
          if (trailing) await this.reportProgress({ fraction: 0.75, message: `three quarters of ${label}` });
          return `${label} measured`;
        },
      }),
    };
  }

  async turn({ input, messages, tools, abortSignal }: AgentToolTurnContext) {
    const { text, gate: name, trailing } = input as { text: string; gate?: string; trailing?: boolean };
    const model = scriptedModel([
      toolCallsStep("measure", [["m", { label: text, gate: name ?? text, ...(trailing ? { trailing } : {}) }]]),
      textStep(() => `${text} done`),
    ]);
    return streamTurn({ model, messages, tools, abortSignal });
  }
}

/**
 * A child that runs agent tools itself: its model calls `echo` (an `Echo` grandchild) once for each of the first three
 * words of its input, all in one step, then says how many answered. Its drill-in JSON lists the runs it dispatched.
 */
export class Middle extends AgentToolChild<Env> {
  static readonly agentType = "Middle";

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    if (env.OTEL === "1") enableSpanLog(env.SPANS);
  }

  /** With `OTEL=1`, the runs it dispatches open their spans under the run whose turn dispatches them. */
  protected override traceContext(run: AgentToolTraceRequest) {
    return this.env.OTEL === "1" ? exporter.traceContext(run) : undefined;
  }

  protected override children(): Record<string, ChildNamespace> {
    return { Echo: this.env.ECHO };
  }

  getTools(): ToolSet {
    return {
      echo: this.agentTool(Echo, { description: "Echo a text", inputSchema: z.object({ text: z.string() }) }),
    };
  }

  async turn({ input, messages, tools, abortSignal, trace: runTrace }: AgentToolTurnContext) {
    const { text } = input as { text: string };
    const words = text.split(" ").slice(0, 3);
    const calls = words.map((word, index) => [`leaf-${index + 1}`, { text: `${word} ${text}` }] as const);
    const modelMessages = await convertToModelMessages(messages, { tools });
    const result = inRunTrace(runTrace, () =>
      streamText({
        model: scriptedModel([
          toolCallsStep("echo", calls),
          textStep((call) => `middle heard ${toolResultsSeen(call).size}`),
        ]),
        messages: modelMessages,
        tools,
        stopWhen: isStepCount(3),
        abortSignal,
        // With `OTEL=1`, the AI SDK's spans of this turn's model calls, in the run's trace context.
        ...(this.env.OTEL === "1" ? { telemetry: { integrations: [new OpenTelemetry({ tracer })] } } : {}),
      }),
    );
    return toUIMessageStream({ stream: result.stream, tools });
  }

  protected override async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    const registry = this.agentToolRegistry;
    const dispatched = (await registry?.listAgentToolRuns()) ?? [];
    // The result of each finished run (a live one's is not waited for).
    const results = await Promise.all(
      dispatched
        .filter((run) => run.completedAt !== undefined)
        .map(async (run) => ({ runId: run.runId, ...(await registry?.waitForAgentToolRun(run.runId)) })),
    );
    return { ...(await super.drillInSnapshot(runId)), dispatched, results };
  }
}

export class Parent extends AgentToolParent<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    constructed.parent += 1;
  }

  protected override readonly agentToolWakeIntervalMs = Number(
    this.env.PARENT_WAKE_MS ?? DEFAULT_PARENT_WAKE_INTERVAL_MS,
  );
  protected override agUiOptions() {
    const max = this.env.PARENT_AG_UI_MAX_STREAMS;
    return max === undefined ? {} : { maxStreams: Number(max) };
  }

  /** With `OTEL=1`, each run's spans open at its dispatch and its trace context goes to its child. */
  protected override registryOptions() {
    if (this.env.OTEL !== "1") return {};
    enableSpanLog(this.env.SPANS);
    return { traceContext: exporter.traceContext };
  }
  #held: () => void = () => undefined;
  readonly #isHeld = new Promise<void>((resolve) => {
    this.#held = resolve;
  });
  #socketClosed: () => void = () => undefined;
  readonly #isSocketClosed = new Promise<void>((resolve) => {
    this.#socketClosed = resolve;
  });

  protected children(): Record<string, ChildNamespace> {
    return {
      Echo: this.env.ECHO,
      Lookout: this.env.LOOKOUT,
      Gauge: this.env.GAUGE,
      Middle: this.env.MIDDLE,
      Relay: this.env.RELAY,
    };
  }

  /** Its MCP tools (`/mcp`): `echo`, `gauge` and `relay`, each an agent tool of the same child as in its chat. */
  protected override mcp() {
    return {
      pollIntervalMs: 50,
      tools: {
        echo: { child: Echo, description: "Echo a text", inputSchema: z.object({ text: z.string() }) },
        gauge: {
          child: Gauge,
          description: "Measure, reporting progress",
          inputSchema: z.object({ text: z.string() }),
        },
        relay: {
          child: Relay,
          description: "Relay a text down to a Writer, whose write needs approval",
          inputSchema: z.object({ text: z.string(), depth: z.number() }),
        },
      },
    };
  }

  /** Page requests on the event socket: `PARENT_PAGE_BURST`, `PARENT_PAGE_REFILL_MS`, `PARENT_MAX_PAGE_BYTES`. */
  protected override eventSocketOptions() {
    const { PARENT_PAGE_BURST: burst, PARENT_PAGE_REFILL_MS: refill, PARENT_MAX_PAGE_BYTES: bytes } = this.env;
    return {
      ...(burst ? { pageRequestBurst: Number(burst) } : {}),
      ...(refill ? { pageRequestRefillMs: Number(refill) } : {}),
      ...(bytes ? { maxPageBytes: Number(bytes) } : {}),
    };
  }

  protected override retainLogs() {
    const runs = this.env.PARENT_RETAIN_RUNS;
    return runs === undefined ? undefined : { maxRuns: Number(runs), settleMs: 0 };
  }

  protected override getTools(): ToolSet {
    const options = {
      description: "Echo a text through the Echo child",
      inputSchema: z.object({ text: z.string() }),
      displayName: "Echo",
    };
    const echo =
      this.env.PRELIMINARY === "1"
        ? this.agentTool(Echo, { ...options, preliminaryResults: true })
        : this.agentTool(Echo, options);
    const sql = this.ctx.storage.sql;
    const note = tool({
      description: "Note a text (in this object's storage, with the call's id)",
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }, { toolCallId }) => {
        sql.exec(NOTES_TABLE);
        sql.exec("INSERT INTO test_notes (tool_call_id, text) VALUES (?, ?)", toolCallId, text);
        return `noted ${text}`;
      },
    });
    const delegate = this.agentTool(Middle, {
      description: "Delegate a text to the Middle child, which echoes its words through Echo grandchildren",
      inputSchema: z.object({ text: z.string() }),
    });
    const relay = this.agentTool(Relay, {
      description: "Relay a text down two Relay children to a Writer, whose write needs approval",
      inputSchema: z.object({ text: z.string() }),
    });
    return { echo, note, delegate, relay } as ToolSet;
  }

  protected override async onChatMessage({ messages, tools, abortSignal }: ChatTurnContext) {
    const asked = textOf(messages.filter((message) => message.role === "user").at(-1));
    const isHeld = this.env.PARENT_HOLD_TURN === "1";
    const toolName = this.env.PARENT_TOOL ?? "echo";
    const callId = isHeld ? `call-${crypto.randomUUID()}` : `call-${messages.length}`;
    const answer = textStep((call) => {
      const output = resultSinceAsked(call) as { value?: unknown } | undefined;
      return `The ${toolName} said: ${String(output?.value ?? "nothing")}`;
    });
    // A turn that goes on after a restart (its tool call answered already) only answers.
    const ask: ScriptedModelStep = (call) =>
      resultSinceAsked(call) === undefined ? toolCallsStep(toolName, [[callId, { text: asked }]])(call) : answer(call);
    const stream = await streamTurn({ model: scriptedModel([ask, answer]), messages, tools, abortSignal });
    if (!isHeld) return stream;
    // The turn's stream is never read: what the model and its tools do meanwhile is not seen by the host.
    return new ReadableStream<UIMessageChunk>({
      pull: () => {
        this.#held();
        return new Promise<void>(() => {});
      },
    });
  }

  protected override authorize(request: Request): Response | undefined {
    const key = this.env.PARENT_KEY;
    if (key === undefined || key === "") return undefined;
    const given = request.headers.get("authorization") ?? `Bearer ${new URL(request.url).searchParams.get("key")}`;
    return given === `Bearer ${key}` ? undefined : new Response("Unauthorized", { status: 401 });
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    await super.webSocketClose(ws, code);
    this.#socketClosed();
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await super.webSocketError(ws);
    this.#socketClosed();
  }

  override async alarm(): Promise<void> {
    await super.alarm();
    await this.whenAgentToolsReady();
    const last = (await this.messages()).at(-1);
    if (last?.role === "assistant" && textOf(last) !== "") {
      await this.env.PROBE.get(this.env.PROBE.idFromName("probe")).fetch("https://probe/record?event=answered");
    }
  }

  /** The tables in this object's storage (RPC: reads, creates nothing). */
  storedTables(): string[] {
    const rows = this.ctx.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
    return rows.toArray().map((row) => row.name);
  }

  override onAgentToolFinish(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void {
    this.ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS test_hooks (run_id TEXT NOT NULL, status TEXT NOT NULL, calls INTEGER NOT NULL, PRIMARY KEY (run_id, status))",
    );
    this.ctx.storage.sql.exec(
      "INSERT INTO test_hooks (run_id, status, calls) VALUES (?, ?, 1) ON CONFLICT (run_id, status) DO UPDATE SET calls = calls + 1",
      run.runId,
      result.status,
    );
  }

  protected override async onRequest(request: Request, route: AgentToolParentRoute): Promise<Response> {
    if (route.kind !== "other") return super.onRequest(request, route);
    const params = new URL(request.url).searchParams;
    const text = params.get("text") ?? "";
    switch (route.path) {
      case "/test/start": {
        const runId = params.get("runId") ?? crypto.randomUUID();
        const agent = params.get("agent");
        const child = agent === "Lookout" ? Lookout : agent === "Gauge" ? Gauge : agent === "Middle" ? Middle : Echo;
        if (params.get("detached") === "1") {
          return Response.json(await this.runAgentTool(child, { input: { text }, runId, detached: true }));
        }
        const trailing = params.get("trailing") === "1" ? { trailing: true } : {};
        this.ctx.waitUntil(this.runAgentTool(child, { input: { text, ...trailing }, runId }));
        return Response.json({ runId });
      }
      case "/test/hooks": {
        this.ctx.storage.sql.exec(
          "CREATE TABLE IF NOT EXISTS test_hooks (run_id TEXT NOT NULL, status TEXT NOT NULL, calls INTEGER NOT NULL, PRIMARY KEY (run_id, status))",
        );
        return Response.json(this.ctx.storage.sql.exec("SELECT run_id, status, calls FROM test_hooks").toArray());
      }
      case "/test/direct": {
        const stream = await this.subAgent(Echo, params.get("name") ?? "notes").chat(text);
        let answer = "";
        for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
          if (chunk.type === "text-delta") answer += chunk.delta;
        }
        return Response.json({ answer });
      }
      case "/test/direct-abort": {
        // One direct chat message (id `m1`), aborted once its first word came; then the child's run of it.
        const name = params.get("name") ?? "notes";
        const controller = new AbortController();
        const message: UIMessage = { id: "m1", role: "user", parts: [{ type: "text", text }] };
        const stream = await this.subAgent(Echo, name).chat(message, { signal: controller.signal });
        let answer = "";
        for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
          if (chunk.type !== "text-delta") continue;
          answer += chunk.delta;
          controller.abort();
        }
        const child = this.env.ECHO.get(
          this.env.ECHO.idFromName(
            childObjectName(this.ctx.id.toString(), { agentType: "Echo", runId: `chat:${name}` }),
          ),
        ) as unknown as Pick<Echo, "agentToolInspect">;
        const run = await child.agentToolInspect(`chat:${name}:m1`);
        return Response.json({ answer, status: run?.status, error: run?.error });
      }
      case "/test/direct-messages":
        return Response.json(await this.subAgent(Echo, params.get("name") ?? "notes").messages());
      case "/test/send":
        return Response.json(await this.sendChatMessage(text));
      case "/test/notes":
        this.ctx.storage.sql.exec(NOTES_TABLE);
        return Response.json(this.ctx.storage.sql.exec("SELECT tool_call_id, text FROM test_notes").toArray());
      case "/test/seed-turns": {
        // What an earlier version could leave in storage after a crash: turn rows (oldest first in the body), each
        // with its user message and its log's rows as given (a row's text is written as is, valid JSON or not).
        const turns = (await request.json()) as Array<{ turn: { turnId: string }; user: UIMessage; log: string[] }>;
        const sql = this.ctx.storage.sql;
        await this.whenAgentToolsReady();
        for (const { turn, user, log } of turns) {
          sql.exec(
            `INSERT INTO ${CHAT_STORE_TABLES.messages} (id, message) VALUES (?, ?)`,
            user.id,
            JSON.stringify(user),
          );
          sql.exec(
            `INSERT INTO ${CHAT_STORE_TABLES.turns} (turn_id, turn) VALUES (?, ?)`,
            turn.turnId,
            JSON.stringify(turn),
          );
          log.forEach((chunks, index) => {
            sql.exec(
              `INSERT INTO ${CHAT_STORE_TABLES.turnLog} (turn_id, first_index, chunks) VALUES (?, ?, ?)`,
              turn.turnId,
              index * 1000,
              chunks,
            );
          });
        }
        return Response.json({ seeded: turns.length });
      }
      case "/test/results": {
        // The results of finished runs (`?runs=a,b`), as the registry returns them.
        const ids = (params.get("runs") ?? "").split(",").filter((id) => id !== "");
        return Response.json(
          await Promise.all(
            ids.map(async (id) => {
              const result = await this.registry.waitForAgentToolRun(id);
              return { ok: result.ok, status: result.status, ...(result.ok ? {} : { error: result.error }) };
            }),
          ),
        );
      }
      case "/test/compacted":
        return Response.json(
          this.ctx.storage.sql
            .exec<{ run_id: string }>("SELECT run_id FROM agent_tool_log WHERE first_sequence = 0 ORDER BY run_id")
            .toArray()
            .map((row) => row.run_id),
        );
      case "/test/held":
        await this.#isHeld;
        return Response.json({ held: true });
      case "/test/socket-closed":
        await this.#isSocketClosed;
        return Response.json({ closed: true });
      default:
        return super.onRequest(request, route);
    }
  }
}

/**
 * A `Parent` configured the origin page's way, by statics: a detached run's absolute budget of 400 ms, and start-up
 * recovery that only collects children that have already finished (no re-attach wait).
 */
export class StaticsParent extends Parent {
  static override readonly detachedMaxBudgetMs = 400;
  static override readonly agentToolReattachNoProgressTimeoutMs = 0;
}

/**
 * A parent with only workflow tools: no conversation (`onChatMessage` is not defined), one route that runs an `Echo`
 * from its own method (`POST /test/run?text=`, answered with the run's result), one that sends a chat message from code
 * (`POST /test/send?text=`, answered with the error).
 */
export class WorkflowParent extends AgentToolParent<Env> {
  protected children(): Record<string, ChildNamespace> {
    return { Echo: this.env.ECHO };
  }

  protected override async onRequest(request: Request, route: AgentToolParentRoute): Promise<Response> {
    const text = new URL(request.url).searchParams.get("text") ?? "";
    if (route.kind === "other" && route.path === "/test/run") {
      return Response.json(await this.runAgentTool(Echo, { input: { text } }));
    }
    if (route.kind === "other" && route.path === "/test/send") {
      return this.sendChatMessage(text).then(
        (answer) => Response.json({ answer }),
        (error: unknown) => Response.json({ error: String(error) }),
      );
    }
    return super.onRequest(request, route);
  }
}

/** Records events, and answers a wait for one once it is recorded (before or after the wait came). */
export class Probe extends DurableObject<Env> {
  readonly #waiters = new Map<string, Array<() => void>>();

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const event = url.searchParams.get("event") ?? "";
    const key = `event:${event}`;
    if (url.pathname === "/add") {
      const name = `count:${url.searchParams.get("name") ?? ""}`;
      await this.ctx.storage.put(name, ((await this.ctx.storage.get<number>(name)) ?? 0) + 1);
      return Response.json({ added: name });
    }
    if (url.pathname === "/counts") {
      const counts = await this.ctx.storage.list<number>({ prefix: "count:" });
      return Response.json(
        Object.fromEntries([...counts].map(([name, value]) => [name.slice("count:".length), value])),
      );
    }
    if (url.pathname === "/record") {
      await this.ctx.storage.put(key, true);
      for (const wake of this.#waiters.get(event) ?? []) wake();
      this.#waiters.delete(event);
      return Response.json({ recorded: event });
    }
    if ((await this.ctx.storage.get(key)) !== true) {
      await new Promise<void>((resolve) => this.#waiters.set(event, [...(this.#waiters.get(event) ?? []), resolve]));
    }
    return Response.json({ event });
  }
}

/** Two runs on one `Gauge` object whose tools report progress at the same time; both runs' inspections when done. */
async function gaugePair(env: Env): Promise<Record<string, unknown>> {
  const gauge = env.GAUGE.get(env.GAUGE.idFromName("pair")) as unknown as Pick<
    Gauge,
    "agentToolStart" | "agentToolTail" | "agentToolInspect"
  >;
  const runIds = ["a", "b"];
  for (const runId of runIds) await gauge.agentToolStart(runId, { text: runId, gate: "pair" });
  // Each tail ends once its run has ended.
  await Promise.all(runIds.map(async (runId) => new Response(await gauge.agentToolTail(runId, 0)).text()));
  return Object.fromEntries(
    await Promise.all(runIds.map(async (runId) => [runId, await gauge.agentToolInspect(runId)])),
  );
}

/** The next event of this isolate's default hub that `matches` (a Worker and its objects share the isolate here). */
function nextEvent(matches: (event: { type: string; [field: string]: unknown }) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = getDefaultRunEventHub().subscribe((event) => {
      if (!matches(event)) return;
      unsubscribe();
      resolve();
    });
  });
}

/**
 * A client that goes away while its message waits: posts message `messageId` to `POST …/sub/Echo/<runId>/chat` of
 * parent `parent`, cancels the request once the child says the message waits for its turn, and answers once the
 * child has dropped it.
 */
async function abandonSubChat(env: Env, params: URLSearchParams): Promise<{ queued: boolean; dropped: boolean }> {
  const parent = params.get("parent") ?? "";
  const messageId = params.get("messageId") ?? "";
  const ofMessage = (type: string) => (event: { type: string; [field: string]: unknown }) =>
    event.type === type && event["messageId"] === messageId;
  const queued = nextEvent(ofMessage("agent_tool:direct-chat:queued"));
  const dropped = nextEvent(ofMessage("agent_tool:direct-chat:dropped"));
  const controller = new AbortController();
  const message: UIMessage = { id: messageId, role: "user", parts: [{ type: "text", text: "never answered" }] };
  const stub = env.PARENT.get(env.PARENT.idFromName(parent));
  const request = new Request(`https://host/agents/parent/${parent}/sub/Echo/${params.get("runId") ?? ""}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
    signal: controller.signal,
  });
  const answered = stub.fetch(request).catch(() => undefined);
  await queued;
  controller.abort();
  await dropped;
  await answered;
  return { queued: true, dropped: true };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/constructed") return Response.json(constructed);
    if (url.pathname === "/test/spans") return env.SPANS.get(env.SPANS.idFromName("spans")).fetch("https://spans/list");
    if (url.pathname === "/test/config-errors") return Response.json(configErrors);
    if (url.pathname === "/test/gauge-pair") return Response.json(await gaugePair(env));
    if (url.pathname === "/test/echo-release") {
      releaseEchoes();
      return Response.json({ released: true });
    }
    if (url.pathname === "/test/sub-chat-abandon") return Response.json(await abandonSubChat(env, url.searchParams));
    if (url.pathname === "/test/gauge-gate") {
      // Answered once the tool has arrived too: a gate reached here first is released from the tool's request while
      // this one still waits (workerd cancels what waits on a promise of a request that has ended).
      await gate(url.searchParams.get("name") ?? "").arrive();
      return Response.json({ arrived: true });
    }
    if (url.pathname.startsWith("/probe/")) {
      const path = url.pathname.slice("/probe".length);
      return env.PROBE.get(env.PROBE.idFromName("probe")).fetch(`https://probe${path}${url.search}`);
    }
    if (url.pathname === "/test/tables") {
      const parent = env.PARENT.get(env.PARENT.idFromName(url.searchParams.get("name") ?? "")) as unknown as Parent;
      return Response.json(await parent.storedTables());
    }
    const workerKey = env.WORKER_KEY;
    const routed = await routeAgentToolRequest(request, env, {
      parents: { parent: "PARENT", statics: "STATICS", workflow: "WORKFLOW" },
      ...(workerKey
        ? {
            authorize: (incoming: Request) =>
              incoming.headers.get("x-worker-key") === workerKey
                ? undefined
                : new Response("Refused by the Worker", { status: 401 }),
          }
        : {}),
    });
    return routed ?? new Response("Not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
