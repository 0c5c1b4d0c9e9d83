import {
  AgentToolParent,
  type ChatTurnContext,
  type ChildNamespace,
  DurableObjectChatStore,
  DurableObjectChildTransport,
  DurableObjectRunStore,
} from "@agent-tools/cloudflare";
import { type AgentToolChildRpc, childObjectName } from "@agent-tools/cloudflare/internal";
import { createLogRetention, getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { RunEventSink, RunRecord } from "@agent-tools/core-runs/internal";
import type { AgentToolLogEntry } from "@agent-tools/core-runs/protocol";
import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessageChunk,
} from "ai";
import {
  type ChatScenario,
  countSchema,
  fixedAnswer,
  plainTool,
  scriptedToolModel,
  seededMessage,
} from "./bench-chat.js";
import { BENCH_CHILD_TYPE } from "./bench-child.js";
import type { REAL_CHILD_TYPE } from "./real-child.js";
import { installSqlMeter, probeStorage, type SqlMeter, type StorageProbe } from "./sql-meter.js";
import { type StubInput, stubChunks, stubSummary } from "./stub-chunks.js";
import type { TurnCostSample } from "./turn-cost.js";
import { takeChildCounters } from "./wake-counters.js";

/** A child agentType a bench parent dispatches; the Worker binds that child's Durable Objects under the same name. */
export type BenchChildType = typeof BENCH_CHILD_TYPE | typeof REAL_CHILD_TYPE;

/** Each target binds the parent and the child type its parent dispatches (target.json `durableObjects`). */
export type BenchEnv = {
  BenchParent: DurableObjectNamespace<BenchParent>;
} & Partial<Record<BenchChildType, DurableObjectNamespace>>;

/** A text frame sent after the replay of a connect: not an agent-tool frame (the harness ignores it). */
export const REPLAY_DONE_TYPE = "bench-replay-done";

type ProbeableChild = AgentToolChildRpc & {
  benchStorageProbe(withSchema?: boolean): Promise<StorageProbe>;
  benchTurnCost(count: number, turns: number): Promise<TurnCostSample>;
};

/** Parent-side counters, reset on read by `benchStats`. */
type ParentCounters = { woken: number; replays: number; replayFrames: number };

/** Per parent object id: survives the object being evicted (module state of the one isolate under Miniflare). */
const parentCounters = new Map<string, ParentCounters>();

function countersOf(parentId: string): ParentCounters {
  let found = parentCounters.get(parentId);
  if (!found) {
    found = { woken: 0, replays: 0, replayFrames: 0 };
    parentCounters.set(parentId, found);
  }
  return found;
}

/**
 * The benchmark parent: `AgentToolParent` from `@agent-tools/cloudflare`, subclassed as the README's example does
 * (its children, its conversation), so every workload measures the path users ship — the registry, detached runs,
 * recovery and the conversation wired by the package, the events socket with replay and cursors, start-up that
 * re-attaches live runs. What it adds is measurement: RPC methods serving the anchor harness's `/bench/*` contract
 * and `pnpm bench`'s extra workloads, a SQL meter, and counters (replays through the registry's event sink).
 *
 * Every run goes to one child type, `static childType` (default: the stub `BenchChild`); a target's parent that
 * dispatches another child is a subclass that sets it (real-child/worker.ts).
 */
export class BenchParent extends AgentToolParent<BenchEnv> {
  /** The agentType this parent's runs go to; the Worker binds its Durable Objects under the same name. */
  static readonly childType: BenchChildType = BENCH_CHILD_TYPE;

  readonly childType: BenchChildType;
  readonly meter: SqlMeter;
  /** The same tables the registry writes, for the bench's own reads and for seeding retained runs. */
  readonly store: DurableObjectRunStore;
  /** Reaches this parent's child objects (the same names the registry's transport uses), for probes. */
  readonly #probes: DurableObjectChildTransport;
  readonly #counters: ParentCounters;
  /** Children addressed outside the registry (W5's never-used probe), for `/bench/stats`. */
  readonly #extraChildren = new Set<string>();
  readonly #children: DurableObjectNamespace;

