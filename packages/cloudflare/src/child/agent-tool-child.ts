import { DurableObject } from "cloudflare:workers";
import {
  type AgentToolApprovalAnswer,
  type AgentToolBudgetExhaustion,
  type AgentToolChildDefinition,
  type AgentToolChildReference,
  AgentToolChildRunner,
  type AgentToolOptions,
  type AgentToolOutput,
  type AgentToolOutputContext,
  type AgentToolPreliminaryOutput,
  type AgentToolRegistry,
  type AgentToolRunInspection,
  type AgentToolSummaryContext,
  AgentToolsError,
  type AgentToolTraceContext,
  type AgentToolTraceRequest,
  type AgentToolTree,
  type AgentToolTurnContext,
  type AgentToolTurnStream,
  agentTool,
  approvalChunk,
  type ChildStartOptions,
  DEFAULT_MAX_RECOVERY_ATTEMPTS,
  delay,
  getDefaultRunEventHub,
  positionOf,
  type RunRecord,
  systemClock,
} from "@agent-tools/core-runs";
import {
  createProgressReporter,
  type ProgressReporter,
  type ProgressUpdate,
  type ReportProgressOptions,
} from "@agent-tools/progress";
import type { Tool, UIMessage } from "ai";
import type {
  AgentToolChildChatRpc,
  AgentToolChildRpc,
  AgentToolRunChatOptions,
  AgentToolRunChatResult,
  ChildNamespace,
} from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { toNdjson } from "../adapters/ndjson.js";
import { descendantFeed, descendantsThrough, drained, emptyDescendantFeed } from "../ag-ui/descendant-feed.js";
import { webSocketUpgrade } from "../websocket-upgrade.js";
import { ChildDispatcher } from "./child-dispatcher.js";
import { DirectChat } from "./direct-chat.js";
import { serveDrillIn } from "./drill-in-socket.js";
import { createRunContext } from "./run-context.js";

/** The run a turn's code works for, its place in its tree, and its progress reporter (one per turn). */
type RunScope = {
  runId: string;
  tree: AgentToolTree | null;
  trace: AgentToolTraceContext | null;
  reporter: ProgressReporter;
};

const OUTSIDE_RUN_WARNING =
  "this.reportProgress was called outside a run of this child (not from its turn nor a tool of it): progress is ignored.";
const NO_RUN_CONTEXT_WARNING =
  "this.reportProgress needs the nodejs_compat (or nodejs_als) compatibility flag: without AsyncLocalStorage the " +
  "child cannot tell which run reports, so progress is ignored.";

/** Default `agentToolWakeIntervalMs`: while a run is live, the child's alarm wakes it at least this often (5 s). */
export const DEFAULT_CHILD_WAKE_INTERVAL_MS = 5_000;

/** Default `approvalTimeoutMs`: an approval nobody answers within 24 h is denied as expired. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1_000;

/**
 * A Durable Object that is one child agent: it hosts an `AgentToolChildRunner` over its own SQLite storage and offers
 * the parent the RPC surface `DurableObjectChildTransport` calls (start, inspect, tail, cancel, destroy, messages),
 * plus a drill-in route (its own conversation, live). One object per `(parent, agentType, runId)`.
 *
 * It wakes itself: while a run is live it keeps an alarm armed, so a turn cut by an eviction or a deploy resumes from
 * its persisted steps on the next alarm, without waiting for the parent to ask. A subclass that overrides `alarm()`
 * must call `super.alarm()`.
 *
 * Subclasses say what the child does: `static agentType` (class names do not survive minification) and `turn()`;
 * optionally `formatAgentToolInput`, `getAgentToolOutput`, `getAgentToolSummary`, and `getTools()` (the tools its
 * turn gives the model: a step cut by an eviction then keeps its tool results, and only calls without one run again).
 *
 * @example
 * export class Researcher extends AgentToolChild<Env> {
 *   static readonly agentType = "Researcher";
 *   async turn({ messages, abortSignal }: AgentToolTurnContext) {
 *     const result = streamText({ model: this.env.MODEL, messages: await convertToModelMessages(messages), abortSignal });
 *     return result.toUIMessageStream();
 *   }
 * }
 */
