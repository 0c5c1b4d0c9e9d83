// Test support for this package's tests (not published: `*.test.*` is excluded from `files`).
import {
  type AgentToolLifecycleResult,
  AgentToolRegistry,
  type AgentToolRunInfo,
  type ChatHost,
  type ChildTransport,
  type RunEvent,
  type RunStore,
  type SyntheticChatMessage,
} from "@agent-tools/core-runs";
import {
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  ManualWakeupScheduler,
  ScriptedChild,
} from "@agent-tools/core-runs/testing";
import type { UIMessage } from "ai";
import { createDetachedRuns, type DetachedRuns, type DetachedRunsOptions } from "./detach-run.js";

export const HOUR = 60 * 60 * 1000;
export const DAY = 24 * HOUR;

/** A parent host whose `onDone` records results; `failures` makes the next calls throw. */
export class TestHost {
  readonly calls: Array<{ run: AgentToolRunInfo; result: AgentToolLifecycleResult }> = [];
  failures = 0;
  /** When set, calls wait for it (a handler that hangs until the test releases it, or forever). */
  gate: Promise<void> | null = null;
  notAMethod = 42;

  async onDone(run: AgentToolRunInfo, result: AgentToolLifecycleResult): Promise<void> {
    this.calls.push({ run, result });
    if (this.gate !== null) await this.gate;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error("handler failed");
    }
  }

  statuses(): string[] {
    return this.calls.map((call) => call.result.status);
  }
}

/** A `ChatHost` in memory: appended messages, turns started, tasks run one at a time. */
export class FakeChatHost implements ChatHost {
  /** The synthetic messages appended, in order. */
  readonly appended: SyntheticChatMessage[];
  /** The whole chat: the appended messages and, after each model turn, its answer. */
  readonly chat: UIMessage[];
  turns = 0;
  #queue: Promise<void> = Promise.resolve();

  constructor(appended: SyntheticChatMessage[] = [], chat: UIMessage[] = []) {
    this.appended = appended;
    this.chat = chat;
  }

  /** The same chat (its stored messages) in a new process: no task or turn in flight. */
  restarted(): FakeChatHost {
    const next = new FakeChatHost(this.appended, this.chat);
    next.turns = this.turns;
    return next;
  }

  async appendMessage(message: SyntheticChatMessage): Promise<boolean> {
    if (this.appended.some((existing) => existing.id === message.id)) return false;
    this.appended.push(message);
    this.chat.push({
      id: message.id,
      role: message.role,
      metadata: { source: message.source },
      parts: [{ type: "text", text: message.text }],
    });
    return true;
  }

  runBetweenTurns(task: () => Promise<void>): Promise<void> {
    const result = this.#queue.then(task);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** A model turn: its answer is saved when it ends. */
  async startTurn(): Promise<void> {
    this.turns += 1;
    this.chat.push({ id: `answer-${this.turns}`, role: "assistant", parts: [{ type: "text", text: "noted" }] });
  }

  async messages(): Promise<UIMessage[]> {
    return [...this.chat];
  }
}

const hang = () => new Promise<never>(() => {});

/** A view of a store that stops answering (hangs) once its process crashed. */
function freezableStore(store: RunStore, isCrashed: () => boolean): RunStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => (isCrashed() ? hang() : value.apply(target, args));
    },
  });
}

