import {
  convertToModelMessages,
  isStepCount,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
  type UIMessageChunk,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_BURST_ENTRIES } from "../log/live-run-log.js";
import type { RunStore } from "../ports/run-store.js";
import {
  type AgentToolLogEntry,
  type AgentToolTailItem,
  readStepResetChunk,
  tailItemEntries,
} from "../protocol/index.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { flushMicrotasks, ManualClock, turnEventLoop } from "../testing/manual-clock.js";
import { echoChild, ScriptedChild, textChunks } from "../testing/scripted-child.js";
import {
  type ScriptedModelPart,
  scriptedModel,
  textStep,
  toolCallsStep,
  unitUsage as usage,
} from "../testing/scripted-model.js";
import { storeWith } from "../testing/store-with.js";
import { FIRST_YIELD_AFTER, SECOND_YIELD_GAP, YIELD_EVERY } from "../turn/run-turn.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import { AgentToolChildRunner } from "./child-runner.js";

async function collect(stream: ReadableStream<AgentToolTailItem>): Promise<AgentToolTailItem[]> {
  const items: AgentToolTailItem[] = [];
  for await (const item of stream as unknown as AsyncIterable<AgentToolTailItem>) items.push(item);
  return items;
}

const isFinishStep = (entry: AgentToolLogEntry) => entry.body.type === "finish-step";
const sequences = (items: AgentToolTailItem[]) => tailItemEntries(items).map((entry) => entry.sequence);

/**
 * A runner whose turns stream `count` words at once (an instant model) and whose yield lets the event loop turn: once
 * every pending microtask has run (a macrotask comes after them), the clock's 0 ms timers (a log's burst end among
 * them) fire. Yields asked at once (`startTail`'s and its turn's) take their turns, as a host's timers do.
 */
function instantRunner(store: RunStore, count: number) {
  const words = Array.from({ length: count }, (_, index) => `w${index} `);
  const clock = new ManualClock(1_000);
  let advancing: Promise<void> = Promise.resolve();
  return new AgentToolChildRunner({
    definition: echoChild("Echo", { chunks: () => textChunks(words) }),
    store,
    clock,
    yieldToEventLoop: () => {
      advancing = advancing.then(turnEventLoop).then(() => clock.advanceBy(0));
      return advancing;
    },
  });
}

/** A runner whose turns stream `words` at once, counting its yields (each lets the event loop turn). */
function yieldCountingRunner(store: RunStore, words: string[]) {
  const counted = { yields: 0 };
  const runner = new AgentToolChildRunner({
    definition: echoChild("Echo", { chunks: () => textChunks(words) }),
    store,
    clock: new ManualClock(1_000),
    yieldToEventLoop: async () => {
      counted.yields += 1;
      await turnEventLoop();
    },
  });
  return { runner, counted };
}

/** A store that records how many entries each of its appends writes. */
function countingAppends(inner: RunStore = new InMemoryRunStore()) {
  const appends: number[] = [];
  const store = storeWith(inner, {
    appendLog: (runId, entries) => {
      appends.push(entries.length);
      return inner.appendLog(runId, entries);
    },
  });
  return { store, appends };
}

function makeRunner(definition: AgentToolChildDefinition, store: RunStore = new InMemoryRunStore()) {
  const clock = new ManualClock(1_000);
  return { runner: new AgentToolChildRunner({ definition, store, clock }), store, clock };
}

/** A child whose turn is `streamText` over `model` with `tools` (up to 4 steps), as a real child's is. */
function streamingResearcher(model: MockLanguageModelV4, tools: ToolSet): AgentToolChildDefinition {
  return {
    agentType: "Researcher",
    turn: async ({ messages, abortSignal }) =>
      toUIMessageStream({
        stream: streamText({
          model,
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          stopWhen: isStepCount(4),
          abortSignal,
        }).stream,
        tools,
      }),
  };
}

/** A mock model's answer: one text part, then a stop. */
function textAnswer(text: string) {
  return {
    stream: convertArrayToReadableStream<ScriptedModelPart>([
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
    ]),
  };
}

