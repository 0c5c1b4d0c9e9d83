import { guardTools } from "@agent-tools/chat/internal";
import {
  type AgentToolOptions,
  type AgentToolPreliminaryOutput,
  type AgentToolRegistry,
  type AgentToolResult,
  type AgentToolRunInfo,
  agentTool,
  type DetachedRunAgentToolResult,
  type RunStatus,
  systemClock,
} from "@agent-tools/core-runs";
import type {
  AgentToolChildReference,
  AgentToolOutput,
  ClearAgentToolRunsOptions,
  RunAgentToolOptions,
} from "@agent-tools/core-runs/internal";
import type { Tool, ToolSet, UIMessage } from "ai";
import { DEFAULT_AG_UI_OPTIONS } from "../ag-ui/ag-ui-streams.js";
import type { DetachedFinishHost, ParentRunAgentToolDetachedOptions } from "./detached-dispatch-options.js";
import { parentHookOptions } from "./lifecycle-hooks.js";
import { ParentMcp } from "./mcp-route.js";
import { AgentToolParentDefinition } from "./parent-definition.js";
import { buildParentParts, hasStoredState, type ParentParts, startUpParent } from "./parent-parts.js";
import { serveParentRequest } from "./parent-route-table.js";
import { withStaticOptions } from "./parent-static-options.js";
import { RunReadTokens } from "./run-read-tokens.js";
import { type SubAgentHandle, subAgentHandle } from "./sub-agent.js";

/**
 * A Durable Object that is a parent chat agent running child agents as tools. It wires, in one place and by itself:
 * the run registry, detached runs and start-up recovery (live runs re-attached, finish hooks a crash cut off, the
 * conversation's cut turn resumed), the event socket (run frames with replay and cursors, conversation events), the
 * durable conversation (`@agent-tools/chat`) behind the AI SDK's `WebSocketChatTransport`, drill-in to its own runs
 * only, run read tokens, and an `authorize` hook on every route. Subclasses say who the children are (`children()`)
 * and how to answer (`onChatMessage`, `getTools()`); a subclass overriding `fetch`, `alarm` or a WebSocket handler
 * calls `super`.
 *
 * @example
 * export class Assistant extends AgentToolParent<Env> {
 *   protected children() { return { Researcher: this.env.RESEARCHER }; }
 *   protected getTools() {
 *     return { research: this.agentTool(Researcher, { description: "Research a topic", inputSchema: z.object({ topic: z.string() }) }) };
 *   }
 *   protected async onChatMessage({ messages, tools, abortSignal }: ChatTurnContext) {
 *     const result = streamText({ model, messages: await convertToModelMessages(messages), tools, abortSignal });
 *     return toUIMessageStream({ stream: result.stream, tools });
 *   }
 * }
 */
export abstract class AgentToolParent<TEnv = unknown> extends AgentToolParentDefinition<TEnv> {
  #parts: ParentParts | undefined;
  #ready: Promise<void> | undefined;
  readonly #tokens = new RunReadTokens({ parentId: this.ctx.id.toString(), secret: () => this.runTokenSecret() });
  readonly #mcp = new ParentMcp(() => this.mcp());

