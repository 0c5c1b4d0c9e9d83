import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { AgentToolChildRunner } from "../child/child-runner.js";
import type { AgentToolTailItem } from "../protocol/index.js";
import { textDelta as delta } from "../testing/chunks.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { flushMicrotasks, ManualClock } from "../testing/manual-clock.js";
import { textChunks } from "../testing/scripted-child.js";
import { LiveRunLog, MAX_BURST_ENTRIES } from "./live-run-log.js";

/**
 * A log over a store that counts its appends (entries per append), and what its tail receives: a tail reading from
 * the start, or (`reading: false`) one that holds what it gets until `open()` (as `startTail`'s does until it answers).
 */
function world(store = new InMemoryRunStore(), options: { reading?: boolean } = {}) {
  const clock = new ManualClock(1_000);
  const appends: number[] = [];
  const appendLog = store.appendLog.bind(store);
  store.appendLog = (runId, entries) => {
    appends.push(entries.length);
    return appendLog(runId, entries);
  };
  const errors: unknown[] = [];
  const log = new LiveRunLog({ store, clock, runId: "r1", lastSequence: 0, onStoreError: (e) => errors.push(e) });
  const received: AgentToolTailItem[] = [];
  const listener = (item: AgentToolTailItem) => received.push(item);
  let open = () => {};
  if (options.reading === false) open = log.subscribeHeld(listener).open;
  else log.subscribe(listener);
  const delivered = (): Array<number | string> =>
    received.flatMap(
      (item): Array<number | string> =>
        item.type === "entries" ? item.entries.map((entry) => entry.sequence) : [item.type],
    );
  return { clock, store, log, appends, errors, delivered, open };
}

