import type { AgentToolRegistry, ReplayOptions } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_CURSORS_PARAM,
  AGENT_TOOL_PAGE_PARAM,
  AGENT_TOOL_PAGE_TYPE,
  type AgentChatEvent,
  type AgentChatEventFrame,
  type AgentToolEventFrame,
  type AgentToolPageFrame,
  encodeAgentChatEventFrame,
  encodeAgentToolFrame,
  encodeAgentToolPosition,
  parseAgentToolCursors,
  parseAgentToolPageLimit,
  parseAgentToolPageRequest,
} from "@agent-tools/core-runs/protocol";
import { webSocketUpgrade } from "../websocket-upgrade.js";

const EVENTS_TAG = "agent-tools:events";

/**
 * The parent's event sockets (server → client only): a client connects with its cursors and gets the runs' frames it
 * missed (replay), then every run frame and conversation event live.
 */
export class ParentEventSockets {
  readonly #ctx: DurableObjectState;
  readonly #listeners = new Set<(frame: AgentToolEventFrame | AgentChatEventFrame) => void>();
  /**
   * The event sockets, looked up once per synchronous stretch of broadcasts (a batch of a run's entries is forwarded
   * in one loop; looking them up per frame cost more than sending it: bench/README.md, W2) and forgotten at the next
   * microtask, or when a socket is accepted. A socket closed meanwhile only makes its `send` throw, which is caught.
   */
  #sockets: WebSocket[] | null = null;

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
  }

  /**
   * Accept an event socket and replay the runs to it from the request's cursors; with `agentToolPage=<limit>` a page
   * of them (SPEC §6, paged replay), then a page frame.
   */
  async connect(request: Request, registry: AgentToolRegistry): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.#ctx.acceptWebSocket(server, [EVENTS_TAG]);
    this.#sockets = null;
    const params = new URL(request.url).searchParams;
    const cursors = parseAgentToolCursors(params.get(AGENT_TOOL_CURSORS_PARAM));
    const limit = parseAgentToolPageLimit(params.get(AGENT_TOOL_PAGE_PARAM));
    await replayTo(server, registry, { cursors, ...(limit !== null ? { page: { limit } } : {}) });
    return webSocketUpgrade(client);
  }

  /** True for an event socket (not a chat socket). */
  isEventSocket(ws: WebSocket): boolean {
    return this.#ctx.getTags(ws).includes(EVENTS_TAG);
  }

  /** A message on an event socket: a request for the page of older runs is answered; anything else is ignored. */
  async receive(ws: WebSocket, message: string | ArrayBuffer, registry: AgentToolRegistry): Promise<void> {
    const request = typeof message === "string" ? parseAgentToolPageRequest(message) : null;
    if (!request) return;
    await replayTo(ws, registry, { page: { limit: request.limit, before: request.position } });
  }

  /** Send a run's frame to every client. */
  broadcastRunFrame(frame: AgentToolEventFrame): void {
    this.#broadcast(encodeAgentToolFrame(frame));
    this.#tell(frame);
  }

  /** Tell every client what happened to the conversation. */
  announce(event: AgentChatEvent): void {
    const frame: AgentChatEventFrame = { type: AGENT_CHAT_EVENT_TYPE, event };
    this.#broadcast(encodeAgentChatEventFrame(frame));
    this.#tell(frame);
  }

  /** Hear every frame the sockets get, in this isolate (e.g. an AG-UI stream); returns how to stop. */
  listen(listener: (frame: AgentToolEventFrame | AgentChatEventFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(frame: AgentToolEventFrame | AgentChatEventFrame): void {
    for (const listener of this.#listeners) {
      try {
        listener(frame);
      } catch {
        // a listener never breaks the broadcast
      }
    }
  }

  #broadcast(text: string): void {
    if (this.#sockets === null) {
      this.#sockets = this.#ctx.getWebSockets(EVENTS_TAG);
      queueMicrotask(() => {
        this.#sockets = null;
      });
    }
    for (const ws of this.#sockets) send(ws, text);
  }
}

/** Replay to one socket; a paged replay ends with its page frame. */
async function replayTo(ws: WebSocket, registry: AgentToolRegistry, options: ReplayOptions): Promise<void> {
  const { runs, page } = await registry.replayAgentToolRuns((frame) => send(ws, encodeAgentToolFrame(frame)), options);
  if (!page) return;
  const frame: AgentToolPageFrame = {
    type: AGENT_TOOL_PAGE_TYPE,
    runs,
    hasOlder: page.hasOlder,
    ...(page.before ? { before: encodeAgentToolPosition(page.before) } : {}),
  };
  send(ws, JSON.stringify(frame));
}

function send(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // a closing socket
  }
}