  constructor(ctx: DurableObjectState, env: BenchEnv) {
    super(ctx, env);
    this.childType = new.target.childType;
    const children = env[this.childType];
    if (!children) throw new Error(`no Durable Object binding named ${this.childType} (target.json durableObjects)`);
    this.#children = children;
    // Before the parts are built (on first use, after this constructor): the schema work is metered too.
    this.meter = installSqlMeter(ctx.storage);
    this.#counters = countersOf(ctx.id.toString());
    this.#counters.woken += 1;
    this.store = new DurableObjectRunStore(ctx.storage);
    this.#probes = new DurableObjectChildTransport({
      parentId: ctx.id.toString(),
      namespaces: { [this.childType]: children },
    });
  }

  protected children(): Record<string, ChildNamespace> {
    return { [this.childType]: this.#children };
  }

  /** What the next chat turns do (`benchChatTurns`, `benchChatFanOut`): by default five fixed chunks, no model. */
  #scenario: ChatScenario = { kind: "fixed" };

  /** `bench`: the child as an agent tool (as the README wires one); `plain`: the same turn without a child. */
  protected override getTools(): ToolSet {
    return {
      bench: this.agentTool(this.childType, { description: "Run the stub child", inputSchema: countSchema }),
      plain: plainTool(),
    };
  }

  /** A turn as the scenario says: fixed chunks, or `streamText` over a scripted model calling a tool (bench-chat.ts). */
  protected override async onChatMessage({
    messages,
    tools,
    abortSignal,
  }: ChatTurnContext): Promise<ReadableStream<UIMessageChunk>> {
    const scenario = this.#scenario;
    if (scenario.kind === "fixed") return fixedAnswer();
    const result = streamText({
      model: scriptedToolModel(scenario),
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(2),
      abortSignal,
    });
    return toUIMessageStream({ stream: result.stream, tools });
  }

  /** The cap on live runs, raised for the fan-out workload (a turn of 1 000 agent tool calls). */
  protected override registryOptions(): { sink: RunEventSink; maxConcurrentAgentTools: number } {
    return { ...this.#registryOptions(), maxConcurrentAgentTools: 100_000 };
  }

  /** The registry's events go to the process-wide hub as usual; replays are counted on the way. */
  #registryOptions(): { sink: RunEventSink } {
    const hub = getDefaultRunEventHub();
    return {
      sink: {
        emit: (event) => {
          if (event.type === "agent_tool:replay") {
            this.#counters.replays += 1;
            this.#counters.replayFrames += Number(event["frames"] ?? 0);
          }
          hub.emit(event);
        },
      },
    };
  }

  /**
   * The events socket, as `AgentToolParent` serves it (replay with cursors, then live frames), followed by the
   * bench's `bench-replay-done` frame on the new socket (the harness times a replay to it).
   */
  override async fetch(request: Request): Promise<Response> {
    const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
    if (!isUpgrade) return super.fetch(request);
    const before = new Set(this.ctx.getWebSockets());
    const started = Date.now();
    const response = await super.fetch(request);
    const ms = Date.now() - started;
    for (const socket of this.ctx.getWebSockets()) {
      if (!before.has(socket)) socket.send(JSON.stringify({ type: REPLAY_DONE_TYPE, ms }));
    }
    return response;
  }

  // ── the harness contract ──────────────────────────────────────────────────────────────────────────────────

  benchPing(): { now: number } {
    return { now: Date.now() };
  }

  /** W1 / W2: one awaited run, timed inside the object. */
  async benchRun(
    runId: string,
    count: number,
    deltaChars?: number,
  ): Promise<{ ms: number; status: string; error?: string }> {
    const started = Date.now();
    const result = await this.registry.runAgentTool(this.childType, { runId, input: stubInput(count, deltaChars) });
    const ms = Date.now() - started;
    return result.ok ? { ms, status: "completed" } : { ms, status: result.status, error: result.error };
  }

  /** W3 and the seeding of W4: N concurrent awaited runs. */
  async benchFanOut(
    prefix: string,
    runs: number,
    count: number,
  ): Promise<{ ms: number; statuses: Record<string, number>; errors: string[] }> {
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: runs }, (_, index) =>
        this.registry.runAgentTool(this.childType, {
          runId: `${prefix}-${index}`,
          input: stubInput(count),
          displayOrder: index,
        }),
      ),
    );
    const ms = Date.now() - started;
    const statuses: Record<string, number> = {};
    const errors: string[] = [];
    for (const result of results) {
      const status = result.ok ? "completed" : result.status;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (!result.ok && errors.length < 3) errors.push(result.error);
    }
    return { ms, statuses, errors };
  }

  /** W5: SQL rows written and database size of the parent and the run's child, for one run of C chunks. */
  async benchStorage(runId: string, count: number, growthRuns = 0): Promise<Record<string, unknown>> {
    // A throwaway run first: the measured run pays no one-time work on the parent.
    await this.registry.runAgentTool(this.childType, { runId: `${runId}-warm`, input: stubInput(3) });
    const sizeBefore = this.ctx.storage.sql.databaseSize;
    this.meter.reset();
    const result = await this.registry.runAgentTool(this.childType, { runId, input: stubInput(count) });
    const parentMeter = this.meter.read();
    const sizeAfter = this.ctx.storage.sql.databaseSize;

    const child = this.#child(runId);
    const childProbe = await child.benchStorageProbe();
    // A child object that never ran a turn, with the store's tables created (as in every used child), so that
    // child − childEmpty is the run's own cost. The tables' creation is reported in `childEmpty`.
    const emptyRef = { agentType: this.childType, runId: `${runId}-empty` };
    this.#extraChildren.add(this.#childId(emptyRef));
    const emptyProbe = await this.#child(emptyRef.runId).benchStorageProbe(true);

    const growthBefore = this.ctx.storage.sql.databaseSize;
    this.meter.reset();
    for (let index = 0; index < growthRuns; index += 1) {
      await this.registry.runAgentTool(this.childType, {
        runId: `${runId}-growth-${index}`,
        input: stubInput(count),
      });
    }
    const growthMeter = this.meter.read();
    const growthAfter = this.ctx.storage.sql.databaseSize;
    const parentProbe = probeStorage(this.ctx.storage, this.meter);
    return {
      status: result.ok ? "completed" : result.status,
      parent: {
        rowsWritten: parentMeter.rowsWritten,
        rowsRead: parentMeter.rowsRead,
        statements: parentMeter.statements,
        meterInstalled: this.meter.installed,
        databaseSizeBefore: sizeBefore,
        databaseSizeAfter: sizeAfter,
        databaseSizeDelta: sizeAfter - sizeBefore,
        growthRuns,
        growthBytesPerRun: growthRuns > 0 ? (growthAfter - growthBefore) / growthRuns : null,
        growthRowsWrittenPerRun: growthRuns > 0 ? growthMeter.rowsWritten / growthRuns : null,
        tableRows: parentProbe.tableRows,
        writers: parentMeter.writers,
        trace: parentMeter.trace,
      },
      child: {
        rowsWritten: childProbe.meter.rowsWritten,
        rowsRead: childProbe.meter.rowsRead,
        statements: childProbe.meter.statements,
        meterInstalled: childProbe.meterInstalled,
        databaseSize: childProbe.databaseSize,
        tableRows: childProbe.tableRows,
        writers: childProbe.meter.writers,
      },
      childEmpty: {
        rowsWritten: emptyProbe.meter.rowsWritten,
        rowsRead: emptyProbe.meter.rowsRead,
        statements: emptyProbe.meter.statements,
        databaseSize: emptyProbe.databaseSize,
        tableRows: emptyProbe.tableRows,
        writers: emptyProbe.meter.writers,
      },
    };
  }

  /**
   * `GET /bench/stats`: counters since the last call (reset on read). `childrenWoken` counts constructor runs of
   * this parent's child objects (every run it holds, plus W5's probe); `childCalls` their RPC calls by method.
   */
  async benchStats(): Promise<Record<string, unknown>> {
    const records = await this.store.listRuns();
    const childIds = records.map((record) => this.#childId(record));
    const children = takeChildCounters([...childIds, ...this.#extraChildren]);
    const parent = { ...this.#counters };
    Object.assign(this.#counters, { woken: 0, replays: 0, replayFrames: 0 });
    return {
      retainedRuns: records.length,
      childrenWoken: children.childrenWoken,
      childCalls: children.childCalls,
      parentWoken: parent.woken,
      replays: parent.replays,
      replayFrames: parent.replayFrames,
    };
  }

  /**
   * What this parent's start-up read (it starts up as it is constructed over stored state): SQL rows read from
   * construction until start-up is done (recovery, detached runs' first look, the conversation's cut turn), by
   * statement. Call first after the object woke.
   */
  async benchStartup(): Promise<{ rowsRead: number; statements: number; readers: Record<string, number> }> {
    await this.whenAgentToolsReady();
    const { rowsRead, statements, readers } = this.meter.read();
    return { rowsRead, statements, readers };
  }

  /** `scripts/turn-cost.mjs`: the child-only micro-measure (turn-cost.ts), in a fresh child object of this parent's. */
  benchTurnCost(runId: string, count: number, turns: number): Promise<TurnCostSample> {
    return this.#child(runId).benchTurnCost(count, turns);
  }

  // ── pnpm bench only ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * Chat turns sent from code (`sendChatMessage`: the engine's durable turn, as a client's send gets it), one after
   * another, each timed inside the object: `tool` is `fixed` (no model), `plain` (a scripted model calling an
   * ordinary tool) or `bench` (the same calling the stub child as an agent tool, `count` chunks).
   */
  async benchChatTurns(
    tool: "fixed" | "plain" | "bench",
    turns: number,
    count: number,
  ): Promise<{ ms: number[]; rowsRead: number[]; readers: Record<string, number>; answers: number }> {
    this.#scenario = tool === "fixed" ? { kind: "fixed" } : { kind: "tool", tool, calls: 1, count };
    const ms: number[] = [];
    const rowsRead: number[] = [];
    let readers: Record<string, number> = {};
    let answers = 0;
    for (let index = 0; index < turns; index += 1) {
      this.meter.reset();
      const started = Date.now();
      const answer = await this.sendChatMessage(`turn ${index} ${crypto.randomUUID()}`);
      ms.push(Date.now() - started);
      // What the parent's SQLite read for the turn (the stub child's reads are its own object's).
      const reading = this.meter.read();
      rowsRead.push(reading.rowsRead);
      readers = reading.readers;
      if (answer) answers += 1;
    }
    return { ms, rowsRead, readers, answers };
  }

  /**
   * One chat turn whose model calls the stub child `calls` times at once (`count` chunks each): every run awaited,
   * the answer stored. Resolves the turn's in-object time and how its runs ended. `tool: "plain"`: the same turn
   * calling an ordinary tool instead (what the turn costs without children: the model's stream, the engine).
   */
  async benchChatFanOut(
    calls: number,
    count: number,
    tool: "bench" | "plain" = "bench",
  ): Promise<Record<string, unknown>> {
    this.#scenario = { kind: "tool", tool, calls, count };
    const before = new Set((await this.store.listRuns()).map((record) => record.runId));
    const started = Date.now();
    const answer = await this.sendChatMessage(`fan out ${calls} ${crypto.randomUUID()}`);
    const ms = Date.now() - started;
    const runs = (await this.store.listRuns()).filter((record) => !before.has(record.runId));
    const statuses: Record<string, number> = {};
    for (const record of runs) statuses[record.status] = (statuses[record.status] ?? 0) + 1;
    const toolParts = answer?.parts.filter((part) => part.type === `tool-${tool}`) ?? [];
    return {
      ms,
      runs: runs.length,
      statuses,
      toolParts: toolParts.length,
      outputs: toolParts.filter((part) => (part as { state?: string }).state === "output-available").length,
    };
  }

  /**
   * A conversation of `count` stored messages written straight through the conversation's store (before the engine
   * has read it: call on a parent whose conversation was never used), each of about `chars` characters.
   */
  async benchSeedConversation(prefix: string, count: number, chars: number): Promise<{ ms: number }> {
    const started = Date.now();
    const store = new DurableObjectChatStore(this.ctx.storage);
    for (let index = 0; index < count; index += 1) await store.upsertMessage(seededMessage(prefix, index, chars));
    return { ms: Date.now() - started };
  }

  // ── pnpm bench only: retained runs ───────────────────────────────────────────────────────────────────────

  /**
   * Retained finished runs written straight through the store (no child objects): each a completed row and a
   * log of `chunksPerRun` stub chunks in one batch, as `runAgentTool` leaves them. For the memory figures, which
   * need thousands of rows.
   */
  async benchSeedRetained(
    prefix: string,
    runs: number,
    chunksPerRun: number,
  ): Promise<{ ms: number; retainedRuns: number }> {
    const started = Date.now();
    const now = Date.now();
    for (let index = 0; index < runs; index += 1) {
      const runId = `${prefix}-${index}`;
      const record: RunRecord = {
        runId,
        agentType: this.childType,
        status: "completed",
        revision: 3,
        startedAt: now - runs + index,
        updatedAt: now,
        completedAt: now,
        displayOrder: 0,
        inputPreview: JSON.stringify(stubInput(chunksPerRun)),
        startAcknowledged: true,
        lastSequence: chunksPerRun,
        summary: stubSummary(chunksPerRun),
        finishNotifiedRevision: 3,
      };
      await this.store.insertRun(record);
      if (chunksPerRun > 0) {
        const entries = stubChunks(chunksPerRun).map((body, position) => ({ sequence: position + 1, body, at: now }));
        await this.store.appendLog(runId, entries);
      }
    }
    return { ms: Date.now() - started, retainedRuns: (await this.store.listRuns()).length };
  }

  /**
   * The parent's database after `runs` finished runs, with and without log retention: each run a copy of a template
   * (`stub`: the row and log a real awaited run of C stub chunks left in this parent; `tokens`: a real child's shape —
   * start, step, text, C word-sized deltas a few ms apart, the text as summary — written as the parent writes it),
   * inserted through the store in steps of `step` runs, as runs arrive. With `maxRuns` ≥ 0, after each step the
   * parent's log retention (`createLogRetention`, the code its alarm runs, here ticked directly) applies
   * `{ maxRuns }` in passes of 20 runs, so pages freed by compaction are reused by the next runs, as they would be.
   * Pass times: the first of each step (it lists the full logs, as the first pass after a wake-up does) and the rest.
   */
  async benchRetentionSize(
    prefix: string,
    runs: number,
    count: number,
    shape: "stub" | "tokens",
    maxRuns: number,
    step: number,
  ): Promise<Record<string, unknown>> {
    const template = shape === "stub" ? await this.#stubTemplate(`${prefix}-template`, count) : tokensTemplate(count);
    const sql = this.ctx.storage.sql;
    const sizeBefore = sql.databaseSize;
    const firstPassMs: number[] = [];
    const passMs: number[] = [];
    let compacted = 0;
    const started = Date.now();
    for (let from = 0; from < runs; from += step) {
      for (let index = from; index < Math.min(runs, from + step); index += 1) {
        const runId = `${prefix}-${index}`;
        const startedAt = template.record.startedAt + index;
        await this.store.insertRun({ ...template.record, runId, startedAt, completedAt: startedAt + 1 });
        // As the parent writes a run it follows: the first entry at once, the rest at its next write.
        await this.store.appendLog(runId, template.entries.slice(0, 1));
        await this.store.appendLog(runId, template.entries.slice(1));
      }
      if (maxRuns < 0) continue;
      // Seeded runs reach no finish listener: a new retention per step, whose first pass lists the full logs (as
      // the first pass after a wake-up does), and whose later passes read only what they compact.
      const retention = createLogRetention(this.registry, {
        policy: { maxRuns, settleMs: 0 },
        scheduler: { wakeAt: async () => {} },
      });
      await retention.start();
      for (let pass = 0; ; pass += 1) {
        const passStarted = Date.now();
        const report = await retention.tick();
        if (!report.ran) break;
        (pass === 0 ? firstPassMs : passMs).push(Date.now() - passStarted);
        compacted += report.compacted;
        if (report.remaining === 0) break;
      }
      retention.stop();
    }
    const ms = Date.now() - started;
    const sizeAfter = sql.databaseSize;
    const count0 = (query: string) => sql.exec<{ n: number }>(query).one().n;
    return {
      shape,
      runs,
      chunksPerRun: template.entries.length,
      maxRuns: maxRuns >= 0 ? maxRuns : null,
      databaseSizeBefore: sizeBefore,
      databaseSizeAfter: sizeAfter,
      databaseBytesPerRun: (sizeAfter - sizeBefore) / runs,
      logRows: count0("SELECT COUNT(*) AS n FROM agent_tool_log"),
      logBytes: count0("SELECT SUM(length(CAST(entries AS BLOB))) AS n FROM agent_tool_log"),
      compactedRuns: count0("SELECT COUNT(*) AS n FROM agent_tool_log WHERE first_sequence = 0"),
      compacted,
      passes: firstPassMs.length + passMs.length,
      maxFirstPassMs: firstPassMs.length > 0 ? Math.max(...firstPassMs) : null,
      maxPassMs: passMs.length > 0 ? Math.max(...passMs) : null,
      medianPassMs: passMs.length > 0 ? [...passMs].sort((a, b) => a - b)[passMs.length >> 1] : null,
      ms,
    };
  }

  /** The row and log a real awaited run of `count` stub chunks leaves in this parent. */
  async #stubTemplate(runId: string, count: number): Promise<{ record: RunRecord; entries: AgentToolLogEntry[] }> {
    await this.registry.runAgentTool(this.childType, { runId, input: stubInput(count) });
    const record = await this.store.getRun(runId);
    if (record === null) throw new Error(`no row for ${runId}`);
    return { record, entries: await this.store.readLog(runId) };
  }

  #childId(ref: { agentType: string; runId: string }): string {
    return this.#children.idFromName(childObjectName(this.ctx.id.toString(), ref)).toString();
  }

  #child(runId: string): ProbeableChild {
    return this.#probes.stub({ agentType: this.childType, runId }) as unknown as ProbeableChild;
  }
}

const WORDS = "the quick brown fox jumps over a lazy dog while seven tired owls watch from an old oak tree".split(" ");

/** A real child's run as the parent keeps it: C word-sized deltas a few milliseconds apart, the text as summary. */
function tokensTemplate(count: number): { record: RunRecord; entries: AgentToolLogEntry[] } {
  const now = Date.now();
  const deltas = Array.from({ length: count }, (_, index) => `${WORDS[index % WORDS.length]} `);
  const bodies: UIMessageChunk[] = [
    { type: "start" },
    { type: "start-step" },
    { type: "text-start", id: "txt-0" },
    ...deltas.map((delta): UIMessageChunk => ({ type: "text-delta", id: "txt-0", delta })),
    { type: "text-end", id: "txt-0" },
    { type: "finish-step" },
    { type: "finish" },
  ];
  const gaps = [0, 12, 3, 25, 7, 0, 18];
  let at = now;
  const entries = bodies.map((body, index) => {
    at += gaps[index % gaps.length] ?? 0;
    return { sequence: index + 1, body, at };
  });
  const record: RunRecord = {
    runId: "template",
    agentType: "RealChild",
    status: "completed",
    revision: 3,
    startedAt: now,
    updatedAt: at,
    completedAt: at,
    displayOrder: 0,
    inputPreview: JSON.stringify({ count }),
    startAcknowledged: true,
    lastSequence: entries.length,
    summary: deltas.join(""),
    endCause: "child",
    finishNotifiedRevision: 3,
  };
  return { record, entries };
}

function stubInput(count: number, deltaChars?: number): StubInput {
  return deltaChars === undefined ? { count } : { count, deltaChars };
}
