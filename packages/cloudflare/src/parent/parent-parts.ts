import type { ChatTurnContext } from "@agent-tools/chat";
import { EngineChatHost } from "@agent-tools/chat";
import {
  AgentToolRegistry,
  type AgentToolRegistryOptions,
  type AgentToolTurnStream,
  bindConversationTurns,
  createLogRetention,
  type LogRetention,
  type RetainLogsPolicy,
  systemClock,
} from "@agent-tools/core-runs";
import { createDetachedRuns, type DetachedRuns, type DetachedRunsOptions } from "@agent-tools/detached";
import { type RecoverAgentToolRunsOptions, recoverAgentToolRuns } from "@agent-tools/recovery";
import type { ToolSet } from "ai";
import { type ChildNamespace, DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore } from "../adapters/durable-object-run-store.js";
import { DurableObjectWakeupScheduler } from "../adapters/durable-object-wakeup-scheduler.js";
import { type ParentEventSocketOptions, ParentEventSockets } from "./event-sockets.js";
import { KeepAwake } from "./keep-awake.js";
import { ParentChat, type ParentChatOptions } from "./parent-chat.js";
import type { RunReadTokens } from "./run-read-tokens.js";

export { turnRootId } from "@agent-tools/core-runs";

/** A parent's parts, wired: what `AgentToolParent` builds on first use. */
export type ParentParts = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  detached: DetachedRuns<object>;
  chat: ParentChat;
  events: ParentEventSockets;
  /** Keeps the object awake while work a crash would cut is in flight (its alarm is the scheduler's). */
  awake: KeepAwake;
  /** What start-up recovery runs with. */
  recoveryOptions: RecoverAgentToolRunsOptions;
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
  /** How a turn of the conversation is answered; none: the parent has no conversation. */
  stream: ((context: ChatTurnContext) => AgentToolTurnStream | Promise<AgentToolTurnStream>) | undefined;
  tools(): ToolSet | undefined;
  registryOptions: Partial<Omit<AgentToolRegistryOptions, "store" | "transport" | "broadcast">>;
  detachedOptions: Partial<Omit<DetachedRunsOptions<object>, "registry" | "host" | "scheduler" | "chatHost">>;
  chatOptions: ParentChatOptions;
  eventSocketOptions: ParentEventSocketOptions;
  recoveryOptions: RecoverAgentToolRunsOptions;
  retainLogs: RetainLogsPolicy | undefined;
};

/**
 * Wire a parent: the registry over the object's SQLite storage and its children's namespaces, detached runs talking
 * into the conversation, the conversation itself, and the event sockets every frame and conversation event goes to. The composition root of `AgentToolParent`; nothing here decides anything.
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
  const events = new ParentEventSockets(ctx, { clock: systemClock, ...options.eventSocketOptions });
  const transport = new DurableObjectChildTransport({ parentId: ctx.id.toString(), namespaces: options.children });
  // The conversation's turn in flight is the root of the tree of every run its tools dispatch (core-runs' binding).
  let chat: ParentChat | undefined;
  const { hooks, ...registryOptions } = options.registryOptions;
  const tree = bindConversationTurns({
    current: () => {
      const engine = chat?.engine;
      const turnId = engine?.activeTurnId ?? null;
      const budget = engine?.activeBudget ?? null;
      return engine && turnId !== null && budget !== null
        ? { turnId, budget, isResumed: engine.isActiveTurnResumed }
        : null;
    },
    registry: () => registry,
    track,
    ...(hooks ? { hooks } : {}),
  });
  const registry: AgentToolRegistry = new AgentToolRegistry({
    store: new DurableObjectRunStore(ctx.storage),
    transport,
    clock: systemClock,
    broadcast: (frame) => events.broadcastRunFrame(frame),
    waitUntil: track,
    ...tree.registryOptions(),
    ...registryOptions,
  });
  chat = new ParentChat(ctx, {
    clock: systemClock,
    stream: options.stream,
    tools: options.tools,
    track,
    announce: (event) => events.announce(event),
    onStop: tree.onStop,
    onBudgetExhausted: tree.onBudgetExhausted,
    ...options.chatOptions,
  });
  const detached = createDetachedRuns<object>({
    registry,
    host: options.host,
    scheduler,
    // Without a conversation, `notify` and `onMilestones` are refused at dispatch rather than failing later.
    ...(chat.hasConversation ? { chatHost: new EngineChatHost(chat.engine) } : {}),
    waitUntil: track,
    // A Durable Object runs as one instance at a time: a delivery claim left by an earlier incarnation (killed,
    // evicted or redeployed inside a handler) is taken back at start-up instead of a lease later.
    singleInstance: true,
    ...options.detachedOptions,
  });
  const retention = createLogRetention(registry, { policy: options.retainLogs ?? {}, scheduler });
  return { registry, transport, detached, chat, events, awake, recoveryOptions: options.recoveryOptions, retention };
}

/**
 * A parent's start-up, in the background: its token secret checked, start-up recovery of its live runs (then the finish
 * hooks a crash cut off), its detached runs followed again, and its conversation's cut turn resumed.
 * @internal
 */
export async function startUpParent(parts: ParentParts, tokens: Pick<RunReadTokens, "configError">): Promise<void> {
  // A misconfigured token secret is reported at start-up, not only when a token is first used.
  tokens.configError();
  const { registry, detached, chat, recoveryOptions, retention } = parts;
  const done = () => registry.deliverPendingFinishHooks();
  // After recovery, not during it: a run recovery finalizes is notified by the registry itself.
  const recovered = recoverAgentToolRuns(registry, recoveryOptions).done.then(done, done);
  await Promise.all([detached.start(), chat.engine.recover(), recovered, retention.start()]);
}

/** True when the object's storage holds any table: it has state to start up from (reads only, creates nothing). */
export function hasStoredState(storage: DurableObjectStorage): boolean {
  return storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").toArray().length > 0;
}
