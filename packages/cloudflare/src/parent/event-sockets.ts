import type { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_CURSORS_PARAM,
  type AgentChatEvent,
  type AgentChatEventFrame,
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
  readonly #listeners = new Set<(frame: AgentToolEventFrame | AgentChatEventFrame) => void>();

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
