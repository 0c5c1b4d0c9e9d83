import { DurableObject } from "cloudflare:workers";
import {
  type AgentToolChildReference,
  type AgentToolHooks,
  type AgentToolLifecycleResult,
  type AgentToolMilestone,
  type AgentToolOptions,
  type AgentToolOutput,
  type AgentToolPreliminaryOutput,
  type AgentToolProgressSnapshot,
  AgentToolRegistry,
  type AgentToolRegistryOptions,
  type AgentToolResult,
  type AgentToolRunInfo,
  AgentToolsError,
  type AgentToolTurnStream,
  agentTool,
  type ClearAgentToolRunsOptions,
  type DetachedRunAgentToolResult,
  type RunAgentToolOptions,
  type RunStatus,
  resolveAgentType,
  systemClock,
  toAgentToolsError,
} from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_CURSORS_PARAM,
  type AgentChatEvent,
  encodeAgentChatEventFrame,
  encodeAgentToolFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import {
  createDetachedRuns,
  type DetachedOptions,
  type DetachedRuns,
  type DetachedRunsOptions,
} from "@agent-tools/detached";
import { type RecoverAgentToolRunsOptions, recoverAgentToolRuns } from "@agent-tools/recovery";
import type { Tool, ToolSet, UIMessage, UIMessageChunk } from "ai";
import { type ChildNamespace, DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { DurableObjectWakeupScheduler } from "../adapters/durable-object-wakeup-scheduler.js";
import { fromNdjson } from "../adapters/ndjson.js";
import {
  importRunReadTokenKey,
  type RunReadTokenKey,
  runReadTokenStatus,
  signRunReadToken,
  verifyRunReadToken,
} from "../auth/run-read-token.js";
import { DurableObjectChatStore } from "../chat/chat-store.js";
import { type ChatTurnContext, ChatTurns } from "../chat/chat-turns.js";
import { ParentChatHost } from "../chat/parent-chat-host.js";
import { runAfterCallStored } from "../chat/stored-call-tools.js";
import { DEFAULT_CHAT_WRITE_INTERVAL_MS } from "../chat/turn-log-writer.js";
import { webSocketUpgrade } from "../websocket-upgrade.js";
import { readCancelRequest } from "./cancel-request.js";
import { handleChatSocketMessage } from "./chat-socket.js";
import { KeepAwake } from "./keep-awake.js";
import { type AgentToolParentRoute, parseParentRoute } from "./parent-routes.js";

const EVENTS_TAG = "agent-tools:events";
const CHAT_TAG = "agent-tools:chat";

/** Default lifetime of a run read token: 1 h. */
export const DEFAULT_RUN_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The binding a parent reads its run token secret from, unless `runTokenSecret()` says otherwise. */
export const RUN_TOKEN_SECRET_BINDING = "AGENT_TOOLS_RUN_TOKEN_SECRET";

/**
 * Default `agentToolWakeIntervalMs`: while the parent has work in flight (a chat turn, a run it follows, a delivery),
 * its alarm is never further away than this (10 s).
 */
export const DEFAULT_PARENT_WAKE_INTERVAL_MS = 10_000;

type Components = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  detached: DetachedRuns<object>;
  chatStore: DurableObjectChatStore;
  turns: ChatTurns;
};

/** A named child conversation outside any tool call (the seed's `subAgent(Child, name)`). */
export type SubAgentHandle = {
  /** Send the child one message and stream its answer (the child keeps the conversation). */
  chat(message: string | UIMessage): Promise<ReadableStream<UIMessageChunk>>;
  /** The conversation so far. */
  messages(): Promise<UIMessage[]>;
};

