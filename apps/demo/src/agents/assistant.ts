import {
  AgentToolParent,
  type AgentToolParentRoute,
  type ChatTurnContext,
  type ChildNamespace,
} from "@agent-tools/cloudflare";
import type {
  AgentToolLifecycleResult,
  AgentToolOptions,
  AgentToolRunInfo,
  RegistryExtension,
} from "@agent-tools/core-runs";
import { readDetachedState } from "@agent-tools/detached";
import { formatRunEvent, subscribe } from "@agent-tools/observability";
import type { RecoverAgentToolRunsOptions } from "@agent-tools/recovery";
import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessageChunk,
} from "ai";
import { z } from "zod";
import { lastToolResults, lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { Editor } from "./editor.js";
import type { Env } from "./env.js";
import { afterTextDeltas, FaultHold, faultTextDeltas, holdBetweenToolCalls, holdStreamAfter } from "./fault-points.js";
import { HookJournal } from "./hook-journal.js";
import { Importer } from "./importer.js";
import { Researcher } from "./researcher.js";
import { Summarizer, type Summary, summarySchema } from "./summarizer.js";

/** `metadata.source` of the chat messages a background import injects (its `notify: { source }`). */
const BACKGROUND_IMPORT_SOURCE = "background-import";
/** `metadata.source` of the Assistant's answers in turns the server starts (not a client). */
export const SERVER_TURN_SOURCE = "assistant:server-turn";

/**
 * The Assistant's child tools, by name: what its model calls (`getTools`) and what MCP clients call as tasks
 * (`mcp()`, at `/agents/assistant/<name>/mcp`), the same child and options.
 */
const CHILD_TOOLS = {
  research: {
    child: Researcher,
    description: "Ask the Researcher agent to look up a topic and report findings",
    inputSchema: z.object({ topic: z.string().min(1) }),
    displayName: "Researcher",
  },
  summarize: {
    child: Summarizer,
    description: "Ask the Summarizer agent for a structured summary of a text",
    inputSchema: z.object({ text: z.string().min(1) }),
    displayName: "Summarizer",
  },
  edit: {
    child: Editor,
    description: "Ask the Editor to tidy a text and have its Writer save it as a file (the write needs approval)",
    inputSchema: z.object({ text: z.string().min(1) }),
    displayName: "Editor",
  },
  importData: {
    child: Importer,
    description: "Import a data set in batches",
    inputSchema: z.object({ batches: z.number().int().min(1).max(20) }),
    displayName: "Importer",
  },
};

/** Recovery windows from optional bindings (tests shorten them); unset → the spec's defaults. */
const RECOVERY_KNOBS = {
  agentToolInspectTimeoutMs: "RECOVERY_INSPECT_TIMEOUT_MS",
  agentToolRecoveryDeadlineMs: "RECOVERY_DEADLINE_MS",
  agentToolReattachNoProgressTimeoutMs: "RECOVERY_NO_PROGRESS_MS",
  agentToolReattachMaxWindowMs: "RECOVERY_MAX_WINDOW_MS",
} as const;

/**
 * The demo's parent chat agent, on `AgentToolParent` from `@agent-tools/cloudflare` (which gives it the registry,
 * detached runs, recovery, the event and chat sockets, the durable conversation and drill-in): its children, its
 * tools, its model, and what its tests observe (hook counts, background delivery state).
 */
export class Assistant extends AgentToolParent<Env> {
  #journal: HookJournal | undefined;
  /** Reads the runs' rows (for `/background`). */
  #runRows: RegistryExtension<null> | undefined;
  /** Test-only: where a turn is held for a kill test (`DEMO_FAULT_POINT`, off by default; see fault-points.ts). */
  readonly #faults: FaultHold;
  /** Test-only (`DEMO_FAIL_ONCE_TEXT`): the user messages whose first answer failed already. */
  readonly #failedOnce = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#faults = new FaultHold(env);
    if (env.DEBUG) enableDebugLog();
  }

  protected children(): Record<string, ChildNamespace> {
    return {
      Researcher: this.env.RESEARCHER,
      Summarizer: this.env.SUMMARIZER,
      Importer: this.env.IMPORTER,
      Editor: this.env.EDITOR,
    };
  }

  /**
   * Whether the agent tools stream their child's answer into the tool call's part (`preliminaryResults`): off here,
   * where the page follows child runs on the event socket; on in `PlainChatAssistant`, whose page is stock `useChat`.
   */
  protected readonly preliminaryResults: boolean = false;

  protected override getTools(): ToolSet {
    const preliminaryResults = this.preliminaryResults;
    const childTool = <TInput, TOutput = never>(
      child: Parameters<typeof this.agentTool>[0],
      options: Omit<AgentToolOptions<TInput, TOutput>, "preliminaryResults">,
    ) =>
      preliminaryResults
        ? this.agentTool(child, { ...options, preliminaryResults: true })
        : this.agentTool(child, { ...options, preliminaryResults: false });
    return {
      research: childTool(Researcher, CHILD_TOOLS.research),
      summarize: childTool(Summarizer, { ...CHILD_TOOLS.summarize, outputSchema: summarySchema }),
      edit: childTool(Editor, CHILD_TOOLS.edit),
      importData: childTool(Importer, CHILD_TOOLS.importData),
      startBackgroundImport: tool({
        description: "Start a data import in the background and answer at once; you are told when it finishes",
        inputSchema: z.object({ batches: z.number().int().min(1).max(20) }),
        execute: async ({ batches }: { batches: number }, { toolCallId }: { toolCallId: string }) => {
          const started = await this.runAgentTool(Importer, {
            input: { batches },
            // Stable across a re-run of the same turn: a second dispatch returns the run, never a second import.
            runId: `background:${toolCallId}`,
            display: { name: "Background import", background: true },
            detached: { notify: { source: BACKGROUND_IMPORT_SOURCE }, onMilestones: ["half-way"] },
          });
          return started.status === "error"
            ? { ok: false, status: "error", error: started.error ?? "The import could not be started" }
            : { ok: true, runId: started.runId, status: started.status };
        },
      }),
    } as ToolSet;
  }

  /** The child tools, served to MCP clients as tools that run as tasks (`@agent-tools/mcp`). */
  protected override mcp() {
    const tools = Object.fromEntries(
      Object.entries(CHILD_TOOLS).map(([name, { child, description, inputSchema }]) => [
        name,
        { child, description, inputSchema },
      ]),
    );
    return { tools, ...(this.env.DEMO_MCP_POLL_MS ? { pollIntervalMs: Number(this.env.DEMO_MCP_POLL_MS) } : {}) };
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // Fault point: a chat `send` arrived and nothing of it is stored yet.
    const sent = this.#faults.is("before-user-message") ? sentMessageId(message) : undefined;
    if (sent !== undefined) return this.#faults.hold({ messageId: sent });
    return super.webSocketMessage(ws, message);
  }

  protected override async onChatMessage(context: ChatTurnContext) {
    return this.#withFaultPoint(await this.#answer(context), context);
  }

  async #answer({ messages, tools, abortSignal, origin, model }: ChatTurnContext) {
    const failing = this.#failOnce(messages);
    if (failing) return failing;
    // Test knob (fault tests): a turn the server starts for a background completion hangs before the model answers,
    // as if the process stopped in the middle of that delivery.
    if (origin === "server" && this.env.DEMO_HOLD_DELIVERIES === "1") {
      return new ReadableStream<UIMessageChunk>({ pull: () => new Promise<void>(() => {}) });
    }
    // A background import's completion, told to the chat by `notify` (a user-role message with its `source`): the
    // turn the server starts for it reacts to it.
    const last = messages.at(-1);
    const isCompletion =
      origin === "server" && last?.role === "user" && sourceOf(last.metadata) === BACKGROUND_IMPORT_SOURCE;
    // The turn's tools: getTools(), each started only once its call is stored.
    const result = streamText({
      // Counted against the turn's budget (and shown as the turn's usage on the page).
      model: model(this.#model({ isCompletion })),
      system: "You are a helpful assistant. Delegate research and summaries to your tools, then answer.",
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(5),
      abortSignal,
    });
    return toUIMessageStream({
      stream: result.stream,
      tools,
      ...(origin === "server" ? { messageMetadata: () => ({ source: SERVER_TURN_SOURCE }) } : {}),
    });
  }

  /**
   * Test knob (`DEMO_FAIL_ONCE_TEXT`): the first answer to a user message with exactly that text streams a few words,
   * then its model fails; `null` for any other turn.
   */
  #failOnce(messages: ChatTurnContext["messages"]): ReadableStream<UIMessageChunk> | null {
    const last = messages.at(-1);
    const text = last?.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const knob = this.env.DEMO_FAIL_ONCE_TEXT;
    if (last?.role !== "user" || !knob || text !== knob || this.#failedOnce.has(last.id)) return null;
    this.#failedOnce.add(last.id);
    const chunks: UIMessageChunk[] = [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Let me think. " },
      { type: "text-end", id: "t" },
    ];
    // One chunk a pull, then the error (an error at once would discard the chunks still queued).
    return new ReadableStream<UIMessageChunk>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk) controller.enqueue(chunk);
        else controller.error(new Error("The model is unavailable right now"));
      },
    });
  }

  /** The turn's stream, held at the armed fault point (test-only; the stream as is when no point is armed). */
  #withFaultPoint(stream: ReadableStream<UIMessageChunk>, context: ChatTurnContext) {
    const { origin } = context;
    const faults = this.#faults;
    const deltas = faultTextDeltas(this.env);
    const holdHere = (streamed: readonly UIMessageChunk[]) => this.#holdOnceStored(context, streamed);
    if (origin === "client" && faults.is("parent-streaming")) {
      return holdStreamAfter(stream, afterTextDeltas(deltas), holdHere);
    }
    if (origin === "client" && faults.is("after-tool-result")) {
      const isResult = (chunk: UIMessageChunk) => chunk.type === "tool-output-available";
      return holdStreamAfter(stream, isResult, holdHere);
    }
    if (origin === "client" && faults.is("between-tool-calls")) {
      return holdBetweenToolCalls(stream, holdHere);
    }
    if (origin === "server" && faults.is("delivery-answer")) {
      return holdStreamAfter(stream, afterTextDeltas(deltas), holdHere);
    }
    return stream;
  }

  /**
   * Hold the turn at the fault point once what it streamed so far is stored: the host writes a streaming turn at most
   * every `DEFAULT_CHAT_WRITE_INTERVAL_MS`, and the turn's `whenStored()` waits for the write that holds it all.
   */
  async #holdOnceStored({ turnId, whenStored }: ChatTurnContext, streamed: readonly UIMessageChunk[]): Promise<never> {
    await whenStored();
    return this.#faults.hold({ turnId, stored: streamed.map((chunk) => chunk.type) });
  }

  override onAgentToolStart(run: AgentToolRunInfo): void {
    this.#hooks().count(run.runId, "start");
  }

  override onAgentToolFinish(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void {
    this.#hooks().count(run.runId, `finish:${result.status}`);
  }

  protected override registryOptions() {
    const interval = this.env.FOLLOW_WRITE_INTERVAL_MS;
    return interval !== undefined && interval !== "" ? { followWriteIntervalMs: Number(interval) } : {};
  }

  protected override recoveryOptions(): RecoverAgentToolRunsOptions {
    const bindings = this.env as unknown as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(RECOVERY_KNOBS).flatMap(([option, binding]) => {
        const value = bindings[binding];
        return typeof value === "string" && value !== "" ? [[option, Number(value)]] : [];
      }),
    );
  }

  protected override detachedOptions() {
    const watchIntervalMs = Number(this.env.DETACHED_WATCH_INTERVAL_MS);
    const deliveryLeaseMs = Number(this.env.DEMO_DELIVERY_LEASE_MS);
    return {
      ...(watchIntervalMs > 0 ? { watchIntervalMs } : {}),
      ...(deliveryLeaseMs > 0 ? { deliveryLeaseMs } : {}),
    };
  }

  /** The demo's own routes: `/hooks` (hook counts) and `/background` (background runs and their delivery). */
  protected override async onRequest(request: Request, route: AgentToolParentRoute): Promise<Response> {
    if (route.kind === "other" && request.method === "GET") {
      if (route.path === "/hooks") return Response.json(this.#hooks().list());
      if (route.path === "/background") return Response.json(await this.#backgroundRuns());
      if (route.path === "/background/settled") {
        return Response.json(await this.#whenDeliverySettled(new URL(request.url).searchParams.get("runId") ?? ""));
      }
      // Test-only: answers once the armed fault point is reached (404 when none is armed).
      if (route.path === "/fault") {
        if (this.#faults.point === null) return Response.json({ point: null }, { status: 404 });
        return Response.json(await this.#faults.whenReached());
      }
    }
    return super.onRequest(request, route);
  }

  /**
   * A background run once its latest result's delivery is settled (answers when it is, woken by the delivery's
   * `agent_tool:detached:delivered` or `:delivery_failed` event): for tests, which thus wait without polling.
   */
  async #whenDeliverySettled(runId: string) {
    let settle: () => void = () => undefined;
    const delivered = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const unsubscribe = subscribe("agentTool", (event) => {
      const isDeliveryEnd =
        event.type === "agent_tool:detached:delivered" || event.type === "agent_tool:detached:delivery_failed";
      if (isDeliveryEnd && "runId" in event && event.runId === runId) settle();
    });
    try {
      const read = async () => (await this.#backgroundRuns()).find((run) => run.runId === runId);
      const run = await read();
      if (run && run.revision > run.delivery.settledRevision && run.revision !== run.delivery.failedRevision) {
        await delivered;
        return read();
      }
      return run;
    } finally {
      unsubscribe();
    }
  }

  /** Background runs with where their delivery stands (`settledRevision`, and a `claim` while one is in flight). */
  async #backgroundRuns() {
    // The registry's extension seam reads the runs' rows, with what `@agent-tools/detached` keeps on them (this reader
    // keeps nothing of its own on them).
    this.#runRows ??= this.registry.extension({ key: "demo/background", read: () => null });
    const records = await this.#runRows.listRuns();
    return records.flatMap((record) => {
      const state = readDetachedState(record);
      if (!state) return [];
      return [{ runId: record.runId, status: record.status, revision: record.revision, delivery: state.delivery }];
    });
  }

  #hooks(): HookJournal {
    this.#journal ??= new HookJournal(this.ctx.storage);
    return this.#journal;
  }

  /** The Assistant's model; `isCompletion`: the turn reacts to a background import's completion. */
  #model({ isCompletion }: { isCompletion: boolean }) {
    return selectModel(this.env, "assistant", (prompt) => {
      const results = lastToolResults(prompt);
      if (!results) {
        const text = lastUserText(prompt);
        if (isCompletion) return { kind: "text", text: `Update on your background task: ${text}` };
        if (/\bbackground\b/i.test(text)) {
          return {
            kind: "tools",
            text: "I will run the import in the background. ",
            calls: [{ toolName: "startBackgroundImport", input: { batches: 5 } }],
          };
        }
        if (/\b(write|save)\b/i.test(text)) {
          return {
            kind: "tools",
            text: "I will have my editor write that down. ",
            calls: [{ toolName: "edit", input: { text } }],
          };
        }
        if (/\bimport\b/i.test(text)) {
          return {
            kind: "tools",
            text: "Starting the import. ",
            calls: [{ toolName: "importData", input: { batches: 5 } }],
          };
        }
        return {
          kind: "tools",
          text: "Let me ask my researcher and my summarizer. ",
          calls: [
            { toolName: "research", input: { topic: text } },
            { toolName: "summarize", input: { text } },
          ],
        };
      }
      const background = results.get("startBackgroundImport") as
        | { ok: true; runId: string }
        | { ok: false; error: string }
        | undefined;
      if (background !== undefined) {
        return {
          kind: "text",
          text: background.ok
            ? `The import is running in the background (${background.runId}). I will tell you when it is done.`
            : `I could not start the import: ${background.error}`,
        };
      }
      const lines: string[] = [];
      const research = results.get("research");
      if (research !== undefined) lines.push(`Research: ${describe(research)}`);
      const summary = results.get("summarize") as Summary | { ok: false; error: string } | undefined;
      if (summary !== undefined) {
        // A call that failed (or was not run) has no summary: its result says why.
        lines.push(
          typeof summary === "object" && summary !== null && "bullets" in summary
            ? `Summary — ${(summary as Summary).title}: ${(summary as Summary).bullets.join("; ")}`
            : `Summary: ${describe(summary)}`,
        );
      }
      const edited = results.get("edit");
      if (edited !== undefined) lines.push(`Editor: ${describe(edited)}`);
      const imported = results.get("importData");
      if (imported !== undefined) lines.push(`Import: ${describe(imported)}`);
      return { kind: "text", text: `Here is what I found. ${lines.join(" ")}` };
    });
  }
}

/** The id of the user message a chat socket's `send` frame carries (null without one); undefined for another frame. */
function sentMessageId(message: string | ArrayBuffer): string | null | undefined {
  if (typeof message !== "string") return undefined;
  try {
    const request = JSON.parse(message) as { type?: unknown; messages?: Array<{ id?: unknown }> };
    if (request.type !== "send") return undefined;
    const id = request.messages?.at(-1)?.id;
    return typeof id === "string" ? id : null;
  } catch {
    return undefined;
  }
}

/** A message's `metadata.source`, if it has one. */
function sourceOf(metadata: unknown): string | undefined {
  const source = (metadata as { source?: unknown } | null | undefined)?.source;
  return typeof source === "string" ? source : undefined;
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && (value as { ok?: unknown }).ok === false) {
    return `failed (${String((value as { status?: unknown }).status)}): ${String((value as { error?: unknown }).error)}`;
  }
  return JSON.stringify(value);
}

let debugEnabled = false;
/** `DEBUG=1 pnpm demo`: every agent-tool event as one readable log line. */
function enableDebugLog(): void {
  if (debugEnabled) return;
  debugEnabled = true;
  subscribe("agentTool", (event) => console.log(`[agent-tools] ${formatRunEvent(event)}`));
}