describe("AgentToolChildRunner", () => {
  it("starts idempotently: a second start returns the run and runs no second turn", async () => {
    const child = echoChild("Echo");
    const { runner } = makeRunner(child);
    const [first, second] = await Promise.all([runner.start("r1", "hi"), runner.start("r1", "other")]);
    expect(first.runId).toBe("r1");
    expect(second.runId).toBe("r1");
    await collect(runner.tail("r1", { afterSequence: 0 }));
    await runner.cancel("r1"); // a no-op once finished
    const third = await runner.start("r1", "again");
    expect(third.status).toBe("completed");
    expect(child.turns).toEqual(["r1"]);
  });

  it("logs every chunk with the next sequence and completes with the last step's text", async () => {
    const { runner, store } = makeRunner(echoChild("Echo", { chunks: () => textChunks(["Hel", "lo"]) }));
    await runner.start("r1", "x");
    const items = await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(sequences(items)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const terminal = items.at(-1);
    expect(terminal?.type).toBe("terminal");
    const inspection = await runner.inspect("r1");
    expect(inspection).toMatchObject({ status: "completed", summary: "Hello", lastSequence: 8, milestones: [] });
    expect((await store.readLog("r1")).map((entry) => entry.body.type)).toEqual(
      textChunks(["Hel", "lo"]).map((chunk) => chunk.type),
    );
  });

  it("returns null when inspecting a run it has no record of", async () => {
    const { runner } = makeRunner(echoChild("Echo"));
    expect(await runner.inspect("never")).toBeNull();
    expect(await collect(runner.tail("never", { afterSequence: 0 }))).toEqual([]);
  });

  it("uses setOutput, getAgentToolOutput and getAgentToolSummary", async () => {
    const definition: AgentToolChildDefinition = {
      agentType: "Structured",
      turn(context) {
        context.setOutput({ count: 2 });
        return convertArrayToReadableStream<UIMessageChunk>([{ type: "start" }, { type: "finish" }]);
      },
      getAgentToolOutput: ({ output }) => ({ ...(output as object), checked: true }),
    };
    const { runner } = makeRunner(definition);
    await runner.start("r1", {});
    await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(await runner.inspect("r1")).toMatchObject({
      status: "completed",
      output: { count: 2, checked: true },
      summary: '{"count":2,"checked":true}',
    });

    const summarized = makeRunner({
      ...definition,
      getAgentToolSummary: ({ output }) => `got ${JSON.stringify(output)}`,
    });
    await summarized.runner.start("r2", {});
    await collect(summarized.runner.tail("r2", { afterSequence: 0 }));
    expect((await summarized.runner.inspect("r2"))?.summary).toBe('got {"count":2,"checked":true}');
  });

  describe("the origin page's positional hooks (untyped code: TypeScript refuses them)", () => {
    const emptyTurn = () => convertArrayToReadableStream<UIMessageChunk>([{ type: "start" }, { type: "finish" }]);
    // The origin page's Extractor, as JavaScript: its output is looked up by the runId it expects as first argument.
    const extractions: Record<string, unknown> = { r1: { rows: 3 } };
    const finishedRun = async (definition: unknown) => {
      const { runner } = makeRunner(definition as AgentToolChildDefinition);
      await runner.start("r1", {});
      await collect(runner.tail("r1", { afterSequence: 0 }));
      return runner.inspect("r1");
    };

    it("ends the run with an error naming getAgentToolOutput and its signature when it uses the context as the runId", async () => {
      const inspection = await finishedRun({
        agentType: "Extractor",
        turn: emptyTurn,
        getAgentToolOutput(runId: string) {
          return extractions[runId];
        },
      });
      expect(inspection?.status).toBe("error");
      expect(inspection?.error).toBe(
        "Reading the child's output failed: getAgentToolOutput takes one context object, not a positional (runId): " +
          "write getAgentToolOutput({ runId, input, output })",
      );
    });

    it("ends the run with an error naming getAgentToolSummary and its signature when it takes (runId, output)", async () => {
      const inspection = await finishedRun({
        agentType: "Extractor",
        turn(context: { setOutput(output: unknown): void }) {
          context.setOutput({ rows: 3 });
          return emptyTurn();
        },
        getAgentToolSummary(_runId: string, output: unknown) {
          return output ? "Extraction complete" : "";
        },
      });
      expect(inspection?.status).toBe("error");
      expect(inspection?.error).toBe(
        "Reading the child's output failed: getAgentToolSummary takes one context object, not a positional " +
          "(runId, output): write getAgentToolSummary({ runId, output, text })",
      );
    });
  });

  it("tails from a cursor in the middle of the log", async () => {
    const { runner } = makeRunner(echoChild("Echo", { chunks: () => textChunks(["a", "b", "c"]) }));
    await runner.start("r1", "x");
    await collect(runner.tail("r1", { afterSequence: 0 }));
    const items = await collect(runner.tail("r1", { afterSequence: 6 }));
    expect(sequences(items)).toEqual([7, 8, 9]);
    expect(items.at(-1)?.type).toBe("terminal");
  });

  it("writes a turn's ready chunks in bursts of at most 256 entries, one append each", async () => {
    const { store, appends } = countingAppends();
    const words = Array.from({ length: 600 }, (_, index) => `w${index} `);
    const { runner } = makeRunner(echoChild("Echo", { chunks: () => textChunks(words) }), store);
    await runner.start("r1", "x");
    const items = await collect(runner.tail("r1", { afterSequence: 0 }));
    const total = sequences(items).length;
    expect(total).toBeGreaterThan(600);
    expect(appends.reduce((sum, count) => sum + count, 0)).toBe(total);
    expect(Math.max(...appends)).toBeLessThanOrEqual(257);
    expect(appends.length).toBeGreaterThanOrEqual(3);
    expect(appends.length).toBeLessThan(10);
  });

  it("lets the host's event loop turn after a turn's first 64 chunks, 256 later, then every 1 024 (yieldToEventLoop): what is written by then is out", async () => {
    const store = new InMemoryRunStore();
    const words = Array.from({ length: 2_500 }, (_, index) => `w${index} `);
    const clock = new ManualClock(1_000);
    // At each yield: how many entries are stored as the event loop turns.
    const yields: number[] = [];
    const runner = new AgentToolChildRunner({
      definition: echoChild("Echo", { chunks: () => textChunks(words) }),
      store,
      clock,
      yieldToEventLoop: async () => {
        yields.push((await store.readLog("r1")).length);
        await turnEventLoop();
      },
    });
    // Started with its tail (someone waits for the stream): the turn yields.
    const items = await collect(await runner.startTail("r1", "x"));
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect(tailItemEntries(items).map((entry) => entry.sequence)).toEqual(
      Array.from({ length: tailItemEntries(items).length }, (_, index) => index + 1),
    );
    // `startTail` yields once before it answers, as the turn starts: nothing is stored yet. Its tail holds what it gets
    // until it answers, so nobody reads the turn's first entry sooner: it waits with the rest, and the turn's first
    // yield (after 64 chunks) lets all 64 out in one write — what startTail answers with. The next yield comes 256
    // chunks later (`SECOND_YIELD_GAP`: the first chunk may still be on its way); then one every 1 024
    // (`YIELD_EVERY`), the entries written 256 at a time as that many wait.
    expect([SECOND_YIELD_GAP, YIELD_EVERY]).toEqual([256, 1_024]);
    expect(yields).toEqual([0, 64, 320, 1_344, 2_368]);
    expect(items[0]).toMatchObject({ type: "entries", entries: { length: FIRST_YIELD_AFTER } });
  });

  it("holds what waits behind a burst's first entry over the turn's own yield, and writes it as soon as the turn then waits for its stream", async () => {
    const child = new ScriptedChild("Scripted");
    const inner = new InMemoryRunStore();
    const { store, appends } = countingAppends(inner);
    const clock = new ManualClock(1_000);
    let yields = 0;
    const runner = new AgentToolChildRunner({
      definition: child.definition,
      store,
      clock,
      yieldToEventLoop: async () => {
        yields += 1;
      },
    });
    const tail = (await runner.startTail("r1", "x")).getReader();
    // startTail's own yield, before it answered.
    expect(yields).toBe(1);
    const run = child.run("r1");
    await run.context;
    const deltas = Array.from({ length: FIRST_YIELD_AFTER - 1 }, (_, index) => ({
      type: "text-delta" as const,
      id: "t",
      delta: `d${index} `,
    }));
    run.emit({ type: "text-start", id: "t" }, ...deltas);
    await turnEventLoop();
    // The turn yielded once, after its first 64 chunks; only the first entry is written (the rest waited over it).
    expect(yields).toBe(2);
    expect(appends).toEqual([1]);
    // The stream has nothing more for now: the burst ends when the event loop turns, and the rest is written then.
    await clock.advanceBy(0);
    await turnEventLoop();
    expect(appends).toEqual([1, FIRST_YIELD_AFTER - 1]);
    expect(await inner.readLog("r1")).toHaveLength(FIRST_YIELD_AFTER);
    const first = await tail.read();
    const second = await tail.read();
    expect([first.value, second.value].map((item) => (item?.type === "entries" ? item.entries.length : 0))).toEqual([
      1,
      FIRST_YIELD_AFTER - 1,
    ]);
    run.emit({ type: "text-end", id: "t" });
    run.complete();
    await tail.cancel();
  });

  it("ends a followed instant turn of fewer than 64 chunks without a yield, in one write: nobody reads its first entry before its end", async () => {
    const { store, appends } = countingAppends();
    const { runner, counted } = yieldCountingRunner(store, ["a ", "b ", "c"]);
    const items = await collect(await runner.startTail("r1", "x"));
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    const total = tailItemEntries(items).length;
    expect(total).toBeLessThan(FIRST_YIELD_AFTER);
    // startTail's own yield before it answered; the turn none. Its tail holds what it gets until startTail answers:
    // the run's first entry waits for the rest, and the whole run is written once (one row, no rewrite of it).
    expect(counted.yields).toBe(1);
    expect(appends).toEqual([total]);
  });

  it("goes on with the burst after its own yield: an instant stream is written in appends of 256, no lone entry after each yield", async () => {
    const { store, appends } = countingAppends();
    const runner = instantRunner(store, 600);
    const items = await collect(await runner.startTail("r1", "x"));
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    const total = tailItemEntries(items).length;
    expect(appends.reduce((sum, count) => sum + count, 0)).toBe(total);
    // The turn's first 64 entries before its first yield (startTail's tail, not read yet, needs none of them sooner),
    // then the rest per 256: the turn's own yields neither write what waits in a write of its own nor start a burst
    // whose first entry is written alone.
    expect(appends.slice(0, 3)).toEqual([FIRST_YIELD_AFTER, MAX_BURST_ENTRIES, MAX_BURST_ENTRIES]);
    expect(appends.length).toBe(1 + Math.ceil((total - FIRST_YIELD_AFTER) / MAX_BURST_ENTRIES));
  });

  it("startTail answers once the host's event loop has turned: an instant turn has ended by then, its whole run at hand", async () => {
    const store = new InMemoryRunStore();
    const { runner, counted } = yieldCountingRunner(store, ["a ", "b ", "c"]);
    const tail = await runner.startTail("r1", "x");
    // Answered after one turn of the loop (the turn itself, of fewer than 64 chunks, never yields): the run is over.
    expect(counted.yields).toBe(1);
    expect(runner.isLive("r1")).toBe(false);
    expect(await store.getRun("r1")).toMatchObject({ status: "completed" });
    const items = await collect(tail);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect(sequences(items)).toEqual((await store.readLog("r1")).map((entry) => entry.sequence));
    // A run it did not begin (a parent's retry) answers at once: its tail replays the stored log.
    const again = await collect(await runner.startTail("r1", "x"));
    expect(counted.yields).toBe(1);
    expect(sequences(again)).toEqual(sequences(items));
  });

  it("startTail answers an instant run as soon as it has ended, not after the event loop's turn (a fan-out's children do not all wait at once)", async () => {
    const store = new InMemoryRunStore();
    const releases: (() => void)[] = [];
    const runner = new AgentToolChildRunner({
      definition: echoChild("Echo", { chunks: () => textChunks(["a ", "b ", "c"]) }),
      store,
      clock: new ManualClock(1_000),
      // A loop turn that comes only when the test says so: the answer must not wait for it.
      yieldToEventLoop: () => new Promise<void>((release) => releases.push(release)),
    });
    let answered: ReadableStream<AgentToolTailItem> | undefined;
    const answering = runner.startTail("r1", "x").then((tail) => {
      answered = tail;
    });
    await turnEventLoop();
    expect(releases).toHaveLength(1);
    expect(answered).toBeDefined();
    expect(runner.isLive("r1")).toBe(false);
    const items = await collect(answered as ReadableStream<AgentToolTailItem>);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect(sequences(items)).toEqual((await store.readLog("r1")).map((entry) => entry.sequence));
    for (const release of releases) release();
    await answering;
  });

  it("startTail of a new run listens from its start: its tail reads neither the run's row again nor its stored log", async () => {
    const inner = new InMemoryRunStore();
    const reads: string[] = [];
    const store = storeWith(inner, {
      getRun: (runId: string) => {
        reads.push("getRun");
        return inner.getRun(runId);
      },
      readLog: (runId: string, options?: { afterSequence?: number; limit?: number }) => {
        reads.push("readLog");
        return inner.readLog(runId, options);
      },
    });
    const runner = instantRunner(store, 300);
    const items = await collect(await runner.startTail("r1", "x"));
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    const sequences = tailItemEntries(items).map((entry) => entry.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => index + 1));
    expect(sequences).toEqual((await inner.readLog("r1")).map((entry) => entry.sequence));
    // A new run costs its insert and no read: not even a look for a run of that id first.
    expect(reads).toEqual([]);
    // A second startTail of the same run (a parent's retry): its insert finds the row, which is read; its tail replays
    // the stored log, and no second turn starts.
    const again = await collect(await runner.startTail("r1", "x"));
    expect(tailItemEntries(again).map((entry) => entry.sequence)).toEqual(sequences);
    expect(reads).toEqual(expect.arrayContaining(["getRun", "readLog"]));
    expect(await inner.readLog("r1")).toHaveLength(sequences.length);
  });

  it("startTail's tail, cancelled or aborted, stops following (the turn no longer yields) and never cancels the run", async () => {
    const child = new ScriptedChild("Scripted");
    let yields = 0;
    const runner = new AgentToolChildRunner({
      definition: child.definition,
      store: new InMemoryRunStore(),
      clock: new ManualClock(1_000),
      yieldToEventLoop: async () => {
        yields += 1;
      },
    });
    const aborting = new AbortController();
    const tails = [
      (await runner.startTail("r1", "x")).getReader(),
      (await runner.startTail("r2", "x", {}, { signal: aborting.signal })).getReader(),
    ];
    // Each run's first 64 chunks at once: its turn yields once (someone follows it).
    const deltas = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ type: "text-delta" as const, id: "t", delta: `d${index} ` }));
    for (const runId of ["r1", "r2"]) {
      const run = child.run(runId);
      await run.context;
      run.emit({ type: "text-start", id: "t" }, ...deltas(FIRST_YIELD_AFTER - 1));
    }
    for (const reader of tails) expect((await reader.read()).value).toMatchObject({ type: "entries" });
    // The turns have read what was emitted once a macrotask has run: each yielded once (and each startTail once).
    await turnEventLoop();
    expect(yields).toBe(4);
    await tails[0]?.cancel();
    aborting.abort();
    expect(await tails[1]?.read()).toEqual({ done: true, value: undefined });
    for (const runId of ["r1", "r2"]) {
      const run = child.run(runId);
      // Past the next yield point had it still been followed: no yield now.
      run.emit(...deltas(MAX_BURST_ENTRIES + 1), { type: "text-end", id: "t" });
      run.complete();
    }
    await turnEventLoop();
    expect(yields).toBe(4);
    for (const runId of ["r1", "r2"]) {
      expect(await runner.inspect(runId)).toMatchObject({
        status: "completed",
        lastSequence: FIRST_YIELD_AFTER + MAX_BURST_ENTRIES + 2,
      });
    }
  });

  it("lets the event loop turn only while someone waits for the stream: a run nobody tails runs to its end in one go", async () => {
    const store = new InMemoryRunStore();
    const words = Array.from({ length: 600 }, (_, index) => `w${index} `);
    let yields = 0;
    const runner = new AgentToolChildRunner({
      definition: echoChild("Echo", { chunks: () => textChunks(words) }),
      store,
      clock: new ManualClock(1_000),
      yieldToEventLoop: async () => {
        yields += 1;
      },
    });
    await runner.start("r1", "x");
    // Nobody tails it: the turn never waits for a macrotask, so it has ended once one has run.
    await turnEventLoop();
    expect(await store.getRun("r1")).toMatchObject({ status: "completed" });
    const items = await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(tailItemEntries(items).length).toBeGreaterThan(600);
    expect(yields).toBe(0);
    // The same turn started with its tail yields (after its first 64 chunks and 256 later; its 600 end before 1 344),
    // and startTail once before it answers.
    const followed = await collect(await runner.startTail("r2", "x"));
    expect(followed.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect(yields).toBe(3);
  });

  it("calls onTurnEnd once per turn, after its last chunk and before its end is recorded: what it publishes goes out first", async () => {
    const base = echoChild("Echo", { chunks: () => textChunks(["a ", "b"]) });
    const calls: Array<{ runId: string; status: string | undefined }> = [];
    let runner: AgentToolChildRunner | null = null;
    const store = new InMemoryRunStore();
    const definition: AgentToolChildDefinition = {
      ...base,
      onTurnEnd: (runId) => {
        void store.getRun(runId).then((record) => calls.push({ runId, status: record?.status }));
        runner?.publishEphemeral(runId, { type: "data-agent-progress", data: { done: true }, transient: true });
      },
    };
    runner = new AgentToolChildRunner({ definition, store, clock: new ManualClock(1_000) });
    const items = await collect(await runner.startTail("r1", "x"));
    // The progress it published comes after every entry of the turn and before the terminal; the run was live then.
    expect(items.map((item) => item.type).slice(-2)).toEqual(["progress", "terminal"]);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect(calls).toEqual([{ runId: "r1", status: "running" }]);
  });

  it("calls onTurnEnd for a turn that failed, and a hook that throws never breaks the run", async () => {
    const child = new ScriptedChild("Scripted");
    const ended: string[] = [];
    const definition: AgentToolChildDefinition = {
      ...child.definition,
      onTurnEnd: (runId) => {
        ended.push(runId);
        throw new Error("hook failed");
      },
    };
    const { runner } = makeRunner(definition, new InMemoryRunStore());
    const tail = await runner.startTail("r1", "x");
    const run = child.run("r1");
    await run.context;
    run.emit({ type: "text-start", id: "t" });
    run.fail(new Error("model down"));
    const items = await collect(tail);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "error" } });
    expect(ended).toEqual(["r1"]);
  });

  it("loses and doubles nothing between draining the stored log and attaching to live output", async () => {
    // A store whose reads wait for the test: chunks arrive while the tail is draining.
    const inner = new InMemoryRunStore();
    let releaseRead: (() => void) | null = null;
    const gatedStore: RunStore = storeWith(inner, {
      readLog: async (runId: string, options?: { afterSequence?: number; limit?: number }) => {
        const entries = await inner.readLog(runId, options);
        if (releaseRead === null) {
          await new Promise<void>((resolve) => {
            releaseRead = resolve;
          });
        }
        return entries;
      },
    });
    const child = new ScriptedChild("Scripted");
    const { runner } = makeRunner(child.definition, gatedStore);
    await runner.start("r1", "x");
    const run = child.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "text-start", id: "t" });
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    for (let index = 0; index < 5; index += 1) await Promise.resolve();
    const tail = collect(runner.tail("r1", { afterSequence: 0 }));
    for (let index = 0; index < 5; index += 1) await Promise.resolve();
    // While the drain is held: more chunks go to the log and to the live listener.
    run.emit({ type: "text-delta", id: "t", delta: "a" }, { type: "text-delta", id: "t", delta: "b" });
    for (let index = 0; index < 20; index += 1) await Promise.resolve();
    expect(releaseRead).not.toBeNull();
    (releaseRead as unknown as () => void)();
    run.emit({ type: "text-end", id: "t" }, { type: "finish" });
    run.complete();
    const items = await tail;
    expect(sequences(items)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed", summary: "ab" } });
  });

  it("a tail attaching while progress waits behind an entry being written gets the entry, then that progress once", async () => {
    const inner = new InMemoryRunStore();
    let releaseWrite: (() => void) | null = null;
    const appendLog = inner.appendLog.bind(inner);
    inner.appendLog = async (runId, entries) => {
      await new Promise<void>((resolve) => {
        releaseWrite = resolve;
      });
      return appendLog(runId, entries);
    };
    const gatedStore = inner;
    const child = new ScriptedChild("Scripted");
    const { runner } = makeRunner(child.definition, gatedStore);
    await runner.start("r1", "x");
    const run = child.run("r1");
    const context = await run.context;
    // A milestone's entry is being written (held) when the progress is published: the progress waits behind it.
    context.appendChunk({ type: "data-agent-milestone", data: { name: "found", at: 1 } } as UIMessageChunk, {
      name: "found",
    });
    const reading = { fraction: 0.5, message: "reading", at: 2 };
    context.publishEphemeral(
      { type: "data-agent-progress", data: reading, transient: true } as UIMessageChunk,
      reading,
    );
    const reader = runner.tail("r1", { afterSequence: 0 }).getReader();
    const items: AgentToolTailItem[] = [];
    const next = async () => {
      const { value } = await reader.read();
      if (value) items.push(value);
    };
    const first = next();
    await flushMicrotasks();
    expect(releaseWrite).not.toBeNull();
    (releaseWrite as unknown as () => void)();
    await first;
    await next();
    await reader.cancel();
    expect(items.map((item) => item.type)).toEqual(["entries", "progress"]);
    expect(items[1]).toMatchObject({ type: "progress", body: { data: reading } });
  });

  it("cancels a live run as aborted, idempotently, and a stopped tail does not cancel the run", async () => {
    const child = new ScriptedChild("Scripted");
    const { runner } = makeRunner(child.definition);
    await runner.start("r1", "x");
    const run = child.run("r1");
    await run.context;
    run.emit({ type: "start" });
    const abortTail = new AbortController();
    const stopped = collect(runner.tail("r1", { afterSequence: 0, signal: abortTail.signal }));
    abortTail.abort();
    await stopped;
    expect((await runner.inspect("r1"))?.status).toBe("running");
    const tail = collect(runner.tail("r1", { afterSequence: 0 }));
    await Promise.all([runner.cancel("r1", "user asked"), runner.cancel("r1")]);
    await runner.cancel("r1");
    expect(await runner.inspect("r1")).toMatchObject({ status: "aborted", error: "user asked" });
    expect((await tail).at(-1)).toMatchObject({ type: "terminal", inspection: { status: "aborted" } });
    expect((await run.context).abortSignal.aborted).toBe(true);
  });

  it("ends a run as error on an in-band stream error, without touching another child's run", async () => {
    const failing = makeRunner(
      echoChild("Failing", { chunks: () => [{ type: "start" }, { type: "error", errorText: "model overloaded" }] }),
    );
    const healthy = makeRunner(echoChild("Healthy"));
    await Promise.all([failing.runner.start("r1", "x"), healthy.runner.start("r1", "y")]);
    await Promise.all([
      collect(failing.runner.tail("r1", { afterSequence: 0 })),
      collect(healthy.runner.tail("r1", { afterSequence: 0 })),
    ]);
    expect(await failing.runner.inspect("r1")).toMatchObject({ status: "error", error: "model overloaded" });
    expect((await healthy.runner.inspect("r1"))?.status).toBe("completed");
  });

  it("ends a run as error when the turn's stream fails or the turn throws", async () => {
    const child = new ScriptedChild("Scripted");
    const { runner } = makeRunner(child.definition);
    await runner.start("r1", "x");
    child.run("r1").emit({ type: "start" });
    child.run("r1").fail(new Error("socket closed"));
    await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(await runner.inspect("r1")).toMatchObject({ status: "error", error: "socket closed" });

    const throwing = makeRunner({
      agentType: "Throwing",
      turn: () => {
        throw new Error("no model configured");
      },
    });
    await throwing.runner.start("r2", "x");
    await collect(throwing.runner.tail("r2", { afterSequence: 0 }));
    expect(await throwing.runner.inspect("r2")).toMatchObject({ status: "error", error: "no model configured" });
  });

  it("ends a run as error naming a tool that has no server-side execution", async () => {
    const { runner } = makeRunner(
      echoChild("Headless", {
        chunks: () => [
          { type: "start" },
          { type: "tool-input-available", toolCallId: "c1", toolName: "askBrowser", input: {} },
          { type: "finish" },
        ],
      }),
    );
    await runner.start("r1", "x");
    await collect(runner.tail("r1", { afterSequence: 0 }));
    const inspection = await runner.inspect("r1");
    expect(inspection?.status).toBe("error");
    expect(inspection?.error).toContain('"askBrowser"');
  });

  it("delivers transient chunks to live tails without logging them", async () => {
    const child = new ScriptedChild("Scripted");
    const { runner, store } = makeRunner(child.definition);
    await runner.start("r1", "x");
    const run = child.run("r1");
    await run.context;
    const tail = collect(runner.tail("r1", { afterSequence: 0 }));
    // Ephemeral chunks reach tails attached at the time: let the tail attach first.
    await flushMicrotasks(100);
    run.emit({ type: "start" });
    run.emit({ type: "data-agent-progress", data: { fraction: 0.5 }, transient: true } as UIMessageChunk);
    run.emit({ type: "finish" });
    run.complete();
    const items = await tail;
    expect(items.map((item) => item.type)).toEqual(["entries", "progress", "entries", "terminal"]);
    expect((await store.readLog("r1")).map((entry) => entry.sequence)).toEqual([1, 2]);
  });

  it("resumes a cut-off turn from its completed steps: the tool is not run again", async () => {
    const store = new InMemoryRunStore();
    let toolRuns = 0;
    let modelCalls = 0;
    let stall = true;
    const model = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        modelCalls += 1;
        const last = prompt.at(-1);
        if (last?.role !== "tool" && last?.role !== "assistant") {
          return {
            stream: convertArrayToReadableStream([
              { type: "stream-start", warnings: [] },
              { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: JSON.stringify({ q: "owls" }) },
              { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
            ]),
          };
        }
        if (stall) {
          // The host is cut off in the middle of this step: the stream never ends.
          return {
            stream: new ReadableStream({
              start(controller) {
                controller.enqueue({ type: "stream-start", warnings: [] });
                controller.enqueue({ type: "text-start", id: "t" });
                controller.enqueue({ type: "text-delta", id: "t", delta: "Owls are" });
              },
            }),
          };
        }
        return textAnswer("Owls are nocturnal.");
      },
    });
    const tools = {
      lookup: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async ({ q }) => {
          toolRuns += 1;
          return { fact: `${q} hunt at night` };
        },
      }),
    };
    const definition = streamingResearcher(model, tools);
    const first = makeRunner(definition, store);
    await first.runner.start("r1", "owls");
    // Let the first turn run until the stalled step's text is in the log (bounded; yields to the event loop, and
    // moves the runner's clock so that each burst of chunks is written).
    for (let turn = 0; turn < 500; turn += 1) {
      const logged = await store.readLog("r1");
      if (logged.some((entry) => entry.body.type === "text-delta")) break;
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      await first.clock.advanceBy(0);
    }
    const before = await store.readLog("r1");
    expect(before.some((entry) => entry.body.type === "text-delta")).toBe(true);
    expect(toolRuns).toBe(1);

    // A new instance over the same storage (the old one is gone): waking the run resumes it.
    stall = false;
    const second = makeRunner(definition, store);
    const items = await collect(second.runner.tail("r1", { afterSequence: 0 }));
    const inspection = await second.runner.inspect("r1");
    expect(inspection).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
    expect(toolRuns).toBe(1);
    expect(modelCalls).toBe(3); // step 1 once, the cut-off step twice
    // A fresh tail gets the completed step, then a step reset voiding the cut step (left out), then the redone step.
    const entries = tailItemEntries(items);
    const lastFinish = before.filter(isFinishStep).at(-1)?.sequence ?? 0;
    const cutStep = before.filter((entry) => entry.sequence > lastFinish);
    const reset = entries.find((entry) => readStepResetChunk(entry.body) !== null);
    expect(readStepResetChunk(reset?.body)).toEqual({ fromSequence: cutStep[0]?.sequence });
    expect(reset?.sequence).toBe(before.length + 1);
    expect(sequences(items)).toEqual([
      ...before.filter((entry) => !cutStep.includes(entry)).map((entry) => entry.sequence),
      ...Array.from({ length: entries.length - (before.length - cutStep.length) }, (_, i) => before.length + 1 + i),
    ]);
    const deltas = entries.flatMap((entry) => (entry.body.type === "text-delta" ? [entry.body.delta] : []));
    expect(deltas).toEqual(["Owls are nocturnal."]);
    expect((await store.getRun("r1"))?.recoveryAttempts).toBe(1);
  });

  it("resumes a step cut while one of two tools ran: the finished tool is not run again, the cut one is, once", async () => {
    const store = new InMemoryRunStore();
    const runs = { fast: 0, slow: 0 };
    let modelCalls = 0;
    let isCut = true;
    const model = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        modelCalls += 1;
        if (prompt.at(-1)?.role !== "tool") {
          return {
            stream: convertArrayToReadableStream([
              { type: "stream-start", warnings: [] },
              { type: "tool-call", toolCallId: "c1", toolName: "fast", input: JSON.stringify({ q: "owls" }) },
              { type: "tool-call", toolCallId: "c2", toolName: "slow", input: JSON.stringify({ q: "owls" }) },
              { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
            ]),
          };
        }
        return textAnswer("Owls are nocturnal.");
      },
    });
    const tools = {
      fast: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async () => {
          runs.fast += 1;
          return { fact: "nocturnal" };
        },
      }),
      slow: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async () => {
          runs.slow += 1;
          // The host is cut off while this tool runs: it never answers in the first turn.
          if (isCut) await new Promise<void>(() => {});
          return { size: "small" };
        },
      }),
    };
    const definition = { ...streamingResearcher(model, tools), getTools: () => tools };
    const first = makeRunner(definition, store);
    await first.runner.start("r1", "owls");
    // Let the first turn run until the fast tool's result is in the log (bounded; yields to the event loop, and moves
    // the runner's clock so that each burst of chunks is written).
    const hasFastResult = (entries: AgentToolLogEntry[]) =>
      entries.some((entry) => entry.body.type === "tool-output-available" && entry.body.toolCallId === "c1");
    for (let turn = 0; turn < 500 && !hasFastResult(await store.readLog("r1")); turn += 1) {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      await first.clock.advanceBy(0);
    }
    expect(hasFastResult(await store.readLog("r1"))).toBe(true);
    expect(runs).toEqual({ fast: 1, slow: 1 });

    // A new instance over the same storage (the old one is gone): waking the run resumes it.
    isCut = false;
    const second = makeRunner(definition, store);
    const items = await collect(second.runner.tail("r1", { afterSequence: 0 }));
    expect(await second.runner.inspect("r1")).toMatchObject({ status: "completed", summary: "Owls are nocturnal." });
    expect(runs).toEqual({ fast: 1, slow: 2 });
    expect(modelCalls).toBe(2); // each step once: the cut step was kept, not done again
    const outputs = tailItemEntries(items).flatMap((entry) =>
      entry.body.type === "tool-output-available" ? [entry.body.toolCallId] : [],
    );
    // A fresh tail leaves the voided copy out: each call's result once.
    expect(outputs).toEqual(["c1", "c2"]);
  });

  it("ends a cut-off run as error when it may not be resumed, instead of running forever", async () => {
    for (const options of [{ maxRecoveryAttempts: 0 }, { shouldKeepRecovering: () => false }]) {
      const store = new InMemoryRunStore();
      const child = new ScriptedChild("Scripted");
      const first = makeRunner(child.definition, store);
      await first.runner.start("r1", "x");
      child.run("r1").emit({ type: "start" });
      const second = new AgentToolChildRunner({
        definition: child.definition,
        store,
        clock: new ManualClock(5),
        ...options,
      });
      expect(await second.inspect("r1")).toMatchObject({
        status: "error",
        error: "interrupted before the child could finish",
      });
      expect(child.turns).toEqual(["r1"]);
    }
  });

  it("executes each turn in the host's run scope: tools of two live runs each tell their own run", async () => {
    // Node's AsyncLocalStorage (core-runs type-checks without Node's types).
    const { AsyncLocalStorage } = (
      globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }
    ).process.getBuiltinModule("node:async_hooks") as {
      AsyncLocalStorage: new () => { getStore(): string | undefined; run<T>(store: string, run: () => T): T };
    };
    const scope = new AsyncLocalStorage();
    const seen: Array<[label: string, runId: string | undefined]> = [];
    let arrived = 0;
    let releaseBoth = () => {};
    const bothArrived = new Promise<void>((resolve) => {
      releaseBoth = resolve;
    });
    const tools = {
      measure: tool({
        inputSchema: z.object({ label: z.string() }),
        execute: async ({ label }) => {
          // Both runs' tools are in flight before either goes on.
          arrived += 1;
          if (arrived === 2) releaseBoth();
          await bothArrived;
          seen.push([label, scope.getStore()]);
          return label;
        },
      }),
    };
    const definition: AgentToolChildDefinition = {
      agentType: "Gauge",
      getTools: () => tools,
      turn: async ({ input, messages, abortSignal }) =>
        toUIMessageStream({
          stream: streamText({
            model: scriptedModel([toolCallsStep("measure", [["m", { label: input }]]), textStep(() => "done")]),
            messages: await convertToModelMessages(messages, { tools }),
            tools,
            stopWhen: isStepCount(2),
            abortSignal,
          }).stream,
          tools,
        }),
    };
    const runner = new AgentToolChildRunner({
      definition,
      store: new InMemoryRunStore(),
      runScope: (runId, run) => scope.run(runId, run),
    });
    await runner.start("a", "a");
    await runner.start("b", "b");
    await Promise.all([collect(runner.tail("a")), collect(runner.tail("b"))]);
    expect(seen.sort()).toEqual([
      ["a", "a"],
      ["b", "b"],
    ]);
  });

  it("refuses a maxRecoveryAttempts that is not a whole number ≥ 0", () => {
    for (const maxRecoveryAttempts of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
      expect(
        () =>
          new AgentToolChildRunner({
            definition: echoChild("Echo"),
            store: new InMemoryRunStore(),
            maxRecoveryAttempts,
          }),
      ).toThrow(/maxRecoveryAttempts must be a whole number ≥ 0/);
    }
  });

  it("calls its definition's hooks as its methods: a definition made of a class (no function per object) reads itself through this", async () => {
    // A host that makes a child object per run keeps its hooks as methods, not functions made per object (each one a
    // closure the object holds as long as it lives).
    class Definition implements AgentToolChildDefinition {
      readonly agentType = "Echo";
      readonly #prefix = "topic: ";
      readonly usageAskedFor: string[] = [];
      turn() {
        return convertArrayToReadableStream<UIMessageChunk>(textChunks(["done"]));
      }
      formatAgentToolInput(input: unknown) {
        return `${this.#prefix}${String(input)}`;
      }
      async dispatchedUsage(runId: string) {
        this.usageAskedFor.push(runId);
        return { children: [], dispatched: 0 };
      }
    }
    const definition = new Definition();
    const store = new InMemoryRunStore();
    const { runner } = makeRunner(definition, store);
    await runner.start("r1", "owls");
    await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(await runner.inspect("r1")).toMatchObject({ status: "completed" });
    expect((await runner.getMessages("r1"))[0]?.parts).toEqual([{ type: "text", text: "topic: owls" }]);
    // A run cut off (left running, no turn here) is resumed by a new runner: what it dispatched is read back first.
    const restored: Promise<unknown>[] = [];
    const resumed = new AgentToolChildRunner({
      definition,
      store,
      clock: new ManualClock(2_000),
      waitUntil: (work) => restored.push(work),
    });
    await store.updateRun("r1", { status: "running", revision: 3 });
    await collect(resumed.tail("r1", { afterSequence: 0 }));
    await Promise.all(restored);
    expect(definition.usageAskedFor).toEqual(["r1"]);
    expect(await resumed.inspect("r1")).toMatchObject({ status: "completed" });
  });

  it("gives the input as a user message (pretty JSON by default) and rebuilds messages for drill-in", async () => {
    let seen: unknown;
    const { runner } = makeRunner({
      agentType: "Echo",
      turn(context) {
        seen = context.messages;
        return convertArrayToReadableStream<UIMessageChunk>(textChunks(["done"]));
      },
    });
    await runner.start("r1", { topic: "x" });
    await collect(runner.tail("r1", { afterSequence: 0 }));
    expect(seen).toEqual([
      { id: "agent-tool-r1-input", role: "user", parts: [{ type: "text", text: '{\n  "topic": "x"\n}' }] },
    ]);
    const messages = await runner.getMessages("r1");
    expect(messages).toHaveLength(2);
    expect(messages[1]?.role).toBe("assistant");
    expect(messages[1]?.parts.some((part) => part.type === "text" && part.text === "done")).toBe(true);
  });

  it("runs a streamText turn with its own server-side tool on the AI SDK's mock model", async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls += 1;
        if (calls === 1) {
          return {
            stream: convertArrayToReadableStream([
              { type: "stream-start", warnings: [] },
              { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: JSON.stringify({ q: "cats" }) },
              { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
            ]),
          };
        }
        return {
          stream: convertArrayToReadableStream([
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Cats sleep a lot." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]),
        };
      },
    });
    const tools = {
      lookup: tool({ inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => ({ fact: `${q} sleep` }) }),
    };
    const { runner } = makeRunner({
      agentType: "Researcher",
      turn: ({ abortSignal }) =>
        toUIMessageStream({
          stream: streamText({ model, prompt: "research", tools, stopWhen: isStepCount(3), abortSignal }).stream,
          tools,
        }),
    });
    await runner.start("r1", "cats");
    const items = await collect(runner.tail("r1", { afterSequence: 0 }));
    const types = tailItemEntries(items).map((entry) => entry.body.type);
    expect(types).toContain("tool-output-available");
    expect(await runner.inspect("r1")).toMatchObject({ status: "completed", summary: "Cats sleep a lot." });
  });

  it("lets a turn append milestones in the same sequence space and publish ephemeral progress", async () => {
    const child = new ScriptedChild("Scripted");
    const { runner, store } = makeRunner(child.definition);
    await runner.start("r1", "x");
    const run = child.run("r1");
    const context = await run.context;
    const tail = collect(runner.tail("r1", { afterSequence: 0 }));
    await Promise.resolve();
    run.emit({ type: "start" });
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    for (let index = 0; index < 10; index += 1) await Promise.resolve();
    const sequence = context.appendChunk(
      { type: "data-agent-milestone", data: { milestone: "fetched" } } as UIMessageChunk,
      { name: "fetched" },
    );
    expect(
      context.publishEphemeral(
        { type: "data-agent-progress", data: { fraction: 0.5 }, transient: true } as UIMessageChunk,
        { fraction: 0.5, at: 1_000 },
      ),
    ).toBe(true);
    run.emit({ type: "finish" });
    run.complete();
    const items = await tail;
    expect(sequence).toBe(2);
    expect(sequences(items)).toEqual([1, 2, 3]);
    expect(items.some((item) => item.type === "progress")).toBe(true);
    const inspection = await runner.inspect("r1");
    expect(inspection?.milestones).toEqual([{ name: "fetched", sequence: 2, at: 1_000 }]);
    expect(inspection?.progress).toEqual({ fraction: 0.5, at: 1_000 });
    expect((await store.readLog("r1")).map((entry) => entry.body.type)).toEqual([
      "start",
      "data-agent-milestone",
      "finish",
    ]);
    expect(context.appendChunk({ type: "finish" })).toBeNull();
    expect(context.publishEphemeral({ type: "finish" })).toBe(false);
  });
});
