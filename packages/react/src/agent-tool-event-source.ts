/**
 * What a `message` listener receives: only `data` is read. Typed loosely so that DOM `EventTarget`s, browser
 * `WebSocket`s, PartySockets and Node's `ws` sockets all fit.
 */
export type AgentToolMessageEvent = Event | { readonly data: unknown };
export type AgentToolMessageListener = (event: AgentToolMessageEvent) => void;

/**
 * An open connection to the parent agent that someone else opens and closes: anything with
 * `addEventListener`/`removeEventListener` for `message` events — a `WebSocket`, a PartySocket, the socket of the
 * agents SDK's `useAgent`, an `EventTarget` in tests.
 */
export type AgentToolEventSource = {
  addEventListener(type: "message", listener: AgentToolMessageListener): void;
  removeEventListener(type: "message", listener: AgentToolMessageListener): void;
};
