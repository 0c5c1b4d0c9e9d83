import {
  type AgentToolChildDefinition,
  AgentToolChildRunner,
  type AgentToolRegistry,
  AgentToolsError,
  type AgentToolTree,
  delay,
  getDefaultRunEventHub,
  systemClock,
} from "@agent-tools/core-runs";
import { type AgentToolTraceRequest, bindChildRuns, type RunRecord } from "@agent-tools/core-runs/internal";
import type { AgentToolApprovalAnswer, AgentToolTraceContext } from "@agent-tools/core-runs/protocol";
import { createProgressReporter } from "@agent-tools/progress";
import type { ProgressReporter, ProgressUpdate, ReportProgressOptions } from "@agent-tools/progress/internal";
import type { ChildNamespace } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { DurableObjectWakeupScheduler } from "../adapters/durable-object-wakeup-scheduler.js";
import { toNdjson } from "../adapters/ndjson.js";
import { descendantFeed, descendantsThrough, drained, emptyDescendantFeed } from "../ag-ui/descendant-feed.js";
import { ChildDispatcher } from "./child-dispatcher.js";
import { DirectChat } from "./direct-chat.js";
import { type RunContext, sharedRunContext } from "./run-context.js";

/** The run a turn's code works for, its place in its tree, and its progress reporter (one per turn). */
type RunScope = {
  /** The parts of the object whose run it is (the run context is the isolate's, shared by every object). */
  parts: ChildParts;
  runId: string;
  tree: AgentToolTree | null;
  trace: AgentToolTraceContext | null;
  reporter: ProgressReporter;
};

const NO_CHILDREN = "runs no agent tools: declare its children() (their Durable Object namespaces) first";
const OUTSIDE_RUN_WARNING =
  "this.reportProgress was called outside a run of this child (not from its turn nor a tool of it): progress is ignored.";
const NO_RUN_CONTEXT_WARNING =
  "this.reportProgress needs the nodejs_compat (or nodejs_als) compatibility flag: without AsyncLocalStorage the " +
  "child cannot tell which run reports, so progress is ignored.";

/** How often a child with a turn under way wakes, and how long an approval waits before it expires. */
type WakeOptions = { wakeIntervalMs: number; approvalTimeoutMs: number };

/**
 * What a child's parts are built from: its object (an `AgentToolChild`), whose members are read when a part is made
 * (a subclass's fields are set by then). Its methods are called on it: the parts make no function per object.
 */
export type ChildPartsHost = {
  readonly ctx: DurableObjectState;
  readonly agentType: string;
  readonly maxRecoveryAttempts: number;
  /** The definition the runner runs (the subclass's, its hooks down the tree added here). */
  definition(): AgentToolChildDefinition;
  children?(): Record<string, ChildNamespace>;
  traceContext?(run: AgentToolTraceRequest): AgentToolTraceContext | null | undefined;
  shouldKeepRecovering?(run: RunRecord): boolean;
  /** Start a run (the object's `agentToolStart`, which keeps its alarm armed). */
  agentToolStart(runId: string, input: unknown): Promise<unknown>;
};

/** Let the event loop turn (a 0 ms timer): one function for every child's runner. */
const yieldToEventLoop = () => delay(systemClock, 0);

/**
 * A child's parts, wired on first use: its run ledger and turns (`AgentToolChildRunner` over its SQLite storage), the
 * registry of what its runs dispatch bound to their tree (core-runs' `bindChildRuns`: position, budget, approvals
 * from below re-published idempotently, cancel, wrap-up, answers and usage down), which run the code running now
 * works for (an `AsyncLocalStorage` per run: progress and dispatches know their run), and its direct chat. Nothing
 * here decides anything, and nothing is made before it is needed: a child object is made per run and kept in memory
 * a while after it, so what it holds once its run has ended is what a fan-out's thousand children cost.
 * @internal
 */
export class ChildParts {
  readonly #child: ChildPartsHost;
  #store: DurableObjectRunStore | undefined;
  #runner: AgentToolChildRunner | undefined;
  #dispatch: ChildDispatcher | null | undefined;
  #chat: DirectChat | undefined;
  /** The object's one alarm, armed as the parent's is: never postponing an earlier wake-up. */
  #wakeups: DurableObjectWakeupScheduler | undefined;
  /** The reporter of code outside any run: reports nothing, warns once. */
  #outsideRun: ProgressReporter | undefined;
  #tree: ReturnType<typeof bindChildRuns> | undefined;

