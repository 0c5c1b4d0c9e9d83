import { DurableObject } from "cloudflare:workers";
import { AgentToolRegistry, agentTool, getDefaultRunEventHub, systemClock } from "@agent-tools/core-runs";
import {
  AGENT_TOOL_CURSORS_PARAM,
  type AgentToolEventFrame,
  encodeAgentToolFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import {
  convertToModelMessages,
  isStepCount,
  safeValidateWebSocketChatTransportRequest,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  type WebSocketChatTransportResponse,
  type WebSocketChatTransportSendRequest,
} from "ai";
import { z } from "zod";
import { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { lastToolResults, lastUserText } from "../model/scripted-model.js";
import { selectModel } from "../model/select-model.js";
import { ChatStore } from "./chat-store.js";
import type { Env } from "./env.js";
import { Importer } from "./importer.js";
import { Researcher } from "./researcher.js";
import { Summarizer, type Summary, summarySchema } from "./summarizer.js";

const EVENTS_TAG = "events";
const CHAT_TAG = "chat";

type ActiveChat = { requestId: string; chatId: string; controller: AbortController; chunks: UIMessageChunk[] };

/**
 * The demo's parent chat agent: persisted chat messages, hibernating WebSockets (an events socket for
 * `agent-tool-event` frames with replay, a chat socket speaking the AI SDK's `WebSocketChatTransport` protocol),
 * and a model whose tools are child agents made with `agentTool()`.
 */
export class Assistant extends DurableObject<Env> {
  readonly registry: AgentToolRegistry;
  readonly transport: DurableObjectChildTransport;
  readonly #chats: ChatStore;
  readonly #active = new Map<string, ActiveChat>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.transport = new DurableObjectChildTransport({
      parentId: ctx.id.toString(),
      namespaces: { Researcher: env.RESEARCHER, Summarizer: env.SUMMARIZER, Importer: env.IMPORTER },
    });
    this.registry = new AgentToolRegistry({
      store: new DurableObjectRunStore(ctx.storage),
      transport: this.transport,
      clock: systemClock,
      broadcast: (frame) => this.#broadcast(frame),
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
    this.#chats = new ChatStore(ctx.storage);
    if (env.DEBUG) enableDebugLog();
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
    if (rest === "/clear" && request.method === "POST") return Response.json(await this.registry.clearAgentToolRuns());
    const cancel = /^\/cancel\/([^/]+)$/.exec(rest);
    if (cancel?.[1] && request.method === "POST") {
      return Response.json({ cancelled: await this.registry.cancelAgentTool(decodeURIComponent(cancel[1])) });
    }
    const sub = /^\/sub\/([^/]+)\/([^/]+)$/.exec(rest);
    if (sub?.[1] && sub[2]) return this.#drillIn(request, decodeURIComponent(sub[1]), decodeURIComponent(sub[2]));
    return new Response("Not found", { status: 404 });
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
    return new Response(null, { status: 101, webSocket: client });
  }

  #connectChat(): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [CHAT_TAG]);
    return new Response(null, { status: 101, webSocket: client });
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
          if (active.requestId === request.requestId) active.controller.abort();
        }
        return;
      case "resume": {
        const active = this.#active.get(request.id);
        if (!active) return send(ws, { type: "no-active", requestId: request.requestId });
        send(ws, { type: "start", requestId: request.requestId });
        const from = request.lastSequence ?? 0;
        active.chunks.forEach((chunk, index) => {
          if (index + 1 > from) send(ws, { type: "chunk", requestId: request.requestId, sequence: index + 1, chunk });
        });
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
    const active: ActiveChat = { requestId, chatId, controller, chunks: [] };
    this.#active.set(chatId, active);
    send(ws, { type: "start", requestId });
    try {
      const messages = request.messages as UIMessage[];
      const tools = this.#tools();
      const result = streamText({
        model: this.#model(),
        system: "You are a helpful assistant. Delegate research and summaries to your tools, then answer.",
        messages: await convertToModelMessages(messages, { tools }),
        tools,
        stopWhen: isStepCount(5),
        abortSignal: controller.signal,
      });
      const stream = toUIMessageStream({
        stream: result.stream,
        tools,
        originalMessages: messages,
        onEnd: ({ messages: updated }) => this.#chats.save(updated),
      });
      for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) {
        active.chunks.push(chunk);
        send(ws, { type: "chunk", requestId, sequence: active.chunks.length, chunk });
      }
      send(ws, { type: "end", requestId });
    } catch (error) {
      send(ws, { type: "error", requestId, errorText: error instanceof Error ? error.message : String(error) });
    } finally {
      if (this.#active.get(chatId) === active) this.#active.delete(chatId);
    }
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
    } as ToolSet;
  }

  #model() {
    return selectModel(this.env, "assistant", (prompt) => {
      const results = lastToolResults(prompt);
      if (!results) {
        const text = lastUserText(prompt);
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
    const live = await this.registry.listAgentToolRuns({ status: ["starting", "running"] });
    await Promise.all(live.map((run) => this.registry.waitForAgentToolRun(run.runId)));
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
function enableDebugLog(): void {
  if (debugEnabled) return;
  debugEnabled = true;
  getDefaultRunEventHub().subscribe((event) => {
    console.log(`[agent-tools] ${event.type} ${JSON.stringify({ ...event, type: undefined })}`);
  });
}
