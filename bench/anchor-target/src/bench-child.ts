import { DurableObject } from "cloudflare:workers";
import { DurableObjectRunStore } from "@agent-tools/cloudflare";
import {
  type AgentToolChildRpc,
  type StartTailAnswer,
  startTailAnswer,
  toNdjsonTail,
} from "@agent-tools/cloudflare/internal";
import {
  type AgentToolChildDefinition,
  AgentToolChildRunner,
  type AgentToolRunInspection,
  type AgentToolTurnContext,
  delay,
  systemClock,
} from "@agent-tools/core-runs";
import type { AgentToolSummaryContext } from "@agent-tools/core-runs/internal";
import type { UIMessageChunk } from "ai";
import { installSqlMeter, probeStorage, type SqlMeter, type StorageProbe } from "./sql-meter.js";
import { readStubInput, stubChunks, stubSummary } from "./stub-chunks.js";
import { measureTurnCost, type TurnCostSample } from "./turn-cost.js";
import { noteChildCall, noteChildWoken } from "./wake-counters.js";

/** The agentType parents dispatch, and the key of the child namespace in the transport. */
export const BENCH_CHILD_TYPE = "BenchChild";

/**
 * The deterministic child: one turn that emits the stub's C chunks at once (like an instant mock model), so the
 * figures measure our machinery: the runner's durable log, the RPC tail, the parent's registry and broadcast. Its
 * hooks are methods, and it holds a run's count only from its turn to its summary: the fan-out measures what a
 * thousand of these objects hold once their runs have ended.
 */
class StubDefinition implements AgentToolChildDefinition {
  readonly agentType = BENCH_CHILD_TYPE;
  #counts: Map<string, number> | undefined;

  turn({ runId, input }: AgentToolTurnContext): ReadableStream<UIMessageChunk> {
    const { count, deltaChars } = readStubInput(input);
    this.#counts ??= new Map();
    this.#counts.set(runId, count);
    const chunks = stubChunks(count, deltaChars);
    return new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
  }

  getAgentToolSummary({ runId }: AgentToolSummaryContext): string {
    const count = this.#counts?.get(runId) ?? 0;
    this.#counts?.delete(runId);
    if (this.#counts?.size === 0) this.#counts = undefined;
    return stubSummary(count);
  }
}

/** Let the event loop turn (a 0 ms timer), as AgentToolChild's runner does: one function for every object. */
const yieldToEventLoop = () => delay(systemClock, 0);

/**
 * A run's child object: the same RPC surface as the demo's `AgentToolChildObject`
 * (apps/demo/src/agents/agent-tool-child-object.ts), over the same adapters (`DurableObjectRunStore`, NDJSON
 * tail), without the demo's test-only turn counter (a KV read and write per turn) and without drill-in. Counts its
 * wake-ups and calls for `/bench/stats`, and meters its SQL for W5.
 */
export class BenchChild extends DurableObject<unknown> implements AgentToolChildRpc {
  readonly meter: SqlMeter;
  #runner: AgentToolChildRunner | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    this.meter = installSqlMeter(ctx.storage);
    noteChildWoken(ctx.id.toString());
  }

  get runner(): AgentToolChildRunner {
    this.#runner ??= new AgentToolChildRunner({
      definition: new StubDefinition(),
      store: new DurableObjectRunStore(this.ctx.storage, { indexed: false, runsInLog: true }),
      clock: systemClock,
      waitUntil: this.ctx.waitUntil.bind(this.ctx),
      // As AgentToolChild's runner: the instant stub turn lets the event loop turn after its first chunk and every 256.
      yieldToEventLoop,
    });
    return this.#runner;
  }

  #call(method: string): void {
    noteChildCall(this.ctx.id.toString(), method);
  }

  agentToolStart(runId: string, input: unknown): Promise<AgentToolRunInspection> {
    this.#call("start");
    return this.runner.start(runId, input);
  }

  async agentToolStartTail(
    runId: string,
    input: unknown,
    _options?: unknown,
    answer?: StartTailAnswer,
  ): Promise<ReadableStream<Uint8Array> | Uint8Array> {
    this.#call("startTail");
    return startTailAnswer(await this.runner.startTail(runId, input), answer);
  }

  agentToolInspect(runId: string): Promise<AgentToolRunInspection | null> {
    this.#call("inspect");
    return this.runner.inspect(runId);
  }

  async agentToolTail(runId: string, afterSequence: number): Promise<ReadableStream<Uint8Array>> {
    this.#call("tail");
    return toNdjsonTail(this.runner.tail(runId, { afterSequence }));
  }

  agentToolCancel(runId: string, reason?: string): Promise<void> {
    this.#call("cancel");
    return this.runner.cancel(runId, reason);
  }

  async agentToolDestroy(runId: string): Promise<void> {
    this.#call("destroy");
    await this.runner.destroy(runId);
    await this.ctx.storage.deleteAll();
    this.#runner = undefined;
  }

  agentToolMessages(runId: string) {
    this.#call("messages");
    return this.runner.getMessages(runId);
  }

  /** The child-only micro-measure (turn-cost.ts, `scripts/turn-cost.mjs`): `turns` stub turns of C chunks. */
  benchTurnCost(count: number, turns: number): Promise<TurnCostSample> {
    const input = { count };
    const definition = new StubDefinition();
    const turn = (context: AgentToolTurnContext) => definition.turn(context);
    return measureTurnCost(this, turn, this.meter, { input, text: JSON.stringify(input), count, turns });
  }

  /** W5: this object's database. `withSchema` first creates the store's tables (as any used child has them). */
  benchStorageProbe(withSchema = false): StorageProbe {
    if (withSchema) void this.runner;
    return probeStorage(this.ctx.storage, this.meter);
  }
}
