import {
  type AgentToolEventFrame,
  AgentToolRegistry,
  type AgentToolRegistryOptions,
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
 * whose turn dispatches (`tree`: core-runs' binding, which also goes down the tree through this registry).
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
    /** Its place in the tree: the binding of the child's runs to what they dispatch (`bindChildRuns`). */
    tree: Pick<AgentToolRegistryOptions, "position" | "onDispatch" | "hooks">;
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
      ...options.tree,
      broadcast: (frame) => {
        for (const listener of this.#listeners) {
          try {
            listener(frame);
          } catch {
            // a listener never breaks a run
          }
        }
      },
      ...(options.traceContext ? { traceContext: options.traceContext } : {}),
      ...(options.sink ? { sink: options.sink } : {}),
    });
  }

  /** Hear the frames of the runs this child dispatches (as a parent's event socket does its own); returns how to stop. */
  listen(listener: (frame: AgentToolEventFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forget every dispatched run, deleting their children's storage (this child is being destroyed). */
  async clear(): Promise<void> {
    await this.registry.clearAgentToolRuns();
  }
}
