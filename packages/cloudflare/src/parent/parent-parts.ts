import type { ChatTurnContext } from "@agent-tools/chat";
import { EngineChatHost } from "@agent-tools/chat";
import {
  AgentToolRegistry,
  type AgentToolRegistryOptions,
  type AgentToolRunInfo,
  type AgentToolTurnStream,
  createLogRetention,
  type LogRetention,
  type RetainLogsPolicy,
  type RunBudget,
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

/** The root id of the tree of runs a chat turn dispatches. */
export function turnRootId(turnId: string): string {
  return `turn:${turnId}`;
}

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
  // The conversation's turn in flight is the root of the tree of every run its tools dispatch: they live within what
  // is left of its budget, count against it, and report what they spent to it.
  let turn: () => { turnId: string; budget: RunBudget } | null = () => null;
  const ofTurn = (run: AgentToolRunInfo) => {
    const current = turn();
    return current && run.tree?.rootId === turnRootId(current.turnId) && run.tree.ancestors.length === 0
      ? current.budget
      : null;
  };
  const { hooks, ...registryOptions } = options.registryOptions;
  const registry = new AgentToolRegistry({
    store: new DurableObjectRunStore(ctx.storage),
    transport,
    clock: systemClock,
    broadcast: (frame) => events.broadcastRunFrame(frame),
    waitUntil: track,
    position: () => {
      const current = turn();
      if (current === null) return null;
      const budget = current.budget.remaining();
      return { rootId: turnRootId(current.turnId), path: [], ...(budget !== undefined ? { budget } : {}) };
    },
    onDispatch: (run) => ofTurn(run)?.recordDispatch(),
    hooks: {
      ...hooks,
      onUsage: (run, usage) => {
        ofTurn(run)?.recordChild(run.runId, usage);
        return hooks?.onUsage?.(run, usage);
      },
    },
    ...registryOptions,
  });
  const chat = new ParentChat(ctx, {
    clock: systemClock,
    stream: options.stream,
    tools: options.tools,
    track,
    announce: (event) => events.announce(event),
    // A Stop cancels the turn's whole tree, from its leaves up (a run dispatched to outlive it is kept).
    onStop: (turnId, reason) => track(registry.cancelDispatchedBy({ rootId: turnRootId(turnId) }, reason)),
    // The turn's budget ran out: every run its tools dispatched wraps up (and tells what it dispatched).
    onBudgetExhausted: (turnId, reason) => track(registry.wrapUpDispatchedBy({ rootId: turnRootId(turnId) }, reason)),
    ...options.chatOptions,
  });
  // A turn resumed after a restart goes on from what the runs it dispatched before spent (their rows): read once, the
  // first time its budget is used.
  let restoredTurn: string | null = null;
  turn = () => {
    const { activeTurnId, activeBudget, isActiveTurnResumed } = chat.engine;
    if (activeTurnId === null || activeBudget === null) return null;
    if (isActiveTurnResumed && restoredTurn !== activeTurnId) {
      restoredTurn = activeTurnId;
      const restored = registry
        .usageDispatchedBy({ rootId: turnRootId(activeTurnId) })
        .then(({ children, dispatched }) => activeBudget.restore(children, dispatched));
      track(restored.catch(() => undefined));
    }
    return { turnId: activeTurnId, budget: activeBudget };
  };
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
