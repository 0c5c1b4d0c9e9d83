import type { AgentToolRegistry } from "@agent-tools/core-runs";
import type { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import type { ParentEventSockets } from "./event-sockets.js";
import type { ParentChat } from "./parent-chat.js";

/** The parts of a parent its routes use (wired, so touching storage). */
export type ParentRouteParts = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  chat: ParentChat;
  events: ParentEventSockets;
};