  constructor(ctx: DurableObjectState, env: TEnv) {
    super(ctx, env);
    // A parent with stored state starts up at once, after construction (the subclass's included), in the background:
    // start-up never blocks requests. One without (a new object) writes nothing until an authorized request.
    if (hasStoredState(ctx.storage)) void Promise.resolve().then(() => this.#wired());
  }

  /** The parent's run registry. */
  get registry(): AgentToolRegistry {
    return this.#wired().registry;
  }
  /** Resolves once start-up (recovery, detached runs, the conversation's cut turn) is done. */
  whenAgentToolsReady(): Promise<void> {
    this.#wired();
    return this.#ready ?? Promise.resolve();
  }

  /**
   * A child as an AI SDK tool of this parent's model (runId `agent-tool:<toolCallId>`); with `preliminaryResults`, the
   * child's answer streams into the tool call's part. In a turn it starts its child only once the call is stored.
   */
  agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput> & { preliminaryResults: true },
  ): Tool<TInput, AgentToolPreliminaryOutput<TOutput>>;
  agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput> & { preliminaryResults?: false },
  ): Tool<TInput, AgentToolOutput<TOutput>>;
  agentTool<TInput, TOutput = never>(
    child: AgentToolChildReference,
    options: AgentToolOptions<TInput, TOutput>,
  ): Tool<TInput, AgentToolOutput<TOutput>> | Tool<TInput, AgentToolPreliminaryOutput<TOutput>> {
    const tool = agentTool(this.registry, child, options as never) as unknown as Tool<TInput, AgentToolOutput<TOutput>>;
    // Guarded here too, not only in a turn's `context.tools`: an agent tool may be given to a model some other way.
    const whenStored = (toolCallId: string) => this.#wired().chat.engine.whenToolCallStored(toolCallId);
    return guardTools({ tool } as ToolSet, { whenStored })["tool"] as typeof tool;
  }

  /** Run a child and wait for its result; with `detached`, dispatch it in the background and return at once. */
  runAgentTool<TInput>(child: AgentToolChildReference, options: RunAgentToolOptions<TInput>): Promise<AgentToolResult>;
  runAgentTool<TInput, TMethod extends string = never>(
    this: DetachedFinishHost<TMethod>,
    child: AgentToolChildReference,
    options: ParentRunAgentToolDetachedOptions<TInput, TMethod>,
  ): Promise<DetachedRunAgentToolResult>;
  runAgentTool<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolOptions<TInput> & { detached?: ParentRunAgentToolDetachedOptions<TInput, string>["detached"] },
  ): Promise<AgentToolResult | DetachedRunAgentToolResult> {
    const { detached, ...rest } = options;
    if (detached === undefined) return this.registry.runAgentTool(child, rest);
    return this.#wired().detached.runAgentToolDetached(child, { ...rest, detached } as never);
  }

  /** Cancel a run (awaited or detached); idempotent. */
  cancelAgentTool(runId: string, reason?: string): Promise<boolean> {
    return this.registry.cancelAgentTool(runId, reason);
  }
  /** Forget runs (all, by status or age); live ones are cancelled first. */
  clearAgentToolRuns(options?: ClearAgentToolRunsOptions): Promise<{ runIds: string[] }> {
    return this.registry.clearAgentToolRuns(options);
  }
  /** Every retained run, oldest first (optionally by status). */
  listAgentToolRuns(options?: { status?: readonly RunStatus[] }): Promise<AgentToolRunInfo[]> {
    return this.registry.listAgentToolRuns(options);
  }
  /** True when this parent created run `runId` of `agentType` (always `await` it). */
  hasAgentToolRun(agentType: string, runId: string): Promise<boolean> {
    return this.registry.hasAgentToolRun(agentType, runId);
  }
  /** The stored conversation (a turn in flight is there with its user message; its reply comes by resuming it). */
  messages(): Promise<UIMessage[]> {
    return this.#wired().chat.engine.messages();
  }
  /** Send a user message from code and wait for the stored answer (`ChatLimitError` past a limit). */
  sendChatMessage(message: string | UIMessage): Promise<UIMessage | null> {
    return this.#wired().chat.sendMessage(message);
  }
  /** Stop the conversation's turn `turnId` for every tab (a later turn is left alone); returns whether it did. */
  stopChatTurn(turnId: string): boolean {
    return this.#wired().chat.engine.stop(turnId);
  }
  /** A named conversation with a child, outside any tool call (the child must offer direct chat). */
  subAgent(child: AgentToolChildReference, name: string): SubAgentHandle {
    return subAgentHandle(this.#wired().transport, child, name);
  }
  /** Sign a token to drill in to this parent's run `runId` (of `agentType`) until it expires, or the run is cleared. */
  createRunReadToken(agentType: string, runId: string, options: { ttlMs?: number } = {}) {
    return this.#tokens.sign(this.registry, agentType, runId, options.ttlMs);
  }

  override async fetch(request: Request): Promise<Response> {
    return serveParentRequest(request, {
      tokens: this.#tokens,
      parts: () => this.#wired(),
      clock: systemClock,
      mcp: this.#mcp,
      authorize: (incoming, route) => this.authorize(incoming, route),
      onRequest: (incoming, route) => this.onRequest(incoming, route),
      agUi: { ...DEFAULT_AG_UI_OPTIONS, ...this.agUiOptions() },
    });
  }
  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const { chat, events, awake, registry } = this.#wired();
    if (chat.isChatSocket(ws)) awake.track(chat.receive(ws, message));
    // On the events socket a client only asks for a page of older runs (paged replay).
    else if (events.isEventSocket(ws)) awake.track(events.receive(ws, message, registry));
  }
  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.#parts?.chat.closed(ws, code);
  }
  override async webSocketError(ws: WebSocket): Promise<void> {
    this.#parts?.chat.disconnect(ws);
  }
  /**
   * The detached runs' reconcile tick, the keep-awake wake-up and a log retention pass when one is due. A subclass
   * overriding it calls `super.alarm()`.
   */
  override async alarm(): Promise<void> {
    await this.#wired().detached.tick();
    this.#wired().awake.wokeUp();
    await this.#wired().retention.tick();
  }

  /** The parts, built on first use (after the subclass's constructor, so its fields and bindings are there). */
  #wired(): ParentParts {
    if (this.#parts) return this.#parts;
    const { hooks, formatters } = parentHookOptions(this);
    const detached = { ...formatters, ...this.detachedOptions() };
    const options = withStaticOptions(this.constructor, { recovery: this.recoveryOptions(), detached });
    this.#parts = buildParentParts({
      ctx: this.ctx,
      host: this,
      children: this.children(),
      wakeIntervalMs: this.agentToolWakeIntervalMs,
      stream: this.onChatMessage?.bind(this),
      tools: () => this.getTools(),
      registryOptions: { hooks, ...this.registryOptions() },
      detachedOptions: options.detached,
      recoveryOptions: options.recovery,
      chatOptions: this.chatOptions(),
      eventSocketOptions: this.eventSocketOptions(),
      retainLogs: this.retainLogs(),
    });
    // Start-up follows wiring, after construction: whatever wired the parent first (a request, an alarm, a call).
    this.#ready = Promise.resolve().then(() => startUpParent(this.#wired(), this.#tokens));
    this.ctx.waitUntil(this.#ready.catch(() => undefined));
    return this.#parts;
  }
}