  constructor(child: ChildPartsHost) {
    this.#child = child;
  }

  /** The run of this object the code running now works for, if any. */
  #currentRun(): RunScope | undefined {
    const scope = this.#context()?.getStore();
    return scope?.parts === this ? scope : undefined;
  }

  /** Which run the code running now works for (the isolate's one `AsyncLocalStorage`; none without the flag). */
  #context(): RunContext<RunScope> | undefined {
    return sharedRunContext<RunScope>();
  }

  /** The binding of this child's runs to what they dispatch (core-runs' `bindChildRuns`), made when first used. */
  #binding(): ReturnType<typeof bindChildRuns> {
    this.#tree ??= bindChildRuns({
      runner: () => this.runner,
      agentType: this.#child.agentType,
      currentRun: () => this.#currentRun() ?? null,
    });
    return this.#tree;
  }

  /** The definition's hooks that go down the tree (through the registry of what its runs dispatched). */
  treeHooks(): ReturnType<ReturnType<typeof bindChildRuns>["definitionHooks"]> {
    return this.#binding().definitionHooks(() => this.dispatcher()?.registry ?? null);
  }

  /** The child's own ledger: one run per object, so it needs no index, nor a runs table (each run's row is a row of its log table). */
  get store(): DurableObjectRunStore {
    this.#store ??= new DurableObjectRunStore(this.#child.ctx.storage, { indexed: false, runsInLog: true });
    return this.#store;
  }

  get runner(): AgentToolChildRunner {
    if (this.#runner) return this.#runner;
    const child = this.#child;
    const { ctx } = child;
    this.#runner = new AgentToolChildRunner({
      definition: child.definition(),
      store: this.store,
      clock: systemClock,
      waitUntil: ctx.waitUntil.bind(ctx),
      // A turn that makes its chunks without waiting would hold the object (and the start answer, and every tail)
      // until it ends: it lets the event loop turn after its first 64 chunks, 256 later, then every 1 024.
      yieldToEventLoop,
      maxRecoveryAttempts: child.maxRecoveryAttempts,
      ...(child.shouldKeepRecovering ? { shouldKeepRecovering: child.shouldKeepRecovering.bind(child) } : {}),
      ...(this.#context() ? { runScope: this.#runScope.bind(this) } : {}),
    });
    return this.#runner;
  }

  /** Execute `run` (everything a turn of `runId` does) in the run's scope, with a progress reporter of its own. */
  #runScope<TResult>(
    runId: string,
    run: () => TResult,
    tree: AgentToolTree | null,
    trace: AgentToolTraceContext | null,
  ): TResult {
    // The runner that runs it (none once the child is destroyed: the run is not live anywhere then).
    const runner = this.#runner;
    const reporter = createProgressReporter({
      appendChunk: (body, milestone) => runner?.appendChunk(runId, body, milestone) ?? null,
      publishEphemeral: (body, snapshot) => runner?.publishEphemeral(runId, body, snapshot) ?? false,
      clock: systemClock,
    });
    const context = this.#context() as RunContext<RunScope>;
    return context.run({ parts: this, runId, tree, trace, reporter }, run);
  }

  /** The registry of the runs this child dispatches itself (built on first use; none without `children()`). */
  dispatcher(): ChildDispatcher | null {
    if (this.#dispatch !== undefined) return this.#dispatch;
    const child = this.#child;
    const children = child.children?.();
    this.#dispatch =
      children === undefined
        ? null
        : new ChildDispatcher({
            ctx: child.ctx,
            children,
            tree: this.#binding().registryOptions(),
            ...(child.traceContext
              ? {
                  traceContext: (run: AgentToolTraceRequest) =>
                    child.traceContext?.({ ...run, dispatcher: this.#currentRun()?.trace ?? null }),
                }
              : {}),
          });
    return this.#dispatch;
  }

  /** The registry of what this child's runs dispatch; throws when the child declares no `children()`. */
  registry(): AgentToolRegistry {
    const registry = this.dispatcher()?.registry;
    if (!registry) throw new AgentToolsError("INVALID_ARGUMENT", `${this.#child.agentType} ${NO_CHILDREN}`);
    return registry;
  }

  /** Answer an approval asked in the run's tree, as the parent sent it over RPC (only its known fields taken). */
  answerApproval(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    const reason = typeof answer.reason === "string" ? { reason: answer.reason } : {};
    return this.runner.answerApproval(runId, approvalId, { approved: answer.approved === true, ...reason });
  }

  /** Report progress of the run whose turn runs this code (see `AgentToolChild.reportProgress`). */
  reportProgress<TData>(update: ProgressUpdate<TData>, options?: ReportProgressOptions): Promise<void> {
    const scope = this.#currentRun();
    if (scope) return scope.reporter(update, options);
    const warning = this.#context() ? OUTSIDE_RUN_WARNING : NO_RUN_CONTEXT_WARNING;
    // biome-ignore lint/suspicious/noConsole: SPEC §7 asks for one development warning outside a run.
    this.#outsideRun ??= createProgressReporter(null, { warn: () => console.warn(warning) });
    return this.#outsideRun(update, options);
  }

  /**
   * A turn of run `runId` is over: what its `reportProgress` still holds goes out (the run is still live), and the
   * reporter reports nothing more. The turn's stream itself is read as it is, with no stream around it.
   */
  endTurn(runId: string): void {
    const scope = this.#currentRun();
    if (scope?.runId !== runId) return;
    scope.reporter.flush();
    scope.reporter.dispose();
  }

  get directChat(): DirectChat {
    this.#chat ??= new DirectChat({
      ctx: this.#child.ctx,
      runner: () => this.runner,
      start: (runId, input) => this.#child.agentToolStart(runId, input),
      sink: getDefaultRunEventHub(),
      clock: systemClock,
    });
    return this.#chat;
  }

  /**
   * What run `runId` dispatched, at every depth below it, as NDJSON (the parent's AG-UI stream reads it, only while
   * someone follows): the replay, then with `follow` live frames until the run and everything below it are over.
   */
  descendants(runId: string, follow: boolean): ReadableStream<Uint8Array> {
    const dispatcher = this.dispatcher();
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

  /**
   * Resume the runs whose turn was cut off, expire the approvals nobody answered in time, and keep the alarm armed:
   * every `wakeIntervalMs` while a turn runs, else at the next approval's expiry while runs only wait.
   */
  async wakeUp(options: WakeOptions): Promise<void> {
    // Inspecting a run wakes it: a run left `running` with no turn here goes on from its log (or waits again).
    for (const record of await this.store.listRuns({ status: ["running"] })) await this.runner.inspect(record.runId);
    await this.runner.expireApprovals(options.approvalTimeoutMs);
    await this.armWakeup(options);
  }

  /**
   * Arm the alarm for the next wake this child needs (none when no run is live), decided once the event loop has
   * turned: a turn that makes its chunks without waiting (a stub, a cached answer, an instant model) has ended by
   * then, its terminal written in the stretch that started it, so its run arms no alarm — and its start's answer
   * does not wait for an alarm's scheduling (it answers with the whole run). A turn still going then (waiting on its
   * model, or letting the loop turn in a long stream) is armed for, as before.
   */
  async armWakeup(options: WakeOptions): Promise<void> {
    await delay(systemClock, 0);
    await this.armWakeupNow(options);
  }

  /**
   * `armWakeup`, decided now: where the event loop has turned since the start already (`startTail` let it turn). A
   * second turn of the loop there would let a long instant stream run its next 256 chunks before the start answers.
   */
  armWakeupNow(options: WakeOptions): Promise<void> {
    const runner = this.runner;
    this.#wakeups ??= new DurableObjectWakeupScheduler(this.#child.ctx.storage);
    return this.#wakeups.wakeAt(() => {
      const executing = runner.liveRunIds().some((runId) => runner.isExecuting(runId));
      return executing
        ? systemClock.now() + options.wakeIntervalMs
        : runner.approvalDeadline(options.approvalTimeoutMs);
    });
  }

  /** Destroy run `runId` and the object's storage, what its runs dispatched (their children's storage) with it. */
  async destroy(runId: string): Promise<void> {
    await this.runner.destroy(runId);
    await this.dispatcher()?.clear();
    await this.#child.ctx.storage.deleteAll();
    // deleteAll() drops the SQLite tables too: the next use builds new parts over new tables.
    this.#runner = undefined;
    this.#store = undefined;
    this.#dispatch = undefined;
  }
}
