import type { ChatTurnContext } from "@agent-tools/chat";
import { EngineChatHost } from "@agent-tools/chat";
import {
  AgentToolRegistry,
  type AgentToolRegistryOptions,
  type AgentToolTurnStream,
  createLogRetention,
  type LogRetention,
  type RetainLogsPolicy,
  systemClock,
} from "@agent-tools/core-runs";
import { createDetachedRuns, type DetachedRuns, type DetachedRunsOptions } from "@agent-tools/detached";
import type { ToolSet } from "ai";
import { type ChildNamespace, DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { DurableObjectWakeupScheduler } from "../adapters/durable-object-wakeup-scheduler.js";
import { ParentEventSockets } from "./event-sockets.js";
import { KeepAwake } from "./keep-awake.js";
import { ParentChat, type ParentChatOptions } from "./parent-chat.js";
import { RunReadTokens } from "./run-read-tokens.js";

/** A parent's parts, wired: what `AgentToolParent` builds on first use. */
export type ParentParts = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  detached: DetachedRuns<object>;
  chat: ParentChat;
  events: ParentEventSockets;
  tokens: RunReadTokens;
  /** Keeps the object awake while work a crash would cut is in flight (its alarm is the scheduler's). */
  awake: KeepAwake;
  /** Compacts finished runs' logs per `retainLogs`, from the alarm (the scheduler's). */
  retention: LogRetention;
};

/** What wiring a parent needs from its host object (the subclass's answers among them). */
export type ParentPartsOptions = {
  ctx: DurableObjectState;
  /** The object the detached runs' `onFinish` methods are called on (the parent itself). */
  host: object;
  children: Record<string, ChildNamespace>;
  /** While work is in flight, the alarm is never further away than this (`0`: off). */
  wakeIntervalMs: number;
  stream(context: ChatTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  tools(): ToolSet | undefined;
  runTokenSecret(): string | undefined;
  registryOptions: Partial<Omit<AgentToolRegistryOptions, "store" | "transport" | "broadcast">>;
  detachedOptions: Partial<Omit<DetachedRunsOptions<object>, "registry" | "host" | "scheduler" | "chatHost">>;
  chatOptions: ParentChatOptions;
  retainLogs: RetainLogsPolicy | undefined;
};

/**
 * Wire a parent: the registry over the object's SQLite storage and its children's namespaces, detached runs talking
 * into the conversation, the conversation itself, the event sockets every frame and conversation event goes to, and
 * run read tokens. The composition root of `AgentToolParent`; nothing here decides anything.
 * @internal
 */
export function buildParentParts(options: ParentPartsOptions): ParentParts {
  const { ctx } = options;
  // The object's one alarm, shared by detached runs' schedule, the keep-awake wake-ups and log retention.
  const scheduler = new DurableObjectWakeupScheduler(ctx.storage);
  const awake = new KeepAwake({
    intervalMs: options.wakeIntervalMs,
    clock: systemClock,
    wakeAt: (at) => scheduler.wakeAt(at),
    waitUntil: (work) => ctx.waitUntil(work),
  });
  const track = (work: Promise<unknown>) => awake.track(work);
  const events = new ParentEventSockets(ctx);
  const transport = new DurableObjectChildTransport({ parentId: ctx.id.toString(), namespaces: options.children });
  const registry = new AgentToolRegistry({
    store: new DurableObjectRunStore(ctx.storage),
    transport,
    clock: systemClock,
    broadcast: (frame) => events.broadcastRunFrame(frame),
    waitUntil: track,
    ...options.registryOptions,
  });
  const chat = new ParentChat(ctx, {
    clock: systemClock,
    stream: options.stream,
    tools: options.tools,
    track,
    announce: (event) => events.announce(event),
    ...options.chatOptions,
  });
  const detached = createDetachedRuns<object>({
    registry,
    host: options.host,
    scheduler,
    chatHost: new EngineChatHost(chat.engine),
    waitUntil: track,
    // A Durable Object runs as one instance at a time: a delivery claim left by an earlier incarnation (killed,
    // evicted or redeployed inside a handler) is taken back at start-up instead of a lease later.
    singleInstance: true,
    ...options.detachedOptions,
  });
  const tokens = new RunReadTokens({ parentId: ctx.id.toString(), clock: systemClock, secret: options.runTokenSecret });
  const retention = createLogRetention(registry, { policy: options.retainLogs ?? {}, scheduler });
  return { registry, transport, detached, chat, events, tokens, awake, retention };
}
