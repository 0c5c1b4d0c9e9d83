import type { ChildStartOptions } from "@agent-tools/core-runs";
import {
  type AgentToolChildDefinition,
  type AgentToolChildRunner,
  type AgentToolOptions,
  type AgentToolPreliminaryOutput,
  type AgentToolRegistry,
  type AgentToolRunInspection,
  agentTool,
} from "@agent-tools/core-runs";
import type { AgentToolChildReference, AgentToolOutput } from "@agent-tools/core-runs/internal";
import type { AgentToolApprovalAnswer, AgentToolBudgetExhaustion } from "@agent-tools/core-runs/protocol";
import type { ProgressUpdate, ReportProgressOptions } from "@agent-tools/progress/internal";
import type { Tool, UIMessage } from "ai";
import type {
  AgentToolChildChatRpc,
  AgentToolChildRpc,
  AgentToolRunChatOptions,
  StartTailAnswer,
} from "../adapters/durable-object-child-transport.js";
import { startTailAnswer, toNdjsonTail } from "../adapters/ndjson-tail.js";
import { AgentToolChildDefinitionBase } from "./child-definition.js";
import { ChildParts, type ChildPartsHost } from "./child-parts.js";
import { type ChildHooks, childRunDefinition } from "./child-run-definition.js";
import { serveDrillInRequest } from "./drill-in-route.js";

export { DEFAULT_APPROVAL_TIMEOUT_MS, DEFAULT_CHILD_WAKE_INTERVAL_MS } from "./child-definition.js";

/**
 * A Durable Object that is one child agent: it hosts an `AgentToolChildRunner` over its own SQLite storage and offers
 * the parent the RPC surface `DurableObjectChildTransport` calls (start, inspect, tail, cancel, destroy, messages),
 * plus a drill-in route (its own conversation, live). One object per `(parent, agentType, runId)`.
 *
 * It wakes itself: while a run is live it keeps an alarm armed, so a turn cut by an eviction or a deploy goes on
 * from its journaled steps on the next alarm, without waiting for the parent to ask. A subclass that overrides
 * `alarm()` must call `super.alarm()`. What a subclass says (`turn()`, `static agentType`, its tools and hooks) is
 * `AgentToolChildDefinitionBase`; this class only composes (`ChildParts`).
 *
 * @example
 * export class Researcher extends AgentToolChild<Env> {
 *   static readonly agentType = "Researcher";
 *   async turn({ messages, tools, abortSignal }: AgentToolTurnContext) {
 *     const result = streamText({ model: this.env.MODEL, messages: await convertToModelMessages(messages), tools, abortSignal });
 *     return result.toUIMessageStream();
 *   }
 * }
 */
