import type { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_CURSORS_PARAM,
  type AgentChatEvent,
  type AgentToolEventFrame,
  encodeAgentChatEventFrame,
  encodeAgentToolFrame,
  parseAgentToolCursors,
} from "@agent-tools/core-runs/protocol";
import { webSocketUpgrade } from "../websocket-upgrade.js";

const EVENTS_TAG = "agent-tools:events";

/**
 * The parent's event sockets (server → client only): a client connects with its cursors and gets the runs' frames it
 * missed (replay), then every run frame and conversation event live.
 * @internal
 */
export class ParentEventSockets {
  readonly #ctx: DurableObjectState;

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
  }

  /** Accept an event socket and replay the runs to it from the request's cursors. */
  async connect(request: Request, registry: AgentToolRegistry): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.#ctx.acceptWebSocket(server, [EVENTS_TAG]);
    const cursors = parseAgentToolCursors(new URL(request.url).searchParams.get(AGENT_TOOL_CURSORS_PARAM));
    await registry.replayAgentToolRuns((frame) => send(server, encodeAgentToolFrame(frame)), { cursors });
    return webSocketUpgrade(client);
  }

  /** Send a run's frame to every client. */
  broadcastRunFrame(frame: AgentToolEventFrame): void {
    this.#broadcast(encodeAgentToolFrame(frame));
  }

  /** Tell every client what happened to the conversation. */
  announce(event: AgentChatEvent): void {
    this.#broadcast(encodeAgentChatEventFrame({ type: AGENT_CHAT_EVENT_TYPE, event }));
  }

  #broadcast(text: string): void {
    for (const ws of this.#ctx.getWebSockets(EVENTS_TAG)) send(ws, text);
  }
}

function send(ws: WebSocket, text: string): void {
  try {
    ws.send(text);
  } catch {
    // a closing socket
  }
}
