import type { AgentToolChildDefinition } from "../child-definition.js";
import { AgentToolChildRunner } from "../child-runner.js";
import type { ChildRef } from "../ports/child-transport.js";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolEventFrame, AgentToolTree } from "../protocol/index.js";
import type { AgentToolRegistryOptions } from "../registry-options.js";
import { createRunEventHub } from "../run-event-hub.js";
import { AgentToolRegistry } from "../run-registry.js";
import { bindChildRuns } from "../turn/tree-binding.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";
import { InProcessChildTransport } from "./in-process-child-transport.js";
import type { ManualClock } from "./manual-clock.js";

/** Methods of a store that only read (every other method is a write). */
const READS: ReadonlySet<string> = new Set([
  "getRun",
  "listRuns",
  "readLog",
  "messages",
  "hasMessage",
  "turns",
  "turnChunks",
]);

/** A promise that never settles: what everything of a stopped world waits on. */
export function never<TValue>(): Promise<TValue> {
  return new Promise<TValue>(() => {});
}

/**
 * Stops a world right after its `stopAfter`-th durable write lands: from then on no write, read, effect (a tool, a
 * model call) or clock tick of that world happens — every store call and every effect waits forever, and the world's
 * clock is never moved again. Counts the writes of every store it wraps (all the tree's storage), in the order they
 * land, so that a test can stop a scripted tree at each write position in turn.
 */
export class WorldStop {
  readonly #stopAfter: number | null;
  /** Each write as it landed: the store method's name (to check that a scripted tree writes in the same order). */
  readonly trace: string[] = [];
  #writes = 0;
  #isStopped = false;

  constructor(options: { stopAfter?: number | null } = {}) {
    this.#stopAfter = options.stopAfter ?? null;
  }

  /** The writes that landed in this world. */
  get writes(): number {
    return this.#writes;
  }

  get isStopped(): boolean {
    return this.#isStopped;
  }

  /** Run an effect of the world (a tool, a model call): never, once it stopped. */
  effect<TValue>(run: () => TValue): TValue | Promise<never> {
    return this.#isStopped ? never() : run();
  }

  /** `store` (any object with async methods) in this world: each write counted as it lands; once stopped, nothing. */
  wrap<TStore extends object>(store: TStore): TStore {
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function" || typeof property !== "string") return value;
        return (...args: unknown[]) => {
          if (this.#isStopped) return never();
          const result = (value as (...params: unknown[]) => unknown).apply(target, args);
          if (READS.has(property) || !(result instanceof Promise)) return result;
          return result.then((landed: unknown) => {
            this.#writes += 1;
            this.trace.push(property);
            if (this.#writes === this.#stopAfter) this.#isStopped = true;
            return this.#isStopped ? never() : landed;
          });
        };
      },
    });
  }
}

/** One agent type of a tree: how an instance of it is defined in a world, and what its runs dispatch. */
export type TreeAgent = {
  agentType: string;
  /** The agent types its runs dispatch: each instance gets a registry of its own, bound to its runs' tree. */
  children?: readonly string[];
  /** Its definition in one world; `registry` is what its runs dispatch through (`null` without `children`). */
  define(context: {
    registry: AgentToolRegistry | null;
    world: TreeWorld;
    ref: ChildRef;
  }): Omit<
    AgentToolChildDefinition,
    "agentType" | "onCancel" | "onBudgetExhausted" | "onApprovalAnswer" | "dispatchedUsage"
  >;
};

/**
 * A tree of agents in memory, over storage that outlives each of its worlds: a world is one run of the process (its
 * registries, transports and runners); `world()` makes a fresh one on the same storage, as a restart would.
 */
export class InMemoryTree {
  readonly agents: readonly TreeAgent[];
  /** Every store of the tree, by its place (`<registry key>/<agentType>/<runId>` for a child instance). */
  readonly stores = new Map<string, InMemoryRunStore>();

  constructor(agents: readonly TreeAgent[]) {
    this.agents = agents;
  }

  /** The store at `key` (made on first use). */
  store(key: string): InMemoryRunStore {
    let store = this.stores.get(key);
    if (!store) {
      store = new InMemoryRunStore();
      this.stores.set(key, store);
    }
    return store;
  }