export abstract class AgentToolChild<TEnv = unknown>
  extends AgentToolChildDefinitionBase<TEnv>
  implements AgentToolChildRpc, AgentToolChildChatRpc
{
  // The parts read this object's members (its definition, children, limits, hooks) when they make what uses them: a
  // subclass's fields are set by then. No function is made per object here (see `ChildParts`).
  readonly #parts: ChildParts = new ChildParts(this as unknown as ChildPartsHost);

  /** How often this child wakes while a run is live, and how long an approval waits (read when used). */
  #wakes(): { wakeIntervalMs: number; approvalTimeoutMs: number } {
    return { wakeIntervalMs: this.agentToolWakeIntervalMs, approvalTimeoutMs: this.approvalTimeoutMs };
  }

  /**
   * Report progress of the run whose turn runs this code (its turn, or a tool of it), as `@agent-tools/progress`'s
   * `reportProgress` (a `milestone` is durable in the run's log). Outside a run (or without the `nodejs_compat` flag's
   * `AsyncLocalStorage`) it does nothing and warns once.
   */
  protected reportProgress<TData = unknown>(update: ProgressUpdate<TData>, options?: ReportProgressOptions) {
    return this.#parts.reportProgress(update, options);
  }

  /** The child's definition for the runner; override the optional hooks on the subclass instead of this. */
  protected definition(): AgentToolChildDefinition {
    return childRunDefinition(this as unknown as ChildHooks, this.#parts);
  }

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
    return agentTool(this.#parts.registry(), child, options as never) as unknown as Tool<
      TInput,
      AgentToolOutput<TOutput>
    >;
  }

  /** The registry of the runs this child dispatched itself (`null` without `children()`). */
  protected get agentToolRegistry(): AgentToolRegistry | null {
    return this.#parts.dispatcher()?.registry ?? null;
  }

  /** The runner of this child's runs (created on first use). */
  protected get runner(): AgentToolChildRunner {
    return this.#parts.runner;
  }

  async agentToolStart(runId: string, input: unknown, options?: ChildStartOptions): Promise<AgentToolRunInspection> {
    const inspection = await this.runner.start(runId, input, options);
    if (inspection.status === "running") await this.#parts.armWakeup(this.#wakes());
    return inspection;
  }

  /**
   * `agentToolStart`, then `agentToolTail` from the run's first entry: the parent's one round trip to start a run. To a
   * parent that reads bytes (`answer.bytes`), a run ended by then is answered whole as one `Uint8Array`.
   */
  async agentToolStartTail(
    runId: string,
    input: unknown,
    options?: ChildStartOptions,
    answer?: StartTailAnswer,
  ): Promise<ReadableStream<Uint8Array> | Uint8Array> {
    // The runner answers once the event loop has turned after the start: an instant run is over by then.
    const tail = await this.runner.startTail(runId, input, options);
    if (this.runner.isLive(runId)) await this.#parts.armWakeupNow(this.#wakes());
    return startTailAnswer(tail, answer);
  }

  agentToolInspect(runId: string): Promise<AgentToolRunInspection | null> {
    return this.runner.inspect(runId);
  }

  async agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>> {
    return toNdjsonTail(this.runner.tail(runId, { afterSequence }));
  }

  /** The budget of the run's tree ran out above it: one wrap-up step, then no other. */
  async agentToolWrapUp(runId: string, reason: AgentToolBudgetExhaustion): Promise<void> {
    this.runner.wrapUp(runId, reason);
  }

  /** Answer an approval asked in the run's tree (its own, or one below it); resolves whether it reached the asker. */
  async agentToolAnswerApproval(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    const answered = await this.#parts.answerApproval(runId, approvalId, answer);
    if (answered) await this.#parts.armWakeup(this.#wakes());
    return answered;
  }

  agentToolCancel(runId: string, reason?: string): Promise<void> {
    return this.runner.cancel(runId, reason);
  }

  /** Destroy the run and this object's storage, what the run dispatched (and its children's storage) with it. */
  agentToolDestroy(runId: string): Promise<void> {
    return this.#parts.destroy(runId);
  }

  /** What run `runId` dispatched, at every depth below it, as NDJSON (the parent's AG-UI stream, while followed). */
  async agentToolDescendants(runId: string, follow: boolean): Promise<ReadableStream<Uint8Array>> {
    return this.#parts.descendants(runId, follow);
  }

  /** The run's conversation: its input message and the assistant message built from its log. */
  agentToolMessages(runId: string): Promise<UIMessage[]> {
    return this.runner.getMessages(runId);
  }

  /** Direct chat outside any tool call: one message of the named conversation, answered as a run (NDJSON). */
  agentToolChat(conversation: string, message: UIMessage): Promise<ReadableStream<Uint8Array>> {
    return this.#parts.directChat.send(conversation, message);
  }

  /** A named direct conversation so far. */
  async agentToolChatMessages(conversation: string): Promise<UIMessage[]> {
    return this.#parts.directChat.messages(conversation);
  }

  /** Talk on in finished run `runId`'s conversation (`POST …/sub/<agentType>/<runId>/chat`; see `DirectChat`). */
  agentToolRunChat(runId: string, message: UIMessage, options?: AgentToolRunChatOptions) {
    return this.#parts.directChat.sendToRun(runId, message, options);
  }

  /** Withdraw a message into a run's conversation that still waits for its turn (its sender went away). */
  async agentToolRunChatWithdraw(requestId: string): Promise<boolean> {
    return this.#parts.directChat.withdraw(requestId);
  }

  /** Run `runId`'s conversation: its input and answer, then what was said since through the parent. */
  agentToolRunChatMessages(runId: string): Promise<UIMessage[]> {
    return this.#parts.directChat.runMessages(runId);
  }

  /** Resume cut runs, expire unanswered approvals, and keep the alarm armed (see `ChildParts.wakeUp`). */
  override async alarm(): Promise<void> {
    await this.#parts.wakeUp(this.#wakes());
  }

  /** Drill-in (reached only through the parent): `GET ?runId=` as JSON, or a WebSocket of the run live. */
  override async fetch(request: Request): Promise<Response> {
    return serveDrillInRequest(request, {
      runner: this.runner,
      snapshot: (runId) => this.drillInSnapshot(runId),
      waitUntil: (work) => this.ctx.waitUntil(work),
    });
  }

  /** What the drill-in JSON route answers; subclasses may add fields. */
  protected async drillInSnapshot(runId: string): Promise<Record<string, unknown>> {
    const { messages, run } = await this.runner.getConversation(runId);
    return { runId, messages, run };
  }
}
