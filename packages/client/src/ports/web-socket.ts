/** What a socket's listeners receive: only a `message` event's `data` is read. */
export type WebSocketLikeEvent = { readonly data?: unknown } | Event;

/**
 * The part of a WebSocket the client uses: a browser or Node 22 `WebSocket`, a `ws` socket, or a fake in tests.
 * It must emit `open`, then any number of `message`s, then `close` (an `error` alone also ends it).
 */
export interface WebSocketLike {
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: WebSocketLikeEvent) => void): void;
  close(code?: number, reason?: string): void;
  /** Send a text message (a request for a page of older runs); a socket without it never asks for them. */
  send?(data: string): void;
}

/** A WebSocket constructor: `globalThis.WebSocket` by default. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** The global `WebSocket` (browsers, Node 22 and later, Workers), or `null` where there is none. */
export function globalWebSocket(): WebSocketConstructor | null {
  const candidate = (globalThis as { WebSocket?: unknown }).WebSocket;
  return typeof candidate === "function" ? (candidate as WebSocketConstructor) : null;
}