/** A view of a transport that stops answering once its process crashed; open tails freeze too. */
function freezableTransport(transport: ChildTransport, crashed: Promise<void>, isCrashed: () => boolean) {
  const frozen: ChildTransport = {
    start: (ref, input) => (isCrashed() ? hang() : transport.start(ref, input)),
    inspect: (ref) => (isCrashed() ? hang() : transport.inspect(ref)),
    cancel: (ref, reason) => (isCrashed() ? hang() : transport.cancel(ref, reason)),
    destroy: (ref) => (isCrashed() ? hang() : transport.destroy(ref)),
    tail(ref, options) {
      if (isCrashed()) return new ReadableStream({ pull: () => hang() });
      const reader = transport.tail(ref, options).getReader();
      return new ReadableStream({
        async pull(controller) {
          const next = await Promise.race([reader.read(), crashed.then(() => null)]);
          if (next === null) return hang();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
    },
  };
  return frozen;
}

export type ProcessOptions = Partial<Omit<DetachedRunsOptions<TestHost>, "registry" | "host" | "scheduler">>;

/** One parent "process": a registry and its detached runs over the shared store and children. */
export type ParentProcess = {
  registry: AgentToolRegistry;
  detached: DetachedRuns<TestHost>;
  host: TestHost;
  scheduler: ManualWakeupScheduler;
  /** Freeze this process: its store and transport calls hang from now on, as if it died. */
  crash(): void;
};

/**
 * A test world: a manual clock, a shared store (the parent's durable storage), children that outlive parent
 * processes, and events. `boot()` starts a parent process; `crash()` on it and `boot()` again simulate a restart.
 */
export function createWorld(options: { chatHost?: FakeChatHost; detached?: ProcessOptions } = {}) {
  const clock = new ManualClock(1_000_000);
  const store = new InMemoryRunStore();
  const worker = new ScriptedChild("Worker");
  const children = new InProcessChildTransport({ children: [worker.definition], clock });
  const events: RunEvent[] = [];
  const sink = { emit: (event: RunEvent) => events.push(event) };
  let current: ParentProcess | null = null;

  const boot = (overrides: ProcessOptions = {}): ParentProcess => {
    let isCrashed = false;
    let markCrashed = () => {};
    const crashed = new Promise<void>((resolve) => {
      markCrashed = resolve;
    });
    const registry = new AgentToolRegistry({
      store: freezableStore(store, () => isCrashed),
      transport: freezableTransport(children, crashed, () => isCrashed),
      clock,
      sink,
    });
    const host = current?.host ?? new TestHost();
    const scheduler = new ManualWakeupScheduler();
    const detached = createDetachedRuns({
      registry,
      host,
      scheduler,
      ...(options.chatHost ? { chatHost: options.chatHost } : {}),
      ...options.detached,
      ...overrides,
    });
    scheduler.onWake(async () => {
      await detached.tick();
    });
    const process: ParentProcess = {
      registry,
      detached,
      host,
      scheduler,
      crash() {
        isCrashed = true;
        markCrashed();
        detached.dispose();
      },
    };
    current = process;
    return process;
  };

  const parent = boot();

  return {
    clock,
    store,
    worker,
    children,
    events,
    parent,
    boot,
    /** Let background work settle (microtasks, then the detached runs' own background work). */
    async settle(process: ParentProcess = current ?? parent) {
      await flushMicrotasks(100);
      await process.detached.whenIdle();
      await flushMicrotasks(100);
    },
    /** Move time forward, then fire the process's wake-up if it is due (as an alarm would). */
    async advance(ms: number, process: ParentProcess = current ?? parent) {
      await clock.advanceBy(ms);
      await process.scheduler.fireIfDue(clock.now());
      await flushMicrotasks(100);
      await process.detached.whenIdle();
    },
    eventsOf(type: string) {
      return events.filter((event) => event.type === type);
    },
    /** Emit a progress signal from the child's turn (ephemeral, like `reportProgress`). */
    async signal(runId: string, fraction = 0.5) {
      const context = await worker.run(runId).context;
      context.publishEphemeral(
        { type: "data-agent-progress", data: { fraction, at: clock.now() }, transient: true } as never,
        { fraction, at: clock.now() },
      );
      await flushMicrotasks(50);
    },
    /** Append a durable milestone from the child's turn. */
    async milestone(runId: string, name: string, message?: string) {
      const context = await worker.run(runId).context;
      context.appendChunk(
        {
          type: "data-agent-milestone",
          data: { milestone: name, ...(message ? { message } : {}), at: clock.now() },
        } as never,
        { name, ...(message ? { message } : {}) },
      );
      // The child writes its log per burst: this one ends when its event loop turns (here: when the clock moves).
      await clock.advanceBy(0);
      await flushMicrotasks(50);
    },
    /** Finish the child's turn with some text. */
    async complete(runId: string, text = "done") {
      const run = worker.run(runId);
      run.emit(
        { type: "start" },
        { type: "start-step" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish-step" },
        { type: "finish" },
      );
      run.complete();
      await flushMicrotasks(100);
    },
  };
}

export type World = ReturnType<typeof createWorld>;
