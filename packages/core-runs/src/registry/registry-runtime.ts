import type { RunEvent } from "../events/run-events.js";
import type { ChildTransport } from "../ports/child-transport.js";
import type { Clock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolEventFrame } from "../protocol/index.js";
import type { AgentToolHooks } from "./registry-options.js";
import { RunAttention } from "./run-attention.js";
import type { RunRecord } from "./run-record.js";

/**
 * What the parts of one registry share: its ports, and guarded ways to reach clients, observers and hooks. Every
 * call here is isolated: a broken connection, sink or hook never breaks a run.
 */
export type RegistryRuntime = {
  readonly store: RunStore;
  readonly transport: ChildTransport;
  readonly clock: Clock;
  readonly hooks: AgentToolHooks;
  /** Who has work left on finished rows (the registry's finish ledger, extensions). */
  readonly attention: RunAttention;
  /** Send a frame to the parent's clients, and to the watchers of its run. */
  send(frame: AgentToolEventFrame): void;
  /** Also hand `listener` every frame sent for `runId` from now on, until the returned function is called. */
  watch(runId: string, listener: (frame: AgentToolEventFrame) => void): () => void;
  /** Emit an observability event. */
  emit(event: RunEvent): void;
  /** Call a user hook; a throw or rejection becomes an `agent_tool:hook:error` event. */
  callHook(hook: string, run: Pick<RunRecord, "runId" | "agentType">, call: () => unknown): Promise<void>;
  /** Track background work (hooks): kept alive through `waitUntil`, awaited by `whenIdle`. */
  background(work: Promise<void>): void;
  /** Resolves once the background work started so far has settled. */
  whenIdle(): Promise<void>;
};

export type RegistryRuntimeOptions = {
  store: RunStore;
  transport: ChildTransport;
  clock: Clock;
  sink: RunEventSink;
  hooks: AgentToolHooks;
  broadcast: (frame: AgentToolEventFrame) => void;
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
};

/** @internal */
export function createRegistryRuntime(options: RegistryRuntimeOptions): RegistryRuntime {
  const { sink, broadcast, waitUntil, clock } = options;
  const pending = new Set<Promise<void>>();
  const watchers = new Map<string, Set<(frame: AgentToolEventFrame) => void>>();
  const notify = (runId: string, frame: AgentToolEventFrame) => {
    for (const listener of watchers.get(runId) ?? []) {
      try {
        listener(frame);
      } catch {
        // A watcher's failure is its own: the run and the other watchers go on.
      }
    }
  };
  const emit = (event: RunEvent) => {
    try {
      sink.emit(event);
    } catch {
      // observability never breaks a run
    }
  };
  return {
    store: options.store,
    transport: options.transport,
    clock,
    hooks: options.hooks,
    attention: new RunAttention(),
    send(frame) {
      try {
        broadcast(frame);
      } catch {
        // A broken connection must not break the run.
      }
      if (watchers.size === 0) return;
      const { event } = frame;
      if (event.kind === "cleared") for (const runId of event.runIds) notify(runId, frame);
      else notify(event.runId, frame);
    },
    watch(runId, listener) {
      let listeners = watchers.get(runId);
      if (!listeners) {
        listeners = new Set();
        watchers.set(runId, listeners);
      }
      // A wrapper per call: watching twice with the same function gives two independent subscriptions.
      const entry = (frame: AgentToolEventFrame) => listener(frame);
      listeners.add(entry);
      return () => {
        const current = watchers.get(runId);
        if (!current) return;
        current.delete(entry);
        if (current.size === 0) watchers.delete(runId);
      };
    },
    emit,
    async callHook(hook, run, call) {
      try {
        await call();
      } catch (error) {
        emit({
          type: "agent_tool:hook:error",
          hook,
          runId: run.runId,
          agentType: run.agentType,
          errorName: error instanceof Error ? error.name : typeof error,
          at: clock.now(),
        });
      }
    },
    background(work) {
      pending.add(work);
      waitUntil?.(work);
      void work.finally(() => pending.delete(work));
    },
    async whenIdle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
