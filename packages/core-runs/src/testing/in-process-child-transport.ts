import type { AgentToolChildDefinition } from "../child/child-definition.js";
import { AgentToolChildRunner } from "../child/child-runner.js";
import { AgentToolsError } from "../errors.js";
import type {
  ChildRef,
  ChildStartOptions,
  ChildTransport,
  StartTailOptions,
  TailOptions,
} from "../ports/child-transport.js";
import { type Clock, systemClock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import type {
  AgentToolApprovalAnswer,
  AgentToolBudgetExhaustion,
  AgentToolRunInspection,
  AgentToolTailItem,
} from "../protocol/index.js";
import { InMemoryRunStore } from "./in-memory-run-store.js";

export type InProcessChildTransportOptions = {
  /** The child types this parent may run, by agentType. */
  children: readonly AgentToolChildDefinition[];
  clock?: Clock;
  sink?: RunEventSink;
  /** Storage per child instance; default a new `InMemoryRunStore` each (kept across `evict`). */
  createStore?: (ref: ChildRef) => RunStore;
  /**
   * Storage that outlives this transport (the same children after a restart of their parent's process): an instance
   * whose storage is found here is made on first use, as one that this transport created.
   */
  persisted?: (ref: ChildRef) => RunStore | undefined;
  /** Make an instance's runner (default: an `AgentToolChildRunner` of the registered definition over `store`). */
  createRunner?: (ref: ChildRef, store: RunStore) => AgentToolChildRunner;
};

type ChildInstance = { runner: AgentToolChildRunner; store: RunStore; evicted: AbortController };

/**
 * A `ChildTransport` whose children live in this process: one child instance (a runner with its own store) per
 * `(agentType, runId)`, so runs never share storage, and two transports (two parents) never share children.
 * `evict(ref)` drops an instance's memory but keeps its storage, like a Durable Object eviction.
 * `calls` records every call, for assertions.
 */
export class InProcessChildTransport implements ChildTransport {
  readonly calls: Array<{ method: keyof ChildTransport; ref: ChildRef }> = [];
  readonly #definitions = new Map<string, AgentToolChildDefinition>();
  readonly #instances = new Map<string, ChildInstance>();
  readonly #stores = new Map<string, RunStore>();
  readonly #clock: Clock;
  readonly #sink: RunEventSink | undefined;
  readonly #createStore: (ref: ChildRef) => RunStore;
  readonly #createRunner: ((ref: ChildRef, store: RunStore) => AgentToolChildRunner) | undefined;
  readonly #persisted: ((ref: ChildRef) => RunStore | undefined) | undefined;

  constructor(options: InProcessChildTransportOptions) {
    for (const definition of options.children) this.#definitions.set(definition.agentType, definition);
    this.#clock = options.clock ?? systemClock;
    this.#sink = options.sink;
    this.#createStore = options.createStore ?? (() => new InMemoryRunStore());
    this.#createRunner = options.createRunner;
    this.#persisted = options.persisted;
  }

  async start(ref: ChildRef, input: unknown, options?: ChildStartOptions): Promise<AgentToolRunInspection> {
    this.calls.push({ method: "start", ref });
    return this.#instance(ref, true).runner.start(ref.runId, input, options);
  }

  async startTail(ref: ChildRef, input: unknown, options: ChildStartOptions, tail: StartTailOptions) {
    this.calls.push({ method: "startTail", ref });
    const instance = this.#instance(ref, true);
    const signal = tail.signal ? AbortSignal.any([tail.signal, instance.evicted.signal]) : instance.evicted.signal;
    return instance.runner.startTail(ref.runId, input, options, { signal });
  }

  async answerApproval(ref: ChildRef, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    this.calls.push({ method: "answerApproval", ref });
    return (await this.#instance(ref, false)?.runner.answerApproval(ref.runId, approvalId, answer)) ?? false;
  }

  async wrapUp(ref: ChildRef, reason: AgentToolBudgetExhaustion): Promise<void> {
    this.calls.push({ method: "wrapUp", ref });
    this.#instance(ref, false)?.runner.wrapUp(ref.runId, reason);
  }

  async inspect(ref: ChildRef): Promise<AgentToolRunInspection | null> {
    this.calls.push({ method: "inspect", ref });
    const instance = this.#instance(ref, false);
    return instance ? instance.runner.inspect(ref.runId) : null;
  }

  tail(ref: ChildRef, options: TailOptions): ReadableStream<AgentToolTailItem> {
    this.calls.push({ method: "tail", ref });
    const instance = this.#instance(ref, false);
    if (!instance) return new ReadableStream({ start: (controller) => controller.close() });
    // An eviction ends the tails this instance serves, without a terminal (as a broken RPC stream would).
    const signal = options.signal
      ? AbortSignal.any([options.signal, instance.evicted.signal])
      : instance.evicted.signal;
    return instance.runner.tail(ref.runId, { ...options, signal });
  }

  async cancel(ref: ChildRef, reason?: string): Promise<void> {
    this.calls.push({ method: "cancel", ref });
    await this.#instance(ref, false)?.runner.cancel(ref.runId, reason);
  }

  async destroy(ref: ChildRef): Promise<void> {
    this.calls.push({ method: "destroy", ref });
    const instance = this.#instance(ref, false);
    await instance?.runner.destroy(ref.runId);
    this.#instances.delete(key(ref));
    this.#stores.delete(key(ref));
  }

  /** The child instance's runner (for tests: `appendChunk`, `getMessages`…), or undefined if never created. */
  runnerFor(ref: ChildRef): AgentToolChildRunner | undefined {
    return this.#instance(ref, false)?.runner;
  }

  /** True when a child instance exists (or has storage) for the ref. */
  hasChild(ref: ChildRef): boolean {
    return this.#stores.has(key(ref));
  }

  /** How many child instances have storage. */
  get childCount(): number {
    return this.#stores.size;
  }

  /**
   * Drop the instance's memory (live turns are lost), keeping its storage, as an eviction would: the tails it
   * serves end without a terminal, and the next call makes a new instance, which resumes a cut-off run from its log.
   * (A turn still running in the dropped instance is the test's to stop: it is not cancelled.)
   */
  evict(ref: ChildRef): void {
    this.#instances.get(key(ref))?.evicted.abort();
    this.#instances.delete(key(ref));
  }

  #instance(ref: ChildRef, create: true): ChildInstance;
  #instance(ref: ChildRef, create: false): ChildInstance | undefined;
  #instance(ref: ChildRef, create: boolean): ChildInstance | undefined {
    const id = key(ref);
    const existing = this.#instances.get(id);
    if (existing) return existing;
    let store = this.#stores.get(id) ?? this.#persisted?.(ref);
    if (store) this.#stores.set(id, store);
    if (!store && !create) return undefined;
    const definition = this.#definitions.get(ref.agentType);
    if (!definition) {
      throw new AgentToolsError("UNKNOWN_AGENT_TYPE", `No child agent type "${ref.agentType}" is registered`);
    }
    if (!store) {
      store = this.#createStore(ref);
      this.#stores.set(id, store);
    }
    const runner =
      this.#createRunner?.(ref, store) ??
      new AgentToolChildRunner({ definition, store, clock: this.#clock, ...(this.#sink ? { sink: this.#sink } : {}) });
    const instance = { runner, store, evicted: new AbortController() };
    this.#instances.set(id, instance);
    return instance;
  }
}

function key(ref: ChildRef): string {
  return `${ref.agentType}\u0000${ref.runId}`;
}
