import { AGENT_TOOL_PAGE_REQUEST_TYPE } from "@agent-tools/core-runs/protocol";
import type { WebSocketConstructor, WebSocketLike, WebSocketLikeEvent } from "../ports/web-socket.js";

type SocketListener = (event: WebSocketLikeEvent) => void;

/**
 * A WebSocket with no network, for tests: the client's side is the `WebSocketLike` API; the test plays the server
 * with `open()`, `send()`, `drop()` and `fail()`, synchronously. Nothing happens until the test says so.
 */
export class FakeWebSocket implements WebSocketLike {
  readonly url: string;
  /** Set by the client's `close()`. */
  closedByClient = false;
  /** True once the socket ended, either way. */
  isClosed = false;
  /**
   * What the client sent on this socket (a page request), in order. The test plays the server with `send`, so a
   * message of a client request's type (`agent-tool-page-request`) is taken as the client's and recorded here, not
   * delivered.
   */
  readonly fromClient: unknown[] = [];
  readonly #listeners = new Map<string, SocketListener[]>();

  constructor(url: string) {
    this.url = url;
  }

  addEventListener(type: "open" | "message" | "close" | "error", listener: SocketListener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  close(): void {
    if (this.isClosed) return;
    this.closedByClient = true;
    this.drop(); // a real socket fires `close` after close(); the client must ignore it
  }

  #emit(type: string, event: WebSocketLikeEvent): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(event);
  }

  /** The server accepts the connection. */
  open(): void {
    this.#emit("open", new Event("open"));
  }

  /**
   * The server sends one message: a frame (sent as JSON text) or raw data as it is. On a closed socket too, to play a
   * late message that the client must ignore.
   */
  send(message: unknown): void {
    if (typeof message === "string" && message.includes(`"type":"${AGENT_TOOL_PAGE_REQUEST_TYPE}"`)) {
      this.fromClient.push(JSON.parse(message));
      return;
    }
    const data = typeof message === "object" && message !== null ? JSON.stringify(message) : message;
    this.#emit("message", { data });
  }

  /** The connection drops (or, after `close()`, its close event). */
  drop(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.#emit("close", new Event("close"));
  }

  /** The connection fails: `error`, then `close`, as browsers report it. */
  fail(): void {
    this.#emit("error", new Event("error"));
    this.drop();
  }
}

/**
 * A WebSocket constructor to pass as a connection's `WebSocket` option, and the sockets it made, newest last.
 *
 * @example
 * const sockets = fakeWebSockets();
 * const connection = createAgentToolConnection({ url: "wss://parent", WebSocket: sockets.WebSocket });
 * sockets.last().open();
 * sockets.last().send({ type: "agent-tool-event", revision: 1, event: { kind: "started", runId: "r1", agentType: "A", displayOrder: 0 } });
 */
export function fakeWebSockets(): { WebSocket: WebSocketConstructor; sockets: FakeWebSocket[]; last(): FakeWebSocket } {
  const sockets: FakeWebSocket[] = [];
  class RecordedWebSocket extends FakeWebSocket {
    constructor(url: string) {
      super(url);
      sockets.push(this);
    }
  }
  return {
    WebSocket: RecordedWebSocket,
    sockets,
    last() {
      const socket = sockets.at(-1);
      if (!socket) throw new Error("no socket was opened");
      return socket;
    },
  };
}