describe("LiveRunLog", () => {
  it("writes a burst's first entry at once and the rest in one append when the clock's 0 ms timer fires", async () => {
    const { clock, log, appends, delivered } = world();
    for (const word of ["a", "b", "c", "d", "e"]) log.append(delta(word));
    await flushMicrotasks();
    expect(appends).toEqual([1]);
    expect(delivered()).toEqual([1]);
    await clock.advanceBy(0); // the event loop turns: the burst has ended
    expect(appends).toEqual([1, 4]);
    expect(delivered()).toEqual([1, 2, 3, 4, 5]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("writes a burst nobody reads yet once, at its end or when the turn finishes: its first entry never alone", async () => {
    const { clock, log, appends } = world(new InMemoryRunStore(), { reading: false });
    for (const word of ["a", "b", "c", "d", "e"]) log.append(delta(word));
    await flushMicrotasks();
    expect(appends).toEqual([]);
    await clock.advanceBy(0);
    expect(appends).toEqual([5]);
    // A short turn: written once, by its finish.
    log.append(delta("f"));
    log.append(delta("g"));
    log.finish();
    await log.settled();
    expect(appends).toEqual([5, 2]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("writes a burst's waiting first entry at once when a reader comes: a tail subscribing, a held one opened", async () => {
    const held = world(new InMemoryRunStore(), { reading: false });
    for (const word of ["a", "b"]) held.log.append(delta(word));
    await flushMicrotasks();
    expect(held.appends).toEqual([]);
    held.open();
    await flushMicrotasks();
    expect(held.appends).toEqual([2]);
    expect(held.delivered()).toEqual([1, 2]);
    // The burst goes on: what it appends next waits for its end, as behind a first entry written at once.
    held.log.append(delta("c"));
    await flushMicrotasks();
    expect(held.appends).toEqual([2]);
    await held.clock.advanceBy(0);
    expect(held.appends).toEqual([2, 1]);

    const tailed = world(new InMemoryRunStore(), { reading: false });
    tailed.log.append(delta("a"));
    await flushMicrotasks();
    const received: AgentToolTailItem[] = [];
    tailed.log.subscribe((item) => received.push(item));
    await flushMicrotasks();
    expect(tailed.appends).toEqual([1]);
    expect(received).toMatchObject([{ type: "entries", entries: [{ sequence: 1 }] }]);
  });

  it("writes what a burst nobody reads holds before the turn's own yield, in one write: the yield lets it out", async () => {
    const { clock, log, appends, delivered } = world(new InMemoryRunStore(), { reading: false });
    for (let index = 0; index < 64; index += 1) log.append(delta("x"));
    log.yielding();
    await flushMicrotasks();
    expect(appends).toEqual([64]);
    expect(delivered()).toHaveLength(64);
    log.yielded();
    for (const word of ["a", "b"]) log.append(delta(word));
    await clock.advanceBy(0);
    expect(appends).toEqual([64, 2]);
  });

  it("writes each chunk of a stream paced by the event loop at once (no latency added)", async () => {
    const { clock, log, appends, delivered } = world();
    for (const word of ["a", "b", "c"]) {
      log.append(delta(word));
      await flushMicrotasks();
      expect(delivered().at(-1)).toBe(log.lastSequence);
      await clock.advanceBy(0);
    }
    expect(appends).toEqual([1, 1, 1]);
  });

  it("after the turn's own yield goes on with its burst: the next entry waits with the rest for the burst's end", async () => {
    const { clock, log, appends, delivered } = world();
    log.append(delta("a"));
    await clock.advanceBy(0); // the turn yields: the event loop turns
    log.yielded();
    for (const word of ["b", "c", "d"]) log.append(delta(word));
    await flushMicrotasks();
    expect(appends).toEqual([1]);
    expect(delivered()).toEqual([1]);
    await clock.advanceBy(0);
    expect(appends).toEqual([1, 3]);
    expect(delivered()).toEqual([1, 2, 3, 4]);
    // Once per yield: the burst after the next turn of the loop starts with its first entry written at once again.
    log.append(delta("e"));
    await flushMicrotasks();
    expect(appends).toEqual([1, 3, 1]);
  });

  it("keeps a burst bounded: at most MAX_BURST_ENTRIES wait, then they are written without waiting for its end", async () => {
    const { log, appends } = world();
    for (let index = 0; index < 2 * MAX_BURST_ENTRIES + 10; index += 1) log.append(delta("x"));
    await flushMicrotasks();
    expect(appends).toEqual([1, MAX_BURST_ENTRIES, MAX_BURST_ENTRIES]);
    log.finish();
    await log.settled();
    expect(appends).toEqual([1, MAX_BURST_ENTRIES, MAX_BURST_ENTRIES, 9]);
  });

  it("delivers an ephemeral item after the entries before it, and at once when none wait", async () => {
    const { clock, log, delivered } = world();
    const progress = {
      type: "progress" as const,
      body: { type: "data-agent-progress", data: {}, transient: true } as UIMessageChunk,
      at: 1,
    };
    log.publish(progress);
    expect(delivered()).toEqual(["progress"]);
    log.append(delta("a"));
    log.append(delta("b"));
    log.publish(progress);
    await flushMicrotasks();
    expect(delivered()).toEqual(["progress", 1]);
    await clock.advanceBy(0);
    expect(delivered()).toEqual(["progress", 1, 2, "progress"]);
  });

  it("writes what waits when the turn finishes, and everything after that at once", async () => {
    const { clock, log, appends, delivered } = world();
    log.append(delta("a"));
    log.append(delta("b"));
    log.finish();
    await log.settled();
    expect(delivered()).toEqual([1, 2]);
    expect(clock.pendingTimers).toBe(0);
    log.append(delta("late")); // a milestone appended after the stream ended
    await log.settled();
    expect(delivered()).toEqual([1, 2, 3]);
    expect(appends).toEqual([1, 1, 1]);
  });

  it("writes a step's finish-step with the entry after it (a usage update aside), or at its burst's end", async () => {
    const { clock, log, appends, delivered } = world();
    log.append({ type: "finish-step" });
    log.append({ type: "data-agent-usage", data: {}, transient: true } as UIMessageChunk);
    await flushMicrotasks();
    expect(appends).toEqual([]);
    log.append({ type: "finish" });
    await flushMicrotasks();
    expect(appends).toEqual([3]);
    expect(delivered()).toEqual([1, 2, 3]);
    await clock.advanceBy(0);
    log.append(delta("a"));
    log.append({ type: "finish-step" });
    await flushMicrotasks();
    expect(appends).toEqual([3, 1]);
    await clock.advanceBy(0); // the burst ended: the step is written as finished
    expect(appends).toEqual([3, 1, 1]);
  });

  it("after a durable() with nothing waiting, writes the next burst by the same rule: its first entry, then its end", async () => {
    const { clock, log, appends } = world();
    await log.durable(); // a turn's facts made durable before its model begins: nothing waits
    for (const word of ["a", "b", "c", "d", "e"]) log.append(delta(word));
    await flushMicrotasks();
    expect(appends).toEqual([1]);
    await clock.advanceBy(0);
    expect(appends).toEqual([1, 4]);
  });

  it("writes a waiting finish-step when asked: durable, finish", async () => {
    const { log, appends } = world();
    log.append(delta("a"));
    log.append({ type: "finish-step" });
    await log.durable();
    expect(appends).toEqual([1, 1]);
    log.append({ type: "finish-step" });
    log.finish();
    await log.settled();
    expect(appends).toEqual([1, 1, 1]);
  });

  it("never splits entries appended together between two writes, at a burst's bound either", async () => {
    const { log, appends } = world();
    log.append(delta("lead"));
    await flushMicrotasks();
    for (let index = 0; index < MAX_BURST_ENTRIES - 1; index += 1) log.append(delta("x"));
    // The bound falls between the two: the write before them stops short of it.
    log.appendAll([{ type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }, delta("with it")]);
    await flushMicrotasks();
    expect(appends).toEqual([1, MAX_BURST_ENTRIES - 1]);
    log.finish();
    await log.settled();
    expect(appends).toEqual([1, MAX_BURST_ENTRIES - 1, 2]);
  });

  it("goes on per burst once reopened (a paused run's turn goes on)", async () => {
    const { clock, log, appends } = world();
    log.finish();
    log.reopen();
    for (const word of ["a", "b", "c"]) log.append(delta(word));
    await clock.advanceBy(0);
    expect(appends).toEqual([1, 2]);
  });

  it("on a store failure drops what waits, ends the burst and reports the error once", async () => {
    const store = new InMemoryRunStore();
    const { clock, log, errors, delivered } = world(store);
    log.append(delta("a"));
    await flushMicrotasks();
    store.appendLog = () => Promise.reject(new Error("disk full"));
    log.append(delta("b"));
    log.append(delta("c"));
    await clock.advanceBy(0);
    expect(errors).toEqual([new Error("disk full")]);
    expect(log.storeError).toEqual(new Error("disk full"));
    expect(delivered()).toEqual([1]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe("a turn whose chunks each take several microtasks (as the AI SDK's streams do)", () => {
  it("is written in a few appends, not one per chunk", async () => {
    const store = new InMemoryRunStore();
    const appends: number[] = [];
    const appendLog = store.appendLog.bind(store);
    store.appendLog = (runId, entries) => {
      appends.push(entries.length);
      return appendLog(runId, entries);
    };
    const chunks = textChunks(Array.from({ length: 100 }, (_, index) => `w${index} `));
    const clock = new ManualClock(1_000);
    const runner = new AgentToolChildRunner({
      store,
      clock,
      definition: {
        agentType: "Slow",
        turn: () => {
          let index = 0;
          return new ReadableStream<UIMessageChunk>({
            async pull(controller) {
              await flushMicrotasks(5); // each chunk passes through a chain of transforms
              const chunk = chunks[index++];
              if (chunk) controller.enqueue(chunk);
              else controller.close();
            },
          });
        },
      },
    });
    await runner.start("r1", "x");
    const tail = runner.tail("r1", { afterSequence: 0 });
    const items: AgentToolTailItem[] = [];
    for await (const item of tail as unknown as AsyncIterable<AgentToolTailItem>) items.push(item);
    expect(items.at(-1)).toMatchObject({ type: "terminal", inspection: { status: "completed" } });
    expect((await store.readLog("r1")).length).toBe(chunks.length);
    // The first chunk at once, the other 105 when the turn ended (the clock never moved: one burst).
    expect(appends).toEqual([1, chunks.length - 1]);
  });
});
