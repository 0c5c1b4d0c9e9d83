import {
  type AgentToolEventFrame,
  AgentToolRegistry,
  type AgentToolRunInspection,
  type AgentToolTailItem,
  type ChildTransport,
  type RunStore,
  type TailOptions,
} from "@agent-tools/core-runs";
import {
  type AgentToolHooks,
  type ChildRef,
  createRunEventHub,
  type RunEvent,
  type RunRecord,
} from "@agent-tools/core-runs/internal";
import {
  echoChild,
  flushMicrotasks,
  InMemoryRunStore,
  InProcessChildTransport,
  ManualClock,
  makeRunRecord,
  ScriptedChild,
  storeWith,
  textChunks,
} from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { recoverAgentToolRuns } from "./recover-agent-tool-runs.js";
import type { RecoveryRowEvent } from "./recovery-events.js";

const T0 = 1_000_000;

/** A transport that lets a test replace any method for some runs (hung, failing, counting). */
class FaultyTransport implements ChildTransport {
  readonly inner: ChildTransport;
  readonly log: string[];
  inspect: (ref: ChildRef) => Promise<AgentToolRunInspection | null>;
  tail: (ref: ChildRef, options: TailOptions) => ReadableStream<AgentToolTailItem>;
  start: (ref: ChildRef, input: unknown) => Promise<AgentToolRunInspection>;
  cancel: (ref: ChildRef, reason?: string) => Promise<void>;
  destroy: (ref: ChildRef) => Promise<void>;

  constructor(inner: ChildTransport, log: string[]) {
    this.inner = inner;
    this.log = log;
    this.inspect = (ref) => {
      log.push(`inspect ${ref.runId}`);
      return inner.inspect(ref);
    };
    this.tail = (ref, options) => {
      log.push(`tail ${ref.runId} after ${options.afterSequence}`);
      return inner.tail(ref, options);
    };
    this.start = (ref, input) => {
      log.push(`start ${ref.runId}`);
      return inner.start(ref, input);
    };
    this.cancel = (ref, reason) => {
      log.push(`cancel ${ref.runId}`);
      return inner.cancel(ref, reason);
    };
    this.destroy = (ref) => inner.destroy(ref);
  }
}

const never = <TValue>() => new Promise<TValue>(() => {});

/** A stream that never yields and ignores every abort: a tail stuck in a hung transport. */
const stuckStream = () => new ReadableStream<AgentToolTailItem>({ pull: () => never<void>() });

type World = ReturnType<typeof createWorld>;

function createWorld() {
  const clock = new ManualClock(T0, { microtaskTurns: 200 });
  const scripted = new ScriptedChild("Scripted");
  const echo = echoChild("Echo", { chunks: (input) => textChunks([`echo ${String(input)}`]) });
  const childStores = new Map<string, InMemoryRunStore>();
  const children = new InProcessChildTransport({
    children: [scripted.definition, echo],
    clock,
    createStore: (ref) => {
      const childStore = new InMemoryRunStore();
      childStores.set(ref.runId, childStore);
      return childStore;
    },
  });
  const log: string[] = [];
  const transport = new FaultyTransport(children, log);
  const store = new InMemoryRunStore();
  const events: RunEvent[] = [];
  const sink = createRunEventHub();
  sink.subscribe((event) => events.push(event));
  const frames: AgentToolEventFrame[] = [];
  const finished: string[] = [];
  const hooks: AgentToolHooks = {
    onAgentToolFinish: (run, result) => {
      finished.push(`${run.runId}:${result.status}${result.reason ? `:${result.reason}` : ""}`);
      log.push(`finish ${run.runId} ${result.status}`);
    },
  };
  /** The parent after its restart: a new registry over the same store and children. */
  const registry = new AgentToolRegistry({
    store,
    transport,
    clock,
    sink,
    hooks,
    broadcast: (frame) => frames.push(frame),
  });
  const rowEvents = () => events.filter((event): event is RecoveryRowEvent => event.type === "agent_tool:recovery:row");
  return {
    clock,
    scripted,
    echo,
    children,
    childStores,
    transport,
    log,
    store,
    events,
    frames,
    finished,
    registry,
    rowEvents,
  };
}

/**
 * What the parent left behind when it stopped: its row for the run (acknowledged unless told), and, unless
 * `childStarted` is false, the child running the run on its own.
 */
