import { DurableObject } from "cloudflare:workers";
import { AgentToolRegistry, agentTool, systemClock } from "@agent-tools/core-runs";
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolEventFrame,
  encodeAgentToolFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import { createDetachedRuns, type DetachedRuns, readDetachedState } from "@agent-tools/detached";
import { formatRunEvent, subscribe } from "@agent-tools/observability";
import { type RecoverAgentToolRunsOptions, recoverAgentToolRuns } from "@agent-tools/recovery";
import {
  convertToModelMessages,
  isStepCount,
  safeValidateWebSocketChatTransportRequest,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  type WebSocketChatTransportResponse,
  type WebSocketChatTransportSendRequest,
} from "ai";
import { z } from "zod";
import { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { DurableObjectWakeupScheduler } from "../adapters/durable-object-wakeup-scheduler.js";
import { lastToolResults, lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { AssistantChatHost, SERVER_TURN_SOURCE, withServerMessages } from "./assistant-chat-host.js";
import { ChatStore } from "./chat-store.js";
import type { Env } from "./env.js";
import { HookJournal } from "./hook-journal.js";
import { Importer } from "./importer.js";
import { Researcher } from "./researcher.js";
import { Summarizer, type Summary, summarySchema } from "./summarizer.js";
import { webSocketUpgrade } from "./websocket-upgrade.js";

const EVENTS_TAG = "events";
const CHAT_TAG = "chat";
/** `metadata.source` of the chat messages a background import injects. */
const BACKGROUND_IMPORT_SOURCE = "background-import";
/** How `@agent-tools/detached`'s default `formatDetachedCompletion` starts a completion message. */
const COMPLETION_PREFIX = "Background task ";

/** A chat turn in flight: its chunks so far, and every socket following it (the sender, then any resumer). */
type ActiveChat = {
  chatId: string;
  controller: AbortController;
  chunks: UIMessageChunk[];
  /** Socket → the requestId it knows this turn by. */
  followers: Map<WebSocket, string>;
};

/**
 * The demo's parent chat agent: persisted chat messages, hibernating WebSockets (an events socket for
 * `agent-tool-event` frames with replay, a chat socket speaking the AI SDK's `WebSocketChatTransport` protocol),
 * and a model whose tools are child agents made with `agentTool()`.
 */
export class Assistant extends DurableObject<Env> {
  readonly registry: AgentToolRegistry;
  readonly transport: DurableObjectChildTransport;
  /** Background runs: dispatched without blocking the turn, their completion told to the chat (`notify`). */
  readonly detached: DetachedRuns<Assistant>;
  readonly #store: DurableObjectRunStore;
  readonly #hooks: HookJournal;
  readonly #chats: ChatStore;
  readonly #chatHost: AssistantChatHost;
  readonly #active = new Map<string, ActiveChat>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new DurableObjectRunStore(ctx.storage);
    this.#hooks = new HookJournal(ctx.storage);
    this.transport = new DurableObjectChildTransport({
      parentId: ctx.id.toString(),
      namespaces: { Researcher: env.RESEARCHER, Summarizer: env.SUMMARIZER, Importer: env.IMPORTER },
    });
    this.registry = new AgentToolRegistry({
      store: this.#store,
      transport: this.transport,
      clock: systemClock,
      broadcast: (frame) => this.#broadcast(frame),
      waitUntil: (promise) => ctx.waitUntil(promise),
      hooks: {
        onAgentToolStart: (run) => this.#hooks.count(run.runId, "start"),
        onAgentToolFinish: (run, result) => this.#hooks.count(run.runId, `finish:${result.status}`),
      },
    });
    this.#chats = new ChatStore(ctx.storage);
    this.#chatHost = new AssistantChatHost({
      load: () => this.#chats.load(),
      save: (messages) => this.#chats.save(messages),
      runTurn: (messages) => this.#runServerTurn(messages),
      ...(env.DEMO_HOLD_DELIVERIES === "1" ? { holdAfterAppending: BACKGROUND_IMPORT_SOURCE } : {}),
    });
    const watchIntervalMs = Number(env.DETACHED_WATCH_INTERVAL_MS);
    const deliveryLeaseMs = Number(env.DEMO_DELIVERY_LEASE_MS);
    this.detached = createDetachedRuns<Assistant>({
      registry: this.registry,
      host: this,
      scheduler: new DurableObjectWakeupScheduler(ctx.storage),
      chatHost: this.#chatHost,
      waitUntil: (promise) => ctx.waitUntil(promise),
      ...(watchIntervalMs > 0 ? { watchIntervalMs } : {}),
      ...(deliveryLeaseMs > 0 ? { deliveryLeaseMs } : {}),
    });
    if (env.DEBUG) enableDebugLog();
    // Follow background runs again and arm the alarm for what is outstanding (in the background).
    ctx.waitUntil(this.detached.start());
    // Re-attach to children still running when this object last stopped (in the background).
    ctx.waitUntil(this.#resumeLiveRuns());
  }

  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/agents\/assistant\/[^/]+(\/.*)?$/.exec(url.pathname);
    const rest = match?.[1] ?? "";
    const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
    if (rest === "" && isUpgrade) return this.#connectEvents(url);
    if (rest === "/chat" && isUpgrade) return this.#connectChat();
    if (rest === "/messages" && request.method === "GET") return Response.json(this.#chats.load());
    if (rest === "/runs" && request.method === "GET") return Response.json(await this.registry.listAgentToolRuns());
    if (rest === "/background" && request.method === "GET") return Response.json(await this.#backgroundRuns());
    if (rest === "/hooks" && request.method === "GET") return Response.json(this.#hooks.list());
    if (rest === "/clear" && request.method === "POST") return Response.json(await this.registry.clearAgentToolRuns());
    const cancel = /^\/cancel\/([^/]+)$/.exec(rest);
    if (cancel?.[1] && request.method === "POST") {
      // One call for every run: a background run's cancel is handled by `detached` (its `aborted` is delivered once).
      const cancelled = await this.registry.cancelAgentTool(decodeURIComponent(cancel[1]));
      return Response.json({ cancelled });
    }
    const sub = /^\/sub\/([^/]+)\/([^/]+)$/.exec(rest);
    if (sub?.[1] && sub[2]) return this.#drillIn(request, decodeURIComponent(sub[1]), decodeURIComponent(sub[2]));
    return new Response("Not found", { status: 404 });
  }

  /** Background runs with where their delivery stands (`settledRevision`, and a `claim` while one is in flight). */
  async #backgroundRuns() {
    const records = await this.#store.listRuns();
    return records.flatMap((record) => {
      const state = record.detached ? readDetachedState(record) : null;
      if (!state) return [];
      return [{ runId: record.runId, status: record.status, revision: record.revision, delivery: state.delivery }];
    });
  }

  /** The reconcile tick of background runs: budgets, deliveries and their retries, follows after a restart. */
  override async alarm(): Promise<void> {
    await this.detached.tick();
  }

  /** Drill-in to one child, only for runs this parent created: a guessed runId never creates a child. */
  async #drillIn(request: Request, agentType: string, runId: string): Promise<Response> {
    if (!(await this.registry.hasAgentToolRun(agentType, runId))) {
      return new Response("No such run", { status: 404 });
    }
    const target = new URL(request.url);
    target.search = `?runId=${encodeURIComponent(runId)}`;
    return this.transport.stub({ agentType, runId }).fetch(new Request(target.toString(), request));
  }

  async #connectEvents(url: URL): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [EVENTS_TAG]);
    const cursors = parseAgentToolCursors(url.searchParams.get(AGENT_TOOL_CURSORS_PARAM));
    await this.registry.replayAgentToolRuns((frame) => server.send(encodeAgentToolFrame(frame)), { cursors });
    return webSocketUpgrade(client);
  }

  #connectChat(): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [CHAT_TAG]);
    return webSocketUpgrade(client);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (!this.ctx.getTags(ws).includes(CHAT_TAG)) return; // the events socket is server → client only
    let value: unknown;
    try {
      value = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message));
    } catch {
      return send(ws, { type: "error", requestId: "", errorText: "Malformed frame: not JSON" });
    }
    const validation = await safeValidateWebSocketChatTransportRequest({ value });
    if (!validation.success) {
      const requestId =
        typeof (value as { requestId?: unknown })?.requestId === "string"
          ? (value as { requestId: string }).requestId
          : "";
      return send(ws, { type: "error", requestId, errorText: `Invalid request: ${validation.error.message}` });
    }
    const request = validation.data;
    switch (request.type) {
      case "send":
        this.ctx.waitUntil(this.#runChatTurn(ws, request));
        return;
      case "abort":
        for (const active of this.#active.values()) {
          if (active.followers.get(ws) === request.requestId) active.controller.abort();
        }
        return;
      case "resume": {
        // The transport numbers chunks from 0; a resume without lastSequence asks for the whole turn so far. The
        // resuming socket then follows the turn to its end, like the socket that started it.
        const active = this.#active.get(request.id);
        if (!active) return send(ws, { type: "no-active", requestId: request.requestId });
        send(ws, { type: "start", requestId: request.requestId });
        const from = request.lastSequence ?? -1;
        active.chunks.forEach((chunk, sequence) => {
          if (sequence > from) send(ws, { type: "chunk", requestId: request.requestId, sequence, chunk });
        });
        active.followers.set(ws, request.requestId);
        return;
      }
    }
  }

  override async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    try {
      ws.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  /** One chat turn: the model may call child agents; chunks stream to the requesting socket. */
  async #runChatTurn(ws: WebSocket, request: WebSocketChatTransportSendRequest): Promise<void> {
    const { requestId } = request;
    const chatId = request.id;
    const controller = new AbortController();
    const active: ActiveChat = { chatId, controller, chunks: [], followers: new Map([[ws, requestId]]) };
    this.#active.set(chatId, active);
    const toFollowers = (frame: (requestId: string) => WebSocketChatTransportResponse) => {
      for (const [socket, id] of active.followers) send(socket, frame(id));
    };
    send(ws, { type: "start", requestId });
    try {
      // One turn at a time: a background run's delivery waits for this turn, and this turn for a delivery.
      await this.#chatHost.exclusive(async () => {
        // Keep what the server added to the chat since the client last looked (completions, reactions).
        const messages = withServerMessages(request.messages as UIMessage[], this.#chats.load());
        const stream = await this.#streamTurn(messages, {
          signal: controller.signal,
          onEnd: (updated) => this.#chats.save(updated),
        });
        for await (const chunk of stream) {
          const sequence = active.chunks.length;
          active.chunks.push(chunk);
          toFollowers((id) => ({ type: "chunk", requestId: id, sequence, chunk }));
        }
      });
      toFollowers((id) => ({ type: "end", requestId: id }));
    } catch (error) {
      const errorText = error instanceof Error ? error.message : String(error);
      toFollowers((id) => ({ type: "error", requestId: id, errorText }));
    } finally {
      if (this.#active.get(chatId) === active) this.#active.delete(chatId);
    }
  }

  /** A model turn the server starts (a background run finished): streamed to every chat socket, then stored. */
  async #runServerTurn(messages: UIMessage[]): Promise<UIMessage[]> {
    const requestId = `server:${crypto.randomUUID()}`;
    let updated = messages;
    let sequence = -1;
    this.#sendToChats({ type: "start", requestId });
    try {
      const stream = await this.#streamTurn(messages, {
        metadata: { source: SERVER_TURN_SOURCE },
        onEnd: (after) => {
          updated = after;
        },
      });
      for await (const chunk of stream) {
        sequence += 1;
        this.#sendToChats({ type: "chunk", requestId, sequence, chunk });
      }
      this.#sendToChats({ type: "end", requestId });
    } catch (error) {
      this.#sendToChats({
        type: "error",
        requestId,
        errorText: error instanceof Error ? error.message : String(error),
      });
    }
    return updated;
  }

  /** Stream one model turn over `messages`; `onEnd` receives the conversation after it. */
  async #streamTurn(
    messages: UIMessage[],
    options: { signal?: AbortSignal; metadata?: unknown; onEnd: (messages: UIMessage[]) => void },
  ): Promise<AsyncIterable<UIMessageChunk>> {
    const tools = this.#tools();
    const result = streamText({
      model: this.#model(),
      system: "You are a helpful assistant. Delegate research and summaries to your tools, then answer.",
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(5),
      ...(options.signal ? { abortSignal: options.signal } : {}),
    });
    const { metadata } = options;
    const stream = toUIMessageStream({
      stream: result.stream,
      tools,
      originalMessages: messages,
      // Real ids: the chat merges what clients send with what the server added by message id.
      generateMessageId: () => crypto.randomUUID(),
      ...(metadata !== undefined ? { messageMetadata: () => metadata } : {}),
      onEnd: ({ messages: updated }) => options.onEnd(updated),
    });
    return stream as unknown as AsyncIterable<UIMessageChunk>;
  }

  #sendToChats(frame: WebSocketChatTransportResponse): void {
    for (const ws of this.ctx.getWebSockets(CHAT_TAG)) send(ws, frame);
  }

  #tools(): ToolSet {
    return {
      research: agentTool(this.registry, Researcher, {
        description: "Ask the Researcher agent to look up a topic and report findings",
        inputSchema: z.object({ topic: z.string().min(1) }),
        displayName: "Researcher",
      }),
      summarize: agentTool(this.registry, Summarizer, {
        description: "Ask the Summarizer agent for a structured summary of a text",
        inputSchema: z.object({ text: z.string().min(1) }),
        outputSchema: summarySchema,
        displayName: "Summarizer",
      }),
      importData: agentTool(this.registry, Importer, {
        description: "Import a data set in batches",
        inputSchema: z.object({ batches: z.number().int().min(1).max(20) }),
        displayName: "Importer",
      }),
      startBackgroundImport: tool({
        description: "Start a data import in the background and answer at once; you are told when it finishes",
        inputSchema: z.object({ batches: z.number().int().min(1).max(20) }),
        execute: async ({ batches }: { batches: number }, { toolCallId }: { toolCallId: string }) => {
          const started = await this.detached.runAgentToolDetached(Importer, {
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

  #model() {
    return selectModel(this.env, "assistant", (prompt) => {
      const results = lastToolResults(prompt);
      if (!results) {
        const text = lastUserText(prompt);
        // A background run's completion, injected by `notify` (a user-role message): react to it.
        if (text.startsWith(COMPLETION_PREFIX)) {
          return { kind: "text", text: `Update on your background task: ${text.slice(COMPLETION_PREFIX.length)}` };
        }
        if (/\bbackground\b/i.test(text)) {
          return {
            kind: "tools",
            text: "I will run the import in the background. ",
            calls: [{ toolName: "startBackgroundImport", input: { batches: 5 } }],
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
        lines.push(
          "bullets" in (summary as object)
            ? `Summary — ${(summary as Summary).title}: ${(summary as Summary).bullets.join("; ")}`
            : `Summary: ${describe(summary)}`,
        );
      }
      const imported = results.get("importData");
      if (imported !== undefined) lines.push(`Import: ${describe(imported)}`);
      return { kind: "text", text: `Here is what I found. ${lines.join(" ")}` };
    });
  }

  #broadcast(frame: AgentToolEventFrame): void {
    const text = encodeAgentToolFrame(frame);
    for (const ws of this.ctx.getWebSockets(EVENTS_TAG)) {
      try {
        ws.send(text);
      } catch {
        // a closing socket
      }
    }
  }

  async #resumeLiveRuns(): Promise<void> {
    // Recovery windows, from optional bindings (tests shorten them); unset → the spec's defaults.
    const knobs = {
      agentToolInspectTimeoutMs: "RECOVERY_INSPECT_TIMEOUT_MS",
      agentToolRecoveryDeadlineMs: "RECOVERY_DEADLINE_MS",
      agentToolReattachNoProgressTimeoutMs: "RECOVERY_NO_PROGRESS_MS",
      agentToolReattachMaxWindowMs: "RECOVERY_MAX_WINDOW_MS",
    } as const;
    const bindings = this.env as unknown as Record<string, unknown>;
    const options: RecoverAgentToolRunsOptions = Object.fromEntries(
      Object.entries(knobs).flatMap(([option, binding]) => {
        const value = bindings[binding];
        return typeof value === "string" && value !== "" ? [[option, Number(value)]] : [];
      }),
    );
    // In the background: finished children are collected, live ones re-attached, hung ones given up with a reason.
    await recoverAgentToolRuns(this.registry, options).done;
    // After recovery, not during it: a run recovery finalizes is notified by the registry itself.
    await this.registry.deliverPendingFinishHooks();
  }
}

function send(ws: WebSocket, frame: WebSocketChatTransportResponse): void {
  try {
    ws.send(JSON.stringify(frame));
  } catch {
    // the client went away; the turn goes on and is persisted
  }
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