  /** A world over this tree's storage: its writes counted and stopped by `stop`, its time `clock`'s. */
  world(clock: ManualClock, stop: WorldStop = new WorldStop()): TreeWorld {
    return new TreeWorld(this, clock, stop);
  }
}

/**
 * One run of a tree's process: registries over the tree's stores (each child instance's runner, and the registry of
 * what its runs dispatch, bound to their tree with `bindChildRuns`, as `AgentToolChild` binds them).
 */
export class TreeWorld {
  readonly tree: InMemoryTree;
  readonly clock: ManualClock;
  readonly stop: WorldStop;
  readonly sink = createRunEventHub();
  /** Every registry made in this world, by its key. */
  readonly registries = new Map<string, AgentToolRegistry>();
  /** The frames each registry broadcast, by its key. */
  readonly frames = new Map<string, AgentToolEventFrame[]>();

  constructor(tree: InMemoryTree, clock: ManualClock, stop: WorldStop) {
    this.tree = tree;
    this.clock = clock;
    this.stop = stop;
  }

  /** The registry at `key` (its runs' children under `key/…`), made on first use with `options`. */
  registry(key: string, options: Partial<AgentToolRegistryOptions> = {}): AgentToolRegistry {
    const known = this.registries.get(key);
    if (known) return known;
    const frames: AgentToolEventFrame[] = [];
    const placeOf = (ref: ChildRef) => `${key}/${ref.agentType}/${ref.runId}`;
    const transport = new InProcessChildTransport({
      children: this.tree.agents.map((agent) => ({ agentType: agent.agentType, turn: () => never() })),
      clock: this.clock,
      sink: this.sink,
      createStore: (ref) => this.stop.wrap(this.tree.store(placeOf(ref))),
      persisted: (ref) => {
        const stored = this.tree.stores.get(placeOf(ref));
        return stored ? this.stop.wrap(stored) : undefined;
      },
      createRunner: (ref, store) => this.#runner(placeOf(ref), ref, store),
    });
    const registry = new AgentToolRegistry({
      store: this.stop.wrap(this.tree.store(key)),
      transport,
      clock: this.clock,
      sink: this.sink,
      broadcast: (frame) => frames.push(frame),
      ...options,
    });
    this.registries.set(key, registry);
    this.frames.set(key, frames);
    return registry;
  }

  /** Follow again every live run of the registry at `key` (start-up recovery, as `@agent-tools/recovery` does). */
  async recover(key: string): Promise<void> {
    const registry = this.registries.get(key);
    if (!registry) return;
    const live = await registry.listAgentToolRuns({ status: ["starting", "running"] });
    for (const run of live) void registry.waitForAgentToolRun(run.runId).catch(() => undefined);
  }

  /** An instance's runner: its definition in this world, and the registry of what its runs dispatch. */
  #runner(place: string, ref: ChildRef, store: RunStore): AgentToolChildRunner {
    const agent = this.tree.agents.find((candidate) => candidate.agentType === ref.agentType);
    if (!agent) throw new Error(`no agent "${ref.agentType}" in the tree`);
    let runner: AgentToolChildRunner | undefined;
    // One run per instance: the run whose turn dispatches is the instance's (its tree from the runner's run scope).
    let scope: { runId: string; tree: AgentToolTree | null } | null = null;
    const binding = agent.children
      ? bindChildRuns({
          runner: () => runner as AgentToolChildRunner,
          agentType: agent.agentType,
          currentRun: () => scope,
        })
      : null;
    const registry = binding ? this.registry(`${place}>`, binding.registryOptions()) : null;
    if (registry) void this.recover(`${place}>`);
    const definition: AgentToolChildDefinition = {
      agentType: agent.agentType,
      ...agent.define({ registry, world: this, ref }),
      ...(binding ? binding.definitionHooks(() => registry) : {}),
    };
    runner = new AgentToolChildRunner({
      definition,
      store,
      clock: this.clock,
      sink: this.sink,
      runScope: (runId, run, tree) => {
        scope = { runId, tree };
        return run();
      },
    });
    return runner;
  }
}