async function leftBehind(
  world: World,
  runId: string,
  options: {
    agentType?: string;
    input?: unknown;
    childStarted?: boolean;
    acknowledged?: boolean;
    row?: Partial<RunRecord>;
  } = {},
): Promise<void> {
  const agentType = options.agentType ?? "Scripted";
  const input = options.input ?? `input of ${runId}`;
  const acknowledged = options.acknowledged ?? true;
  if (options.childStarted ?? true) await world.children.start({ agentType, runId }, input);
  const now = world.clock.now();
  await world.store.insertRun(
    makeRunRecord({
      runId,
      agentType,
      status: acknowledged ? "running" : "starting",
      revision: acknowledged ? 2 : 1,
      startedAt: now,
      updatedAt: now,
      startAcknowledged: acknowledged,
      parentToolCallId: `call-${runId}`,
      ...(acknowledged ? {} : { input }),
      ...options.row,
    }),
  );
}

const settle = () => flushMicrotasks(400);
const framesOf = (world: World, runId: string) =>
  world.frames.filter((frame) => "runId" in frame.event && frame.event.runId === runId);
const sequencesOf = (frames: AgentToolEventFrame[]) =>
  frames.flatMap((frame) => (frame.sequence !== undefined ? [frame.sequence] : []));
const kindsOf = (frames: AgentToolEventFrame[]) => frames.map((frame) => frame.event.kind);
const callsOf = (world: World, prefix: string) => world.log.filter((line) => line.startsWith(prefix));