export abstract class AgentToolChild<TEnv = unknown>
  extends DurableObject<TEnv>
  implements AgentToolChildRpc, AgentToolChildChatRpc
{
  /** How often, at most, the alarm wakes this child while a run is live. */
  protected readonly agentToolWakeIntervalMs: number = DEFAULT_CHILD_WAKE_INTERVAL_MS;
  /**
   * How many times a turn cut by an eviction, a deploy or a crash is resumed before its run ends `error`
   * ("interrupted before the child could finish"). Default 3; `0` never resumes a cut turn.
   */
  protected readonly maxRecoveryAttempts: number = DEFAULT_MAX_RECOVERY_ATTEMPTS;
  /**
   * How long a tool call that needs approval (the AI SDK's `needsApproval`) waits for an answer before it is denied
   * as `expired` and the turn goes on (the model is told). While it waits, the run is paused: no turn runs, nothing is
   * spent, and a restart loses nothing. Default 24 h.
   */
  protected readonly approvalTimeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS;
  #store: DurableObjectRunStore | undefined;
  #runner: AgentToolChildRunner | undefined;
  #chat: DirectChat | undefined;
  #dispatch: ChildDispatcher | null | undefined;
  /** The run whose turn the code running now belongs to (every turn executes inside it). */
  readonly #runContext = createRunContext<RunScope>();
  /** The reporter of code outside any run: reports nothing, warns once. */
  #outsideRun: ProgressReporter | undefined;

  /** Run one turn of `context.runId`: everything it yields goes into the run's durable log. */
  protected abstract turn(context: AgentToolTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;

  /**
   * The run's structured output, read right after its turn resolves (so store it before the turn ends). It takes one
   * context object, `getAgentToolOutput({ runId, input, output })`, not a positional `(runId)`: untyped
   * code that uses the context as the runId ends the run `error` naming this signature. Default: what the turn passed
   * to `setOutput`.
   */
  protected getAgentToolOutput?(context: AgentToolOutputContext): unknown;

  /**
   * The run's summary, read after its output. It takes one context object, `getAgentToolSummary({ runId, output, text })`,
   * not a positional `(runId, output)`: untyped code with two parameters ends the run `error` naming
   * this signature. Default: the turn's assistant text, else the output as text.
   */
  protected getAgentToolSummary?(context: AgentToolSummaryContext): string;

  /**
   * Whether to resume a cut run, asked before each attempt (within `maxRecoveryAttempts`) with the run's row
   * (`recoveryAttempts` counts the attempts so far, `startedAt` when it started). `false`, or a throw, ends the run
   * `error`. Default: always.
   */
  protected shouldKeepRecovering?(run: RunRecord): boolean;

  /**
   * Report progress of the run whose turn is running this code — for instance from the `execute` of a tool of
   * `getTools()` — with no run id to pass: the same `reportProgress` as `@agent-tools/progress`'s, one reporter per
   * turn. Ephemeral progress (`fraction`, `message`, `phase`, `data`) is coalesced (200 ms, the last value always
   * sent, `fraction: 1` at once) and reaches the parent's clients as a transient `data-agent-progress` chunk; a
   * `milestone` is a durable `data-agent-milestone` chunk in the run's log. Invalid input rejects with an
   * `AgentToolsError` (`INVALID_ARGUMENT`). Outside a run (and in a runtime without `AsyncLocalStorage`: it needs the
   * `nodejs_compat` flag) it does nothing and warns once. Each run reports for itself, also when one child object has
   * several runs live (direct chats).
   */
  protected reportProgress<TData = unknown>(
    update: ProgressUpdate<TData>,
    options?: ReportProgressOptions,
  ): Promise<void> {
    const scope = this.#runContext?.getStore();
    if (scope) return scope.reporter(update, options);
    const warning = this.#runContext ? OUTSIDE_RUN_WARNING : NO_RUN_CONTEXT_WARNING;
    // biome-ignore lint/suspicious/noConsole: SPEC §7 asks for one development warning outside a run.
    this.#outsideRun ??= createProgressReporter(null, { warn: () => console.warn(warning) });
    return this.#outsideRun(update, options);
  }

  /** The child's agentType: its class's `static agentType`, else its class name. */
  get agentType(): string {
    const type = this.constructor as { agentType?: unknown; name: string };
    return typeof type.agentType === "string" && type.agentType !== "" ? type.agentType : type.name;
  }

  /** The child's definition for the runner; override the optional hooks on the subclass instead of this. */
  protected definition(): AgentToolChildDefinition {
    const hooks = this as unknown as Partial<Pick<AgentToolChildDefinition, "formatAgentToolInput" | "getTools">>;
    const format = hooks.formatAgentToolInput?.bind(this);
    return {
      agentType: this.agentType,
      // A direct-chat run answers its message with the conversation so far before it.
      turn: async (context) => {
        const stream = await (DirectChat.isInput(context.input)
          ? this.turn({
              ...context,
              messages: [...(await this.#directChat().history(context.input)), ...context.messages],
            })
          : this.turn(context));
        // A value `reportProgress` still holds is sent before the run ends.
        const scope = this.#runContext?.getStore();
        return scope?.runId === context.runId ? scope.reporter.wrapTurnStream(stream) : stream;
      },
      formatAgentToolInput: (input, options) =>
        DirectChat.isInput(input) ? input.message : format ? format(input, options) : defaultInput(input),
      ...(this.getAgentToolOutput ? { getAgentToolOutput: this.getAgentToolOutput.bind(this) } : {}),
      ...(this.getAgentToolSummary ? { getAgentToolSummary: this.getAgentToolSummary.bind(this) } : {}),
      ...(hooks.getTools ? { getTools: hooks.getTools.bind(this) } : {}),
      // A cancelled run cancels what it dispatched itself first: the tree ends from its leaves up.
      onCancel: (runId, reason) => this.#dispatcher()?.cancelDispatchedBy(runId, reason) ?? Promise.resolve(),
      // Its budget ran out: what it dispatched wraps up too.
      onBudgetExhausted: (runId, reason) => void this.#dispatcher()?.wrapUpDispatchedBy(runId, reason),
      // Resumed after a restart: what the runs it dispatched before spent, from their rows.
      dispatchedUsage: async (runId) =>
        (await this.#dispatcher()?.registry.usageDispatchedBy({ runId })) ?? { children: [], dispatched: 0 },
      // An answer to an approval asked below the run: to what it dispatched (the run that asked takes it).
      onApprovalAnswer: async (runId, approvalId, answer) =>
        (await this.#dispatcher()?.registry.answerApprovalDispatchedBy({ runId }, approvalId, answer)) ?? false,
    };
  }

  /**
   * The agent types this child runs as tools itself (its own children), by agentType: their namespaces. Default:
   * none. With them, `this.agentTool(…)` in `getTools()` dispatches runs from the run whose turn calls the tool: each
   * run placed under it in its tree (`context.tree`), inheriting its budget, and cancelled first when it is cancelled.
   */
  protected children?(): Record<string, ChildNamespace>;

  /**
   * The W3C trace context a run this child dispatches continues (see `AgentToolRegistryOptions.traceContext`), asked
   * once per new run with `dispatcher` set to the trace context of the run whose turn dispatches. E.g.
   * `exporter.traceContext` of `@agent-tools/observability`: the run's `execute_tool` and `invoke_agent` spans open
   * under the dispatching run's. Default: none.
   */
  protected traceContext?(run: AgentToolTraceRequest): AgentToolTraceContext | null | undefined;

  /**
   * A child of this child as an AI SDK tool of its model (runId `agent-tool:<toolCallId>`), as `AgentToolParent`'s
   * `agentTool`: use it in `getTools()`, so a turn cut by an eviction re-attaches to the same run. Needs `children()`.
   */
  protected agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput> & { preliminaryResults: true },
  ): Tool<TInput, AgentToolPreliminaryOutput<TOutput>>;
  protected agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput> & { preliminaryResults?: false },
  ): Tool<TInput, AgentToolOutput<TOutput>>;
  protected agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput>,
  ): Tool<TInput, AgentToolOutput<TOutput>> | Tool<TInput, AgentToolPreliminaryOutput<TOutput>> {
    const dispatcher = this.#dispatcher();
    if (!dispatcher) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        `${this.agentType} runs no agent tools: declare its children() (their Durable Object namespaces) first`,
      );
    }
    return agentTool(dispatcher.registry, child, options as never) as unknown as Tool<TInput, AgentToolOutput<TOutput>>;
  }

  /**
   * The registry of the runs this child dispatched itself (`null` without `children()`): list them, wait for one,
   * cancel one, as a parent does its own.
   */
  protected get agentToolRegistry(): AgentToolRegistry | null {
    return this.#dispatcher()?.registry ?? null;
  }

  /** The registry of the runs this child dispatches itself (built on first use; none without `children()`). */
  #dispatcher(): ChildDispatcher | null {
    if (this.#dispatch !== undefined) return this.#dispatch;
    const children = this.children?.();
    this.#dispatch =
      children === undefined
        ? null
        : new ChildDispatcher({
            ctx: this.ctx,
            children,
            // Where the run whose turn dispatches sits, with what is left of its budget.
            position: () => {
              const scope = this.#runContext?.getStore();
              if (!scope) return null;
              const tree = scope.tree ?? { rootId: scope.runId, ancestors: [] };
              const budget = this.runner.budgetOf(scope.runId)?.remaining();
              const position = positionOf(tree, { agentType: this.agentType, runId: scope.runId });
              return budget === undefined ? position : { ...position, budget };
            },
            onDispatch: (run) => {
              const parentRun = run.tree?.ancestors.at(-1)?.runId;
              if (parentRun !== undefined) this.runner.recordDispatch(parentRun);
            },
            onUsage: (run, usage) => {
              const parentRun = run.tree?.ancestors.at(-1)?.runId;
              if (parentRun !== undefined) this.runner.recordChildUsage(parentRun, run.runId, usage);
            },
            // An approval asked below: re-published in the dispatching run's log, one level deeper, so it reaches
            // the root.
            onApproval: (run, approval) => {
              const parentRun = run.tree?.ancestors.at(-1)?.runId;
              if (parentRun === undefined) return;
              const path = [{ agentType: run.agentType, runId: run.runId }, ...approval.path];
              this.runner.appendChunk(parentRun, approvalChunk({ ...approval, path }));
            },
            ...(this.traceContext
              ? {
                  traceContext: (run: AgentToolTraceRequest) =>
                    this.traceContext?.({ ...run, dispatcher: this.#runContext?.getStore()?.trace ?? null }),
                }
              : {}),
          });
    return this.#dispatch;
  }

  /** The runner of this child's runs (created on first use). */
  protected get runner(): AgentToolChildRunner {
    if (this.#runner) return this.#runner;
    const runContext = this.#runContext;
    const runner: AgentToolChildRunner = new AgentToolChildRunner({
      definition: this.definition(),
      store: this.#runStore(),
      clock: systemClock,
      waitUntil: (promise) => this.ctx.waitUntil(promise),
      // A turn that makes its chunks without waiting would hold the object (and the start answer, and every tail)
      // until it ends: it lets the event loop turn after its first chunk and every 256.
      yieldToEventLoop: () => delay(systemClock, 0),
      maxRecoveryAttempts: this.maxRecoveryAttempts,
      ...(this.shouldKeepRecovering ? { shouldKeepRecovering: this.shouldKeepRecovering.bind(this) } : {}),
      ...(runContext
        ? {
            runScope: (runId, run, tree, trace) => {
              const reporter = createProgressReporter({
                appendChunk: (body, milestone) => runner.appendChunk(runId, body, milestone),
                publishEphemeral: (body, snapshot) => runner.publishEphemeral(runId, body, snapshot),
                clock: systemClock,
              });
              return runContext.run({ runId, tree, trace, reporter }, run);
            },
          }
        : {}),
    });
    this.#runner = runner;
    return runner;
  }

  async agentToolStart(runId: string, input: unknown, options?: ChildStartOptions): Promise<AgentToolRunInspection> {
    const inspection = await this.runner.start(runId, input, options);
    if (inspection.status === "running") await this.#armWakeup();
    return inspection;
  }

  agentToolInspect(runId: string): Promise<AgentToolRunInspection | null> {
    return this.runner.inspect(runId);
  }

  async agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>> {
    return toNdjson(this.runner.tail(runId, { afterSequence }));
  }

  /** The budget of the run's tree ran out above it: the run gets one wrap-up step, then no other. */
  async agentToolWrapUp(runId: string, reason: AgentToolBudgetExhaustion): Promise<void> {
    this.runner.wrapUp(runId, reason);
  }

  /**
   * Answer an approval asked in the run's tree (the run's own, or one below it: passed down to what it dispatched).
   * Resolves whether it reached the run that asked; that run then goes on.
   */
  async agentToolAnswerApproval(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    const answered = await this.runner.answerApproval(runId, approvalId, {
      approved: answer.approved === true,
      ...(typeof answer.reason === "string" ? { reason: answer.reason } : {}),
    });
    if (answered) await this.#armWakeup();
    return answered;
  }

  agentToolCancel(runId: string, reason?: string): Promise<void> {
    return this.runner.cancel(runId, reason);
  }

  async agentToolDestroy(runId: string): Promise<void> {
    await this.runner.destroy(runId);
    // What it dispatched itself goes with it (their children's storage included).
    await this.#dispatcher()?.clear();
    await this.ctx.storage.deleteAll();
    // deleteAll() drops the SQLite tables too; the store creates them in its constructor, so the next call needs a
    // new runner and store, not the cached ones over missing tables. Safe: destroy() awaited the run's end.
    this.#runner = undefined;
    this.#store = undefined;
    this.#dispatch = undefined;
  }

  /**
   * What run `runId` dispatched, at every depth below it, as NDJSON (the parent's AG-UI stream reads it, only while
   * someone follows): the replay, then with `follow` live frames until the run and everything below it are over.
   */
  async agentToolDescendants(runId: string, follow: boolean): Promise<ReadableStream<Uint8Array>> {
    const dispatcher = this.#dispatcher();
    if (!dispatcher) return toNdjson(emptyDescendantFeed());
    return toNdjson(
      descendantFeed({
        registry: dispatcher.registry,
        listen: (listener) => dispatcher.listen(listener),
        runId,
        follow,
        runEnded: () => drained(this.runner.tail(runId, { afterSequence: Number.MAX_SAFE_INTEGER })),
        open: descendantsThrough(dispatcher.transport),
      }),
    );
  }

  /** The run's conversation: its input message and the assistant message built from its log. */
  agentToolMessages(runId: string): Promise<UIMessage[]> {
    return this.runner.getMessages(runId);
  }

  /**
   * Direct chat, outside any tool call (the parent's `subAgent(Child, name).chat()`): answer one message of the named
   * conversation as a run of its own (durable and resumable like any run), stream its chunks as NDJSON, and store the
   * message and the answer in the conversation when the run ends. Messages of one conversation are answered in turn;
   * a message sent again is answered once.
   */
  agentToolChat(conversation: string, message: UIMessage): Promise<ReadableStream<Uint8Array>> {
    return this.#directChat().send(conversation, message);
  }

  /** A named direct conversation so far. */
  async agentToolChatMessages(conversation: string): Promise<UIMessage[]> {
    return this.#directChat().messages(conversation);
  }

  /**
   * Talk on in the conversation of run `runId` once it has ended (the parent's `POST …/sub/<agentType>/<runId>/chat`):
   * the child answers with the run's messages and what was said since before the new message, as a direct chat does.
   * The messages of one conversation are answered in turn; with `options.maxQueuedSends`, one more waiting is refused,
   * and one withdrawn before its turn (`agentToolRunChatWithdraw`) never runs.
   */
  agentToolRunChat(
    runId: string,
    message: UIMessage,
    options?: AgentToolRunChatOptions,
  ): Promise<AgentToolRunChatResult> {
    return this.#directChat().sendToRun(runId, message, options);
  }

  /** Withdraw a message into a run's conversation that still waits for its turn (its sender went away). */
  async agentToolRunChatWithdraw(requestId: string): Promise<boolean> {
    return this.#directChat().withdraw(requestId);
  }

  /** Run `runId`'s conversation: its input and answer, then what was said since through the parent. */
  agentToolRunChatMessages(runId: string): Promise<UIMessage[]> {
    return this.#directChat().runMessages(runId);
  }

  #directChat(): DirectChat {
    this.#chat ??= new DirectChat({
      ctx: this.ctx,
      runner: () => this.runner,
      start: (runId, input) => this.agentToolStart(runId, input),
      sink: getDefaultRunEventHub(),
      clock: systemClock,
    });
    return this.#chat;
  }

  /**
   * Resume the runs whose turn was cut off (the object was evicted or the runtime restarted mid-turn), expire the
   * approvals nobody answered in time, and keep the alarm armed: every `agentToolWakeIntervalMs` while a turn runs,
   * else at the next approval's expiry while runs only wait for approvals.
   */
  override async alarm(): Promise<void> {
    const live = await this.#runStore().listRuns({ status: ["running"] });
    // Inspecting a run wakes it: a run left `running` with no turn in this instance is resumed from its log, a run
    // that waits for approvals is paused again.
    for (const record of live) await this.runner.inspect(record.runId);
    await this.runner.expireApprovals(this.approvalTimeoutMs);
    await this.#armWakeup();
  }

  /**
   * Drill-in (reached only through the parent, which checks the run is its own): `GET ?runId=` answers
   * `{ runId, messages, run }` as JSON; a WebSocket upgrade receives `{ type: "child-messages", runId, messages, run }`,
   * then the run's live tail as `{ type: "child-chunk", runId, item }` frames.
   */
  override async fetch(request: Request): Promise<Response> {
    const runId = new URL(request.url).searchParams.get("runId");
    if (!runId) return new Response("runId required", { status: 400 });
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
      return Response.json(await this.drillInSnapshot(runId));
    }
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    server.accept();
    const { delivery } = await serveDrillIn(this.runner, runId, server);
    this.ctx.waitUntil(delivery);
    return webSocketUpgrade(client);
  }

  /** What the drill-in JSON route answers; subclasses may add fields. */
  protected async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    const { messages, run } = await this.runner.getConversation(runId);
    return { runId, messages, run };
  }

  #runStore(): DurableObjectRunStore {
    // The child's own ledger: one run per object, so its table needs no index.
    this.#store ??= new DurableObjectRunStore(this.ctx.storage, { indexed: false });
    return this.#store;
  }

  /** Arm the alarm for the next wake this child needs (none when no run is live). */
  async #armWakeup(): Promise<void> {
    const runner = this.runner;
    const executing = runner.liveRunIds().some((runId) => runner.isExecuting(runId));
    const at = executing
      ? systemClock.now() + this.agentToolWakeIntervalMs
      : runner.approvalDeadline(this.approvalTimeoutMs);
    if (at === null) return;
    const pending = await this.ctx.storage.getAlarm();
    if (pending === null || pending > at) await this.ctx.storage.setAlarm(at);
  }
}

/** The default input message text: a string as is, anything else as pretty JSON. */
function defaultInput(input: unknown): string {
  if (typeof input === "string") return input;
  try {
    return JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    return String(input);
  }
}