/**
 * A Durable Object that is a parent chat agent running child agents as tools: the registry, detached runs and
 * recovery wired in one place, started by itself (recovery of live runs, detached runs followed again, finish hooks
 * a crash cut off, the conversation's cut turn resumed), the event socket (agent-tool frames with replay and cursors,
 * conversation events), a durable conversation behind the AI SDK's `WebSocketChatTransport`, drill-in to its own
 * runs only (404 for any other, and no child is created), run read tokens, and an authorization hook on every route.
 *
 * Subclasses say who the children are (`children()`), how to answer (`onChatMessage`, with `getTools()` for the tools
 * a cut turn must run again), and may override `authorize`, the lifecycle hooks and the option methods. A subclass
 * that overrides `fetch`, `alarm` or the WebSocket handlers must call `super`.
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
export abstract class AgentToolParent<TEnv = unknown> extends DurableObject<TEnv> {
  #components: Components | undefined;
  #tokenKeyPromise: Promise<RunReadTokenKey> | undefined;
  readonly #ready: Promise<void>;
  #scheduler: DurableObjectWakeupScheduler | undefined;
  #keepAwake: KeepAwake | undefined;

  /**
   * While the parent has work in flight (a chat turn, a run it follows, a delivery), its alarm wakes it at least this
   * often, so that a runtime that dies in the middle (a crash, an eviction, a deploy) starts it again by itself:
   * start-up then resumes the cut turn, re-attaches the runs and takes back the delivery, without waiting for a
   * client or a request. `0` turns it off (the parent then starts again on its next request or scheduled alarm).
   */
  protected readonly agentToolWakeIntervalMs: number = DEFAULT_PARENT_WAKE_INTERVAL_MS;

  constructor(ctx: DurableObjectState, env: TEnv) {
    super(ctx, env);
    // After construction (the subclass's included), in the background: start-up never blocks requests.
    this.#ready = Promise.resolve().then(() => this.#startUp());
    ctx.waitUntil(this.#ready.catch(() => undefined));
  }

  /** The child agent types this parent runs, by agentType (a class's `static agentType`): their namespaces. */
  protected abstract children(): Record<string, ChildNamespace>;

  /** Answer one turn of the conversation: a stream of `UIMessageChunk`s (e.g. `toUIMessageStream` of `streamText`). */
  protected abstract onChatMessage(context: ChatTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;

  /**
   * The tools of the conversation; a turn gets them as `context.tools`, each started only once its call is stored, and
   * a turn cut while a tool ran runs it again with these (same `toolCallId`).
   */
  protected getTools(): ToolSet | undefined {
    return undefined;
  }

  /**
   * Refuse a request by returning a response (e.g. 401). Called for every route and WebSocket upgrade, except a
   * drill-in that carries a run read token (checked instead). Default: allow everything.
   */
  protected authorize(
    _request: Request,
    _route: AgentToolParentRoute,
  ): Response | undefined | Promise<Response | undefined> {
    return undefined;
  }

  /** A request to a path the parent does not serve itself (after `authorize`). Default: 404. */
  protected onRequest(_request: Request, _route: AgentToolParentRoute): Response | Promise<Response> {
    return new Response("Not found", { status: 404 });
  }

  /** Options of the registry (cap, input limit, retry policy, …). */
  protected registryOptions(): Partial<Omit<AgentToolRegistryOptions, "store" | "transport" | "hooks" | "broadcast">> {
    return {};
  }

  /** Options of start-up recovery (re-attach windows, deadlines). */
  protected recoveryOptions(): RecoverAgentToolRunsOptions {
    return {};
  }

  /** Options of detached runs (budgets, delivery, formatting). */
  protected detachedOptions(): Partial<
    Omit<DetachedRunsOptions<object>, "registry" | "host" | "scheduler" | "chatHost">
  > {
    return {};
  }

  /** The secret run read tokens are signed with (default: the `AGENT_TOOLS_RUN_TOKEN_SECRET` binding). */
  protected runTokenSecret(): string | undefined {
    const value = (this.env as Record<string, unknown> | undefined)?.[RUN_TOKEN_SECRET_BINDING];
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  /** Lifecycle hooks (the seed's names): override to observe runs. Each is isolated: a throwing hook stops nothing. */
  onAgentToolStart?(run: AgentToolRunInfo): void | Promise<void>;
  onAgentToolFinish?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void | Promise<void>;
  onProgress?(run: AgentToolRunInfo, snapshot: AgentToolProgressSnapshot): void | Promise<void>;
  /** The text told to the chat when a detached run with `notify` finishes; an empty string sends nothing. */
  formatDetachedCompletion?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): string;
  /** The text told to the chat when a detached run reaches a named milestone; an empty string sends nothing. */
  formatDetachedMilestone?(run: AgentToolRunInfo, milestone: AgentToolMilestone): string;

  /** The parent's run registry. */
  get registry(): AgentToolRegistry {
    return this.#parts().registry;
  }

  /** Resolves once start-up (recovery, detached runs, the conversation's cut turn) is done. */
  whenAgentToolsReady(): Promise<void> {
    return this.#ready;
  }

  /**
   * A child as an AI SDK tool of this parent's model (runId `agent-tool:<toolCallId>`). With `preliminaryResults`,
   * the child's answer streams into the tool call's part of the conversation (a page with plain `useChat` shows it).
   * Used in a turn of the conversation, it starts its child only once the tool call is stored, so a crash cannot
   * leave a child running for a call the resumed turn does not know (it would decide a new call, and start a second
   * child).
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
    const whenStored = (toolCallId: string) => this.#parts().turns.whenToolCallStored(toolCallId);
    const tool =
      options.preliminaryResults === true
        ? agentTool(this.registry, child, { ...options, preliminaryResults: true })
        : agentTool(this.registry, child, { ...options, preliminaryResults: false });
    // Guarded here too, not only in a turn's `context.tools`: an agent tool may be given to a model some other way.
    return runAfterCallStored({ tool } as ToolSet, whenStored)["tool"] as typeof tool;
  }

  /**
   * Run a child and wait for its result; or, with `detached`, dispatch it in the background and return at once (its
   * `onFinish` names a method of this parent, called with the result even after an eviction).
   */
  runAgentTool<TInput>(child: AgentToolChildReference, options: RunAgentToolOptions<TInput>): Promise<AgentToolResult>;
  runAgentTool<TSelf extends AgentToolParent<TEnv>, TInput>(
    this: TSelf,
    child: AgentToolChildReference,
    options: Omit<RunAgentToolOptions<TInput>, "signal"> & { detached: true | DetachedOptions<TSelf> },
  ): Promise<DetachedRunAgentToolResult>;
  runAgentTool<TInput>(
    child: AgentToolChildReference,
    options: RunAgentToolOptions<TInput> & { detached?: true | DetachedOptions<object> },
  ): Promise<AgentToolResult | DetachedRunAgentToolResult> {
    const { detached, ...rest } = options;
    if (detached !== undefined) {
      return this.#parts().detached.runAgentToolDetached(child, { ...rest, detached } as never);
    }
    return this.registry.runAgentTool(child, rest);
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
    return this.#parts().turns.messages();
  }

  /**
   * Send a user message to the conversation from code (a Worker, a cron, another agent over RPC) and wait for the
   * answer: the same durable turn a client's message gets, told to every open client. Resolves the stored answer
   * (`null` when the turn produced none), or the refusal when the message id is already stored.
   */
  async sendChatMessage(message: string | UIMessage): Promise<UIMessage | null> {
    const userMessage: UIMessage =
      typeof message === "string"
        ? { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: message }] }
        : message;
    const parts = this.#parts();
    const refuseStored = () =>
      new AgentToolsError("INVALID_ARGUMENT", `The conversation already has a message "${userMessage.id}"`);
    if (parts.chatStore.hasMessage(userMessage.id)) throw refuseStored();
    // Checked again when its turn starts: the same message may have been sent while a turn was in flight.
    return parts.turns.send(null, (stored) => {
      if (stored.some((message) => message.id === userMessage.id)) throw refuseStored();
      return { kind: "append", userMessage };
    });
  }

  /**
   * Stop the conversation's turn in flight for every tab, if it is `turnId` (from a `turn-started` event; a turn that
   * already ended, or a later one, is left alone). Returns whether it stopped it. The tab that sent the turn's message
   * can also stop it with the chat's own `stop()`; a tab that only follows the turn cannot (its abort only stops it
   * following), so it calls this, over `POST …/chat/stop/<turnId>`.
   */
  stopChatTurn(turnId: string): boolean {
    return this.#parts().turns.stop(turnId);
  }

  /** A named conversation with a child, outside any tool call (the child must offer direct chat: `AgentToolChild` does). */
  subAgent(child: AgentToolChildReference, name: string): SubAgentHandle {
    const agentType = resolveAgentType(child);
    const chatRpc = () => {
      const stub = this.#parts().transport.stub({ agentType, runId: `chat:${name}` });
      if (typeof stub.agentToolChat !== "function" || typeof stub.agentToolChatMessages !== "function") {
        throw new AgentToolsError("INVALID_ARGUMENT", `The child "${agentType}" offers no direct chat`);
      }
      return stub as Required<typeof stub>;
    };
    return {
      chat: async (message) => {
        const userMessage: UIMessage =
          typeof message === "string"
            ? { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: message }] }
            : message;
        return fromNdjson<UIMessageChunk>(await chatRpc().agentToolChat(name, userMessage));
      },
      messages: () => chatRpc().agentToolChatMessages(name),
    };
  }

  /** Sign a token that lets its bearer drill in to run `runId` (of `agentType`) of this parent until it expires. */
  async createRunReadToken(
    agentType: string,
    runId: string,
    options: { ttlMs?: number } = {},
  ): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = systemClock.now() + (options.ttlMs ?? DEFAULT_RUN_TOKEN_TTL_MS);
    const token = await signRunReadToken(await this.#tokenKeyOrThrow(), {
      parentId: this.ctx.id.toString(),
      agentType,
      runId,
      expiresAt,
    });
    return { token, expiresAt };
  }

  override async fetch(request: Request): Promise<Response> {
    const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
    const route = parseParentRoute({ method: request.method, url: request.url, isUpgrade });
    try {
      if (route.kind === "drill-in") return await this.#drillIn(request, route);
      const refused = await this.authorize(request, route);
      if (refused) return refused;
      return await this.#serve(request, route);
    } catch (error) {
      const normalized = toAgentToolsError(error);
      return Response.json({ error: normalized.message, code: normalized.code }, { status: 500 });
    }
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // The events socket is server → client only.
    if (!this.ctx.getTags(ws).includes(CHAT_TAG)) return;
    const parts = this.#parts();
    this.#awake().track(handleChatSocketMessage(ws, message, { turns: parts.turns, store: parts.chatStore }));
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    this.#components?.turns.forget(ws);
    try {
      ws.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.#components?.turns.forget(ws);
  }

  /**
   * The detached runs' reconcile tick, and the wake-up that keeps a busy parent awake (see `agentToolWakeIntervalMs`).
   * A subclass that overrides `alarm` must call `super.alarm()`.
   */
  override async alarm(): Promise<void> {
    await this.#parts().detached.tick();
    this.#awake().wokeUp();
  }

  async #serve(request: Request, route: AgentToolParentRoute): Promise<Response> {
    const parts = this.#parts();
    switch (route.kind) {
      case "events":
        return this.#connectEvents(request);
      case "chat":
        return this.#accept(CHAT_TAG);
      case "chat-stop":
        return Response.json({ stopped: this.stopChatTurn(route.turnId) });
      case "messages":
        return Response.json(await parts.turns.messages());
      case "runs":
        return Response.json(await parts.registry.listAgentToolRuns());
      case "cancel": {
        const body = await readCancelRequest(request);
        if (!body.ok) return Response.json({ error: body.error, code: "INVALID_ARGUMENT" }, { status: 400 });
        return Response.json({ cancelled: await parts.registry.cancelAgentTool(route.runId, body.reason) });
      }
      case "clear":
        return Response.json(await parts.registry.clearAgentToolRuns());
      case "token": {
        if (!(await parts.registry.hasAgentToolRun(route.agentType, route.runId))) {
          return new Response("No such run", { status: 404 });
        }
        return Response.json(await this.createRunReadToken(route.agentType, route.runId));
      }
      case "drill-in":
      case "other":
        return this.onRequest(request, route);
    }
  }

  /** Drill-in to one of this parent's runs: a valid run token, or the parent's authorization; never a new child. */
  async #drillIn(request: Request, route: { kind: "drill-in"; agentType: string; runId: string }): Promise<Response> {
    const url = new URL(request.url);
    const token = url.searchParams.get("token");
    if (token !== null) {
      const key = await this.#tokenKey();
      const check = key
        ? await verifyRunReadToken(key, token, {
            parentId: this.ctx.id.toString(),
            agentType: route.agentType,
            runId: route.runId,
            now: systemClock.now(),
          })
        : ({ ok: false, refusal: "forged" } as const);
      if (!check.ok) {
        return new Response(`Run read token refused (${check.refusal})`, { status: runReadTokenStatus(check.refusal) });
      }
    } else {
      const refused = await this.authorize(request, route);
      if (refused) return refused;
    }
    const parts = this.#parts();
    if (!(await parts.registry.hasAgentToolRun(route.agentType, route.runId))) {
      return new Response("No such run", { status: 404 });
    }
    const target = new URL(request.url);
    target.search = `?runId=${encodeURIComponent(route.runId)}`;
    const stub = parts.transport.stub({ agentType: route.agentType, runId: route.runId });
    return stub.fetch(new Request(target.toString(), request));
  }

  async #connectEvents(request: Request): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [EVENTS_TAG]);
    const cursors = parseAgentToolCursors(new URL(request.url).searchParams.get(AGENT_TOOL_CURSORS_PARAM));
    await this.registry.replayAgentToolRuns((frame) => send(server, encodeAgentToolFrame(frame)), { cursors });
    return webSocketUpgrade(client);
  }

  #accept(tag: string): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [tag]);
    return webSocketUpgrade(client);
  }

  #broadcast(text: string): void {
    for (const ws of this.ctx.getWebSockets(EVENTS_TAG)) send(ws, text);
  }

  #announce(event: AgentChatEvent): void {
    this.#broadcast(encodeAgentChatEventFrame({ type: AGENT_CHAT_EVENT_TYPE, event }));
  }

  async #startUp(): Promise<void> {
    const parts = this.#parts();
    const recovered = recoverAgentToolRuns(parts.registry, this.recoveryOptions()).done.then(
      // After recovery, not during it: a run recovery finalizes is notified by the registry itself.
      () => parts.registry.deliverPendingFinishHooks(),
      () => parts.registry.deliverPendingFinishHooks(),
    );
    await Promise.all([parts.detached.start(), parts.turns.recover(), recovered]);
  }

  /** The parts, built on first use (after the subclass's constructor, so its fields and bindings are there). */
  #parts(): Components {
    this.#components ??= this.#build();
    return this.#components;
  }

  #build(): Components {
    const { ctx } = this;
    const waitUntil = (promise: Promise<unknown>) => this.#awake().track(promise);
    const transport = new DurableObjectChildTransport({ parentId: ctx.id.toString(), namespaces: this.children() });
    const registry = new AgentToolRegistry({
      store: new DurableObjectRunStore(ctx.storage),
      transport,
      clock: systemClock,
      broadcast: (frame) => this.#broadcast(encodeAgentToolFrame(frame)),
      waitUntil,
      hooks: this.#hooks(),
      ...this.registryOptions(),
    });
    const chatStore = new DurableObjectChatStore(ctx.storage);
    const turns = new ChatTurns({
      store: chatStore,
      clock: systemClock,
      stream: (context) => this.onChatMessage(context),
      tools: () => this.getTools(),
      send: (ws, frame) => send(ws, JSON.stringify(frame)),
      announce: (event) => this.#announce(event),
      generateId: () => crypto.randomUUID(),
      writeIntervalMs: DEFAULT_CHAT_WRITE_INTERVAL_MS,
      maxResumeAttempts: 3,
      track: waitUntil,
    });
    const detached = createDetachedRuns<object>({
      registry,
      host: this,
      scheduler: this.#wakeups(),
      chatHost: new ParentChatHost(turns),
      waitUntil,
      // A Durable Object runs as one instance at a time: a delivery claim left by an earlier incarnation (killed,
      // evicted or redeployed inside a handler) is taken back at start-up instead of a lease later.
      singleInstance: true,
      ...(this.formatDetachedCompletion ? { formatDetachedCompletion: this.formatDetachedCompletion.bind(this) } : {}),
      ...(this.formatDetachedMilestone ? { formatDetachedMilestone: this.formatDetachedMilestone.bind(this) } : {}),
      ...this.detachedOptions(),
    });
    return { registry, transport, detached, chatStore, turns };
  }

  /** The object's one alarm, shared by detached runs' schedule and the keep-awake wake-ups. */
  #wakeups(): DurableObjectWakeupScheduler {
    this.#scheduler ??= new DurableObjectWakeupScheduler(this.ctx.storage);
    return this.#scheduler;
  }

  /** Work a crash would cut keeps the object awake (built on first use, after the subclass's fields). */
  #awake(): KeepAwake {
    this.#keepAwake ??= new KeepAwake({
      intervalMs: this.agentToolWakeIntervalMs,
      clock: systemClock,
      wakeAt: (at) => this.#wakeups().wakeAt(at),
      waitUntil: (work) => this.ctx.waitUntil(work),
    });
    return this.#keepAwake;
  }

  #hooks(): AgentToolHooks {
    return {
      ...(this.onAgentToolStart ? { onAgentToolStart: (run) => this.onAgentToolStart?.(run) } : {}),
      ...(this.onAgentToolFinish ? { onAgentToolFinish: (run, result) => this.onAgentToolFinish?.(run, result) } : {}),
      ...(this.onProgress ? { onProgress: (run, snapshot) => this.onProgress?.(run, snapshot) } : {}),
    };
  }

  #tokenKey(): Promise<RunReadTokenKey | null> {
    const secret = this.runTokenSecret();
    if (secret === undefined) return Promise.resolve(null);
    this.#tokenKeyPromise ??= importRunReadTokenKey(secret);
    return this.#tokenKeyPromise;
  }

  async #tokenKeyOrThrow(): Promise<RunReadTokenKey> {
    const key = await this.#tokenKey();
    if (!key) {
      throw new AgentToolsError(
        "INVALID_ARGUMENT",
        `Run read tokens need a secret: set the ${RUN_TOKEN_SECRET_BINDING} binding or override runTokenSecret()`,
      );
    }
    return key;
  }
}

function send(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // a closing socket: the turn goes on and is stored
  }
}