describe("recoverAgentToolRuns: a child that finished while the parent was down", () => {
  it("is collected without running anything again: its log is drained, then its result recorded", async () => {
    const world = createWorld();
    await leftBehind(world, "done");
    const run = world.scripted.run("done");
    run.emit(...textChunks(["all ", "done"]));
    run.complete({ answer: 42 });
    await settle();

    const report = await recoverAgentToolRuns(world.registry).done;

    expect(report.rows).toEqual([
      { runId: "done", agentType: "Scripted", outcome: "finalized", status: "completed", durationMs: 0 },
    ]);
    expect(world.scripted.turns).toEqual(["done"]);
    expect(callsOf(world, "start")).toEqual([]);
    expect(kindsOf(framesOf(world, "done"))).toEqual([...Array(8).fill("chunk"), "finished"]);
    expect(sequencesOf(framesOf(world, "done"))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(framesOf(world, "done").at(-1)).toMatchObject({
      revision: 3,
      event: { kind: "finished", summary: "all done", output: { answer: 42 } },
    });
    expect(world.finished).toEqual(["done:completed"]);
    // The parent kept its own copy of the log: replaying the run does not wake the child.
    expect((await world.store.readLog("done")).map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const row = { runId: "done", agentType: "Scripted", outcome: "finalized", status: "completed", durationMs: 0 };
    // `payload`: what the origin page's observability example logs (`event.payload`).
    expect(world.rowEvents()).toEqual([{ type: "agent_tool:recovery:row", ...row, payload: row, at: T0 }]);
    const done = { rows: 1, finalized: 1, reattached: 0, interrupted: 0, cleared: 0, failed: 0, durationMs: 0 };
    expect(world.events.find((event) => event.type === "agent_tool:recovery:done")).toEqual({
      type: "agent_tool:recovery:done",
      ...done,
      payload: done,
      at: T0,
    });
  });

  it("collects a child that failed, as error, with its own message", async () => {
    const world = createWorld();
    await leftBehind(world, "failed");
    world.scripted.run("failed").fail(new Error("model unavailable"));
    await settle();
    const report = await recoverAgentToolRuns(world.registry).done;
    expect(report.rows[0]).toMatchObject({ outcome: "finalized", status: "error" });
    expect(framesOf(world, "failed").at(-1)).toMatchObject({ event: { kind: "error", error: "model unavailable" } });
  });
});

describe("recoverAgentToolRuns: a live child", () => {
  it("is re-attached after the last sequence the parent recorded: clients see no gap and no double", async () => {
    const world = createWorld();
    // The parent had recorded its copy of the log up to sequence 3 before it stopped.
    await leftBehind(world, "live", { row: { lastSequence: 3 } });
    const run = world.scripted.run("live");
    run.emit(...textChunks(["one ", "two ", "three"]).slice(0, 5));
    await world.clock.advanceBy(0); // the child writes the burst when its event loop turns (here: the clock moves)
    await settle();
    const childLog = await childLogOf(world, "live");
    await world.store.appendLog("live", childLog.slice(0, 3));
    // A client that saw 1..3 before the restart.
    const seenBefore = childLog.slice(0, 3).map((entry) => entry.sequence);

    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(0);
    expect(callsOf(world, "tail")).toEqual(["tail live after 3"]);
    expect(sequencesOf(framesOf(world, "live"))).toEqual([4, 5]);
    run.emit({ type: "text-end", id: "text-1" }, { type: "finish-step" }, { type: "finish" });
    run.complete();
    const report = await done;

    expect(report.rows[0]).toMatchObject({ runId: "live", outcome: "reattached", status: "completed" });
    const live = framesOf(world, "live");
    expect(kindsOf(live)).toEqual([...Array(5).fill("chunk"), "finished"]);
    expect(sequencesOf(live)).toEqual([4, 5, 6, 7, 8]);
    expect([...seenBefore, ...sequencesOf(live)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(world.scripted.turns).toEqual(["live"]);
    expect(world.finished).toEqual(["live:completed"]);

    // A client connecting afterwards gets the whole run, from the parent's own log.
    const replayed: AgentToolEventFrame[] = [];
    await world.registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(sequencesOf(replayed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(replayed.map((frame) => frame.event)).toEqual([
      expect.objectContaining({ kind: "started" }),
      ...childLog.map((entry) => ({ kind: "chunk", runId: "live", body: entry.body })),
      ...(await childLogOf(world, "live")).slice(childLog.length).map((entry) => ({
        kind: "chunk",
        runId: "live",
        body: entry.body,
      })),
      expect.objectContaining({ kind: "finished" }),
    ]);
  });

  it("carries on a stream the old parent's clients were watching, each sequence once after dedupe", async () => {
    const world = createWorld();
    // The old parent: it forwarded 1..3 to its clients, then stopped without writing anything more.
    const before: AgentToolEventFrame[] = [];
    const oldParent = new AgentToolRegistry({
      store: frozenAfterCrash(world.store),
      transport: frozenTransportAfterCrash(world.children, world.store),
      clock: world.clock,
      broadcast: (frame) => before.push(frame),
    });
    await oldParent.extension({ key: "test", read: () => ({}) }).admit("Scripted", { input: "x", runId: "carry" });
    const run = world.scripted.run("carry");
    await run.context;
    run.emit({ type: "start" });
    await world.clock.advanceBy(0); // the child writes the burst when its event loop turns (here: the clock moves)
    await settle();
    // The old parent's first bounded write, one interval after the first chunks: its copy of the log alone (no write
    // of the row, whose start acknowledgement rides on the next write). Later ones wait for the interval again.
    await world.clock.advanceBy(500);
    await settle();
    run.emit({ type: "start-step" }, { type: "text-start", id: "t" });
    await world.clock.advanceBy(0);
    await settle();
    crash(world.store);
    // The old parent persisted its position as far as its bounded writes got before it stopped.
    expect((await world.store.readLog("carry")).map((entry) => entry.sequence)).toEqual([1]);
    expect(await world.store.getRun("carry")).toMatchObject({ status: "starting", startAcknowledged: false });
    run.emit({ type: "text-delta", id: "t", delta: "late" });
    await settle();

    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(0);
    run.emit({ type: "text-end", id: "t" }, { type: "finish-step" }, { type: "finish" });
    run.complete();
    await done;

    const after = framesOf(world, "carry");
    expect(sequencesOf(before)).toEqual([1, 2, 3]);
    // The restarted parent started the child again (idempotently) and carried on from its copy of the log.
    expect(await world.store.getRun("carry")).toMatchObject({ status: "completed", startAcknowledged: true });
    expect(sequencesOf(after)).toEqual([2, 3, 4, 5, 6, 7]);
    // A client deduping by (runId, sequence) sees every sequence once, with the same body on both sides.
    const bySequence = new Map<number, unknown>();
    for (const frame of [...before, ...after]) {
      if (frame.sequence === undefined || frame.event.kind !== "chunk") continue;
      const known = bySequence.get(frame.sequence);
      if (known !== undefined) expect(frame.event.body).toEqual(known);
      bySequence.set(frame.sequence, frame.event.body);
    }
    expect([...bySequence.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(world.scripted.turns).toEqual(["carry"]);
    expect(world.finished).toEqual(["carry:completed"]);
  });

  it("gives up on silence as no-progress, each forwarded entry restarting the count; the child keeps running", async () => {
    const world = createWorld();
    await leftBehind(world, "slow");
    const run = world.scripted.run("slow");
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(0);

    await world.clock.advanceBy(100_000);
    run.emit({ type: "start" });
    await settle();
    await world.clock.advanceBy(100_000);
    run.emit({ type: "start-step" });
    await settle();
    // 200 s since re-attaching, but never 120 s of silence.
    await world.clock.advanceBy(119_999);
    expect(world.finished).toEqual([]);
    await world.clock.advanceBy(1);
    const report = await done;

    expect(report.rows).toEqual([
      {
        runId: "slow",
        agentType: "Scripted",
        outcome: "interrupted",
        status: "interrupted",
        reason: "no-progress",
        childStillRunning: true,
        durationMs: 320_000,
      },
    ]);
    expect(framesOf(world, "slow").at(-1)).toMatchObject({
      revision: 3,
      event: { kind: "interrupted", reason: "no-progress", childStillRunning: true },
    });
    expect(world.finished).toEqual(["slow:interrupted:no-progress"]);
    expect(callsOf(world, "cancel")).toEqual([]);
    expect(await world.children.inspect({ agentType: "Scripted", runId: "slow" })).toMatchObject({
      status: "running",
    });
    expect(world.rowEvents()[0]).toMatchObject({ outcome: "interrupted", reason: "no-progress" });
    expect(world.rowEvents()[0]?.payload).toEqual(report.rows[0]);

    // The typed reason is persisted and replayed to clients.
    const replayed: AgentToolEventFrame[] = [];
    await world.registry.replayAgentToolRuns((frame) => replayed.push(frame));
    expect(replayed.at(-1)).toMatchObject({
      replay: true,
      event: { kind: "interrupted", reason: "no-progress", childStillRunning: true },
    });
    expect(await world.registry.waitForAgentToolRun("unknown")).toMatchObject({ ok: false });
  });

  it("a re-dispatch after no-progress re-attaches and collects the real result, repairing the run", async () => {
    const world = createWorld();
    await leftBehind(world, "later", { input: "the topic" });
    const run = world.scripted.run("later");
    const { done } = recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 1_000 });
    await world.clock.advanceBy(1_000);
    expect((await done).rows[0]).toMatchObject({ reason: "no-progress", childStillRunning: true });

    const again = world.registry.runAgentTool("Scripted", { input: "the topic", runId: "later" });
    await settle();
    run.emit(...textChunks(["finally"]));
    run.complete();
    expect(await again).toEqual({
      ok: true,
      runId: "later",
      agentType: "Scripted",
      status: "completed",
      summary: "finally",
    });
    expect(world.finished).toEqual(["later:interrupted:no-progress", "later:completed"]);
    expect(await world.store.getRun("later")).toMatchObject({ status: "completed", revision: 4 });
    expect(world.scripted.turns).toEqual(["later"]);
    expect(callsOf(world, "start")).toEqual([]);
  });

  it("stops at the max window however busy the child is, then cancels it: the abort is not a second result", async () => {
    const world = createWorld();
    await leftBehind(world, "busy");
    const run = world.scripted.run("busy");
    const { done } = recoverAgentToolRuns(world.registry, { agentToolReattachMaxWindowMs: 60_000 });
    await world.clock.advanceBy(0);
    run.emit({ type: "start" }, { type: "start-step" }, { type: "text-start", id: "t" });
    for (let second = 10; second < 60; second += 10) {
      await world.clock.advanceBy(10_000);
      run.emit({ type: "text-delta", id: "t", delta: `${second} ` });
    }
    await world.clock.advanceBy(10_000);
    const report = await done;

    expect(report.rows[0]).toMatchObject({
      outcome: "interrupted",
      status: "interrupted",
      reason: "window-exceeded",
      childStillRunning: false,
      durationMs: 60_000,
    });
    // Following stopped first (the abort is not recorded), then the child was cancelled, then the truth recorded.
    expect(world.log.filter((line) => /^(finish|cancel) busy/.test(line))).toEqual([
      "cancel busy",
      "finish busy interrupted",
    ]);
    expect(await world.children.inspect({ agentType: "Scripted", runId: "busy" })).toMatchObject({
      status: "aborted",
    });
    await world.clock.advanceBy(60_000);
    expect(world.finished).toEqual(["busy:interrupted:window-exceeded"]);
    expect(kindsOf(framesOf(world, "busy")).filter((kind) => kind !== "chunk")).toEqual(["interrupted"]);
    expect(await world.store.getRun("busy")).toMatchObject({ status: "interrupted", revision: 3 });

    // Torn down: a re-dispatch returns the stored failure and starts nothing.
    expect(await world.registry.runAgentTool("Scripted", { input: "x", runId: "busy" })).toMatchObject({
      ok: false,
      status: "interrupted",
      reason: "window-exceeded",
      childStillRunning: false,
    });
    expect(world.scripted.turns).toEqual(["busy"]);
  });

  it("at the max window, a child the teardown cannot reach stays childStillRunning: true and is collected later", async () => {
    const world = createWorld();
    await leftBehind(world, "far");
    const run = world.scripted.run("far");
    world.transport.cancel = async (ref) => {
      world.log.push(`cancel ${ref.runId}`);
      throw new Error("child unreachable");
    };
    const { done } = recoverAgentToolRuns(world.registry, { agentToolReattachMaxWindowMs: 60_000 });
    await world.clock.advanceBy(0);
    run.emit({ type: "start" });
    await world.clock.advanceBy(60_000);
    const report = await done;
    expect(callsOf(world, "cancel far")).toHaveLength(1);
    expect(report.rows[0]).toMatchObject({
      outcome: "interrupted",
      reason: "window-exceeded",
      childStillRunning: true,
    });
    expect(await world.store.getRun("far")).toMatchObject({ status: "interrupted", childStillRunning: true });

    // The child kept running: a re-dispatch re-attaches and collects its real result.
    const again = world.registry.runAgentTool("Scripted", { input: "x", runId: "far" });
    await settle();
    run.emit(...textChunks(["made it"]).slice(1));
    run.complete();
    expect(await again).toMatchObject({ ok: true, status: "completed", summary: "made it" });
    expect(world.scripted.turns).toEqual(["far"]);
  });

  it("with a no-progress timeout of 0, collects finished children only and leaves live ones running", async () => {
    const world = createWorld();
    await leftBehind(world, "finished", { agentType: "Echo", input: "hi" });
    await leftBehind(world, "running");
    await settle();

    const report = await recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 0 }).done;

    expect(report.rows).toEqual([
      expect.objectContaining({ runId: "finished", outcome: "finalized", status: "completed" }),
      expect.objectContaining({
        runId: "running",
        outcome: "interrupted",
        reason: "no-progress",
        childStillRunning: true,
      }),
    ]);
    expect(callsOf(world, "tail")).toEqual(["tail finished after 0"]);
    expect(callsOf(world, "cancel")).toEqual([]);
    expect(world.echo.turns).toEqual(["finished"]);
    expect(await world.children.inspect({ agentType: "Scripted", runId: "running" })).toMatchObject({
      status: "running",
    });
    expect(world.finished.sort()).toEqual(["finished:completed", "running:interrupted:no-progress"]);
  });
});

describe("recoverAgentToolRuns: a run whose child never acknowledged start", () => {
  it("with a no-progress timeout of 0, is given up without starting anything", async () => {
    const world = createWorld();
    await leftBehind(world, "never", { acknowledged: false, childStarted: false });
    const report = await recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 0 }).done;
    expect(report.rows[0]).toMatchObject({ outcome: "interrupted", reason: "no-progress", childStillRunning: false });
    expect(callsOf(world, "start")).toEqual([]);
    expect(world.scripted.turns).toEqual([]);
  });

  it("re-sends the idempotent start from the input the parent kept, and follows the run", async () => {
    const world = createWorld();
    await leftBehind(world, "unsent", { acknowledged: false, childStarted: false, input: { topic: "owls" } });

    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(0);
    const run = world.scripted.run("unsent");
    expect((await run.context).input).toEqual({ topic: "owls" });
    run.emit(...textChunks(["owls"]));
    run.complete();
    const report = await done;

    expect(report.rows[0]).toMatchObject({ outcome: "reattached", status: "completed" });
    expect(callsOf(world, "start")).toEqual(["start unsent"]);
    expect(world.scripted.turns).toEqual(["unsent"]);
    const row = await world.store.getRun("unsent");
    expect(row).toMatchObject({ status: "completed", startAcknowledged: true });
    expect(row?.input).toBeUndefined();
  });

  it("never starts a second turn when the child had recorded the start the parent never saw acknowledged", async () => {
    const world = createWorld();
    await leftBehind(world, "half", { acknowledged: false, childStarted: true });
    const run = world.scripted.run("half");
    run.emit(...textChunks(["half"]));
    run.complete();
    await settle();

    const report = await recoverAgentToolRuns(world.registry).done;

    expect(report.rows[0]).toMatchObject({ outcome: "finalized", status: "completed" });
    expect(world.scripted.turns).toEqual(["half"]);
    expect(world.finished).toEqual(["half:completed"]);
  });
});

describe("recoverAgentToolRuns: children that cannot be classified", () => {
  it("inspect-timeout: an inspection that never answers", async () => {
    const world = createWorld();
    await leftBehind(world, "mute");
    world.transport.inspect = () => never();
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(1_999);
    expect(world.finished).toEqual([]);
    await world.clock.advanceBy(1);
    const report = await done;
    expect(report.rows[0]).toMatchObject({
      outcome: "interrupted",
      reason: "inspect-timeout",
      childStillRunning: true,
      durationMs: 2_000,
    });
    expect(framesOf(world, "mute").at(-1)).toMatchObject({
      event: { kind: "interrupted", reason: "inspect-timeout", childStillRunning: true },
    });
    expect(world.finished).toEqual(["mute:interrupted:inspect-timeout"]);
  });

  it("inspect-failed: inspections that keep failing, retried until the deadline", async () => {
    const world = createWorld();
    await leftBehind(world, "broken");
    world.transport.inspect = () => Promise.reject(new Error("connection refused"));
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(5_000);
    const report = await done;
    expect(report.rows[0]).toMatchObject({ outcome: "interrupted", reason: "inspect-failed", childStillRunning: true });
    expect(world.finished).toEqual(["broken:interrupted:inspect-failed"]);
  });

  it("a failed inspection followed by an answer is not a failure", async () => {
    const world = createWorld();
    await leftBehind(world, "flaky");
    world.scripted.run("flaky").emit(...textChunks(["ok"]));
    world.scripted.run("flaky").complete();
    let failures = 1;
    world.transport.inspect = (ref) =>
      failures-- > 0 ? Promise.reject(new Error("blip")) : world.children.inspect(ref);
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(100);
    expect((await done).rows[0]).toMatchObject({ outcome: "finalized", status: "completed" });
  });

  it("recovery-deadline: an inspection cut by the overall deadline", async () => {
    const world = createWorld();
    await leftBehind(world, "late");
    world.transport.inspect = () => never();
    const { done } = recoverAgentToolRuns(world.registry, {
      agentToolInspectTimeoutMs: 10_000,
      agentToolRecoveryDeadlineMs: 5_000,
    });
    await world.clock.advanceBy(5_000);
    const report = await done;
    expect(report.rows[0]).toMatchObject({
      outcome: "interrupted",
      reason: "recovery-deadline",
      childStillRunning: true,
      durationMs: 5_000,
    });
  });

  it("not-tailable: a child that has no record of an acknowledged run, after waiting within the deadline", async () => {
    const world = createWorld();
    await leftBehind(world, "forgotten", { childStarted: false });
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(4_999);
    expect(world.finished).toEqual([]);
    await world.clock.advanceBy(1);
    const report = await done;
    expect(report.rows[0]).toMatchObject({ outcome: "interrupted", reason: "not-tailable", childStillRunning: true });
    expect(callsOf(world, "inspect forgotten").length).toBeGreaterThan(3);
    expect(callsOf(world, "tail")).toEqual([]);
    expect(callsOf(world, "start")).toEqual([]);
  });

  it("not-tailable: a live child whose tail keeps breaking", async () => {
    const world = createWorld();
    await leftBehind(world, "jammed");
    world.transport.tail = () =>
      new ReadableStream({
        start: (controller) => controller.error(new Error("stream reset")),
      });
    const { done } = recoverAgentToolRuns(world.registry);
    // The registry tails again after clock-driven pauses, and gives up once its retry budget (60 s) is spent.
    await world.clock.advanceBy(60_000);
    const report = await done;
    expect(report.rows[0]).toMatchObject({ outcome: "interrupted", reason: "not-tailable", childStillRunning: true });
  });
});

describe("recoverAgentToolRuns: bounded and single-flight", () => {
  it("returns at once, and a second call while it runs returns the same recovery", async () => {
    const world = createWorld();
    await leftBehind(world, "one");
    const first = recoverAgentToolRuns(world.registry);
    const second = recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 1 });
    expect(second).toBe(first);
    await world.clock.advanceBy(0);
    world.scripted.run("one").emit(...textChunks(["one"]));
    world.scripted.run("one").complete();
    await first.done;
    expect(callsOf(world, "inspect one")).toHaveLength(1);
    expect(callsOf(world, "tail one")).toHaveLength(1);

    // Once done, a new call recovers again (nothing is left to recover).
    const third = recoverAgentToolRuns(world.registry);
    expect(third).not.toBe(first);
    expect((await third.done).rows).toEqual([]);
  });

  it("recovers each registry on its own", async () => {
    const world = createWorld();
    const other = new AgentToolRegistry({
      store: new InMemoryRunStore(),
      transport: world.transport,
      clock: world.clock,
    });
    expect(recoverAgentToolRuns(world.registry)).not.toBe(recoverAgentToolRuns(other));
  });

  it("a hung child never holds up the others", async () => {
    const world = createWorld();
    await leftBehind(world, "hung");
    await leftBehind(world, "healthy");
    world.transport.inspect = (ref) => (ref.runId === "hung" ? never() : world.children.inspect(ref));
    const { done } = recoverAgentToolRuns(world.registry);
    await world.clock.advanceBy(0);
    world.scripted.run("healthy").emit(...textChunks(["fine"]));
    world.scripted.run("healthy").complete();
    await settle();
    // The healthy run is recorded while the hung one is still being inspected.
    expect(world.finished).toEqual(["healthy:completed"]);
    await world.clock.advanceBy(2_000);
    const report = await done;
    // Rows are reported in the store's order.
    expect(report.rows).toEqual([
      expect.objectContaining({ runId: "healthy", outcome: "reattached", durationMs: 0 }),
      expect.objectContaining({ runId: "hung", outcome: "interrupted", reason: "inspect-timeout", durationMs: 2_000 }),
    ]);
  });

  it("leaves detached runs to their own budgets unless told to include them", async () => {
    const world = createWorld();
    await leftBehind(world, "background", { row: { detached: true } });
    await leftBehind(world, "awaited");
    await settle();
    const { done } = recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 1_000 });
    await world.clock.advanceBy(1_000);
    const report = await done;
    expect(report.rows.map((row) => row.runId)).toEqual(["awaited"]);
    expect((await world.registry.getAgentToolRun("background"))?.status).toBe("running");

    const again = recoverAgentToolRuns(world.registry, {
      agentToolReattachNoProgressTimeoutMs: 1_000,
      includeDetached: true,
    });
    await world.clock.advanceBy(1_000);
    expect((await again.done).rows.map((row) => row.runId)).toEqual(["background"]);
  });

  it("a tail that never yields and ignores the abort is given up after the silence, once", async () => {
    const world = createWorld();
    await leftBehind(world, "stuck");
    await leftBehind(world, "fine", { agentType: "Echo", input: "x" });
    await settle();
    world.transport.tail = (ref, options) =>
      ref.runId === "stuck" ? stuckStream() : world.children.tail(ref, options);
    const { done } = recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: 10_000 });
    await world.clock.advanceBy(0);
    expect(world.finished).toEqual(["fine:completed"]);
    // Silence (10 s): stopping settles at once even though the stuck tail ignores the abort.
    await world.clock.advanceBy(10_000);
    const report = await done;
    expect(report.rows).toEqual([
      expect.objectContaining({ runId: "fine", outcome: "finalized" }),
      expect.objectContaining({ runId: "stuck", outcome: "interrupted", reason: "no-progress", durationMs: 10_000 }),
    ]);
    await world.clock.advanceBy(60_000);
    expect(world.finished).toEqual(["fine:completed", "stuck:interrupted:no-progress"]);
  });

  it("reports a row whose recovery throws and leaves it for the next start-up", async () => {
    const world = createWorld();
    await leftBehind(world, "doomed");
    world.scripted.run("doomed").emit(...textChunks(["lost"]));
    world.scripted.run("doomed").complete();
    await settle();
    const failing: RunStore = { ...storeWith(world.store), appendLog: () => Promise.reject(new Error("disk full")) };
    const events: RunEvent[] = [];
    const sink = createRunEventHub();
    sink.subscribe((event) => events.push(event));
    const report = await recoverAgentToolRuns(
      new AgentToolRegistry({ store: failing, transport: world.transport, clock: world.clock, sink }),
    ).done;
    expect(report.rows).toEqual([]);
    expect(report.failures).toEqual([{ runId: "doomed", agentType: "Scripted", error: new Error("disk full") }]);
    const failed = { runId: "doomed", agentType: "Scripted", errorName: "Error" };
    expect(events.filter((event) => event.type.startsWith("agent_tool:recovery:"))).toEqual([
      { type: "agent_tool:recovery:row_failed", ...failed, payload: failed, at: T0 },
      expect.objectContaining({ type: "agent_tool:recovery:done", rows: 1, failed: 1 }),
    ]);
    expect((await world.store.getRun("doomed"))?.status).toBe("running");
  });

  it("rejects done (without an unhandled rejection) when the rows cannot be listed", async () => {
    const world = createWorld();
    const failing: RunStore = { ...storeWith(world.store), listRuns: () => Promise.reject(new Error("offline")) };
    const registry = new AgentToolRegistry({ store: failing, transport: world.transport, clock: world.clock });
    await expect(recoverAgentToolRuns(registry).done).rejects.toMatchObject({
      name: "AgentToolsError",
      code: "STORE_FAILED",
    });
  });

  it("refuses options out of range", () => {
    const world = createWorld();
    expect(() => recoverAgentToolRuns(world.registry, { agentToolInspectTimeoutMs: 0 })).toThrow(
      /agentToolInspectTimeoutMs/,
    );
    expect(() => recoverAgentToolRuns(world.registry, { agentToolReattachNoProgressTimeoutMs: -1 })).toThrow(
      /agentToolReattachNoProgressTimeoutMs/,
    );
    expect(() => recoverAgentToolRuns(world.registry, { agentToolReattachMaxWindowMs: Number.NaN })).toThrow(
      /agentToolReattachMaxWindowMs/,
    );
  });
});

