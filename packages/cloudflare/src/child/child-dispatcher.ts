import {
  type AgentToolApproval,
  type AgentToolBudgetExhaustion,
  type AgentToolEventFrame,
  type AgentToolPosition,
  AgentToolRegistry,
  type AgentToolRegistryOptions,
  type AgentToolRunInfo,
  type AgentToolUsage,
  type RunEventSink,
  systemClock,
} from "@agent-tools/core-runs";
import { type ChildNamespace, DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { DurableObjectRunStore, type RunStoreTables } from "../adapters/durable-object-run-store.js";

/**
 * The tables of the runs a child dispatches itself, beside its own run's ledger (`RUN_STORE_TABLES`) in the same
 * database.
 */
export const DISPATCHED_RUN_TABLES: RunStoreTables = {
  runs: "agent_tool_dispatched_runs",
  log: "agent_tool_dispatched_log",
};

/**
 * The side of a child that runs agent tools itself: a registry of the runs its turns dispatch (its own children,
 * one Durable Object each, named under this child's id), over its own SQLite storage, placed in its tree by the run
 * whose turn dispatches (`position`). It cancels what a run dispatched when that run is cancelled.
 * @internal
 */
export class ChildDispatcher {
  readonly registry: AgentToolRegistry;
  readonly transport: DurableObjectChildTransport;
  /** Who hears the dispatched runs' frames (an AG-UI stream's feed of this child's descendants): none, mostly. */
  readonly #listeners = new Set<(frame: AgentToolEventFrame) => void>();

  constructor(options: {
    ctx: DurableObjectState;
    children: Record<string, ChildNamespace>;
    position: () => AgentToolPosition | null;
    /** Told of each run the moment it is admitted (it counts against the dispatching run's budget). */
    onDispatch: (run: AgentToolRunInfo) => void;
    /** A dispatched run reported its subtree's usage (the dispatching run's budget sums it). */
    onUsage: (run: AgentToolRunInfo, usage: AgentToolUsage) => void;
    /** A tool call in a dispatched run's tree needs approval, or was answered (re-published by the dispatching run). */
    onApproval: (run: AgentToolRunInfo, approval: AgentToolApproval) => void;
    traceContext?: AgentToolRegistryOptions["traceContext"];
    sink?: RunEventSink;
  }) {
    const { ctx } = options;
    this.transport = new DurableObjectChildTransport({ parentId: ctx.id.toString(), namespaces: options.children });
    this.registry = new AgentToolRegistry({
      store: new DurableObjectRunStore(ctx.storage, { tables: DISPATCHED_RUN_TABLES }),
      transport: this.transport,
      clock: systemClock,
      waitUntil: (work) => ctx.waitUntil(work),
      position: options.position,
      broadcast: (frame) => {
        for (const listener of this.#listeners) {
          try {
            listener(frame);
          } catch {
            // a listener never breaks a run
          }
        }
      },
      onDispatch: options.onDispatch,
      hooks: { onUsage: options.onUsage, onApproval: options.onApproval },
      ...(options.traceContext ? { traceContext: options.traceContext } : {}),
      ...(options.sink ? { sink: options.sink } : {}),
    });
  }

  /** Hear the frames of the runs this child dispatches (as a parent's event socket does its own); returns how to stop. */
  listen(listener: (frame: AgentToolEventFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Cancel what run `runId`'s turn dispatched (depth first) and resolve once it all ended. */
  async cancelDispatchedBy(runId: string, reason: string): Promise<void> {
    await this.registry.cancelDispatchedBy({ runId }, reason);
  }

  /** Tell what run `runId`'s turn dispatched that the budget ran out: each wraps up. */
  async wrapUpDispatchedBy(runId: string, reason: AgentToolBudgetExhaustion): Promise<void> {
    await this.registry.wrapUpDispatchedBy({ runId }, reason);
  }

  /** Forget every dispatched run, deleting their children's storage (this child is being destroyed). */
  async clear(): Promise<void> {
    await this.registry.clearAgentToolRuns();
  }
}