/** The child's own stored log of a run. */
async function childLogOf(world: World, runId: string) {
  return (await world.childStores.get(runId)?.readLog(runId)) ?? [];
}

const crashed = new WeakSet<RunStore>();

/** A view of `store` whose calls never settle once `crash(store)` is called: the old parent's process died. */
function frozenAfterCrash(store: RunStore): RunStore {
  const guard =
    <TArgs extends unknown[], TResult>(call: (...args: TArgs) => Promise<TResult>) =>
    (...args: TArgs): Promise<TResult> =>
      crashed.has(store) ? never() : call(...args).then((value) => (crashed.has(store) ? never() : value));
  return {
    getRun: guard((runId) => store.getRun(runId)),
    insertRun: guard((record) => store.insertRun(record)),
    updateRun: guard((runId, patch, condition) => store.updateRun(runId, patch, condition)),
    listRuns: guard((filter) => store.listRuns(filter)),
    deleteRuns: guard((runIds) => store.deleteRuns(runIds)),
    appendLog: guard((runId, entries) => store.appendLog(runId, entries)),
    compactLog: guard((runId, entries) => store.compactLog(runId, entries)),
    readLog: guard((runId, options) => store.readLog(runId, options)),
  };
}

function crash(store: RunStore): void {
  crashed.add(store);
}

/** A view of `transport` for the old parent: after `crash(store)` its tails deliver nothing more. */
function frozenTransportAfterCrash(transport: ChildTransport, store: RunStore): ChildTransport {
  return {
    start: (ref, input) => transport.start(ref, input),
    inspect: (ref) => transport.inspect(ref),
    cancel: (ref, reason) => transport.cancel(ref, reason),
    destroy: (ref) => transport.destroy(ref),
    tail: (ref, options) => {
      const reader = transport.tail(ref, options).getReader();
      return new ReadableStream<AgentToolTailItem>({
        async pull(controller) {
          const next = await reader.read();
          if (crashed.has(store)) return never<void>();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
    },
  };
}
