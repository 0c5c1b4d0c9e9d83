// Paged replay (SPEC §6): a client that asks gets the newest runs and every live one, then older pages on request.
import { describe, expect, it } from "vitest";
import { type AgentToolCursors, type AgentToolEventFrame, encodeAgentToolFrame } from "../protocol/index.js";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { InProcessChildTransport } from "../testing/in-process-child-transport.js";
import { flushMicrotasks, ManualClock } from "../testing/manual-clock.js";
import { ScriptedChild } from "../testing/scripted-child.js";
import type { RunRecord } from "./run-record.js";
import { AgentToolRegistry } from "./run-registry.js";

/** A registry whose store holds `count` finished runs `f1`…`fN` (started at 1…N, two log entries each). */
async function retained(count: number) {
  // At time 0: a run the registry starts is older than every retained one.
  const clock = new ManualClock(0);
  const store = new InMemoryRunStore();
  const scripted = new ScriptedChild("Scripted");
  const transport = new InProcessChildTransport({ children: [scripted.definition], clock });
  const registry = new AgentToolRegistry({ store, transport, clock });
  for (let index = 1; index <= count; index += 1) {
    const record: RunRecord = {
      runId: `f${index}`,
      agentType: "Scripted",
      status: "completed",
      revision: 3,
      startedAt: index,
      updatedAt: index,
      completedAt: index,
      displayOrder: 0,
      lastSequence: 2,
      summary: `run ${index}`,
    };
    await store.insertRun(record);
    await store.appendLog(record.runId, [
      { sequence: 1, body: { type: "text-start", id: "t" }, at: index },
      { sequence: 2, body: { type: "text-end", id: "t" }, at: index },
    ]);
  }
  return { registry, store, scripted, clock };
}

async function replay(
  registry: AgentToolRegistry,
  options: {
    cursors?: AgentToolCursors;
    page?: { limit: number; before?: { startedAt: number; runId: string }; maxBytes?: number };
  },
) {
  const frames: AgentToolEventFrame[] = [];
  const result = await registry.replayAgentToolRuns((frame) => frames.push(frame), options);
  const runIds: string[] = [];
  for (const frame of frames) {
    const runId = frame.event.kind === "cleared" ? null : frame.event.runId;
    if (runId !== null && !runIds.includes(runId)) runIds.push(runId);
  }
  return { frames, runIds, result };
}

describe("paged replay", () => {
  it("gives a client without cursors the newest runs, newest first, and every live run, then where older ones start", async () => {
    const { registry, scripted } = await retained(30);
    // A live run that started before the page's runs: a client always gets live runs.
    const live = registry.runAgentTool("Scripted", { input: "x", runId: "live" });
    const run = scripted.run("live");
    await run.context;
    await flushMicrotasks(50);
    const { runIds, frames, result } = await replay(registry, { page: { limit: 5 } });
    expect(runIds).toEqual(["f30", "f29", "f28", "f27", "f26", "live"]);
    // Each finished run whole: started, its entries, its terminal.
    expect(frames.filter((frame) => frame.event.kind === "finished")).toHaveLength(5);
    expect(frames.every((frame) => frame.replay === true)).toBe(true);
    expect(result.page).toEqual({ hasOlder: true, before: { startedAt: 26, runId: "f26" } });
    run.complete();
    await live;
  });

  it("sends the page before a position on request, and says when nothing older is left", async () => {
    const { registry } = await retained(12);
    const second = await replay(registry, { page: { limit: 5, before: { startedAt: 8, runId: "f8" } } });
    expect(second.runIds).toEqual(["f7", "f6", "f5", "f4", "f3"]);
    expect(second.result.page).toEqual({ hasOlder: true, before: { startedAt: 3, runId: "f3" } });
    const last = await replay(registry, { page: { limit: 5, before: { startedAt: 3, runId: "f3" } } });
    expect(last.runIds).toEqual(["f2", "f1"]);
    expect(last.result.page).toEqual({ hasOlder: false });
  });

  it("ends a page of older runs before the run that would take it past maxBytes, a first run whatever its size", async () => {
    // Nine runs of one size (ids and times of one digit each).
    const { registry } = await retained(9);
    const before = { startedAt: 9, runId: "f9" };
    // What a run weighs on the wire (its frames as sent), from a page without a byte bound.
    const whole = await replay(registry, { page: { limit: 8, before } });
    const bytesOf = (frames: AgentToolEventFrame[]) =>
      frames.reduce((sum, frame) => sum + new TextEncoder().encode(encodeAgentToolFrame(frame)).byteLength, 0);
    const runBytes = bytesOf(
      whole.frames.filter((frame) => frame.event.kind !== "cleared" && frame.event.runId === "f8"),
    );
    expect(bytesOf(whole.frames)).toBe(8 * runBytes);
    // Room for two runs and most of a third: the page ends before the third, and says the older runs start there.
    const maxBytes = 3 * runBytes - 1;
    const bounded = await replay(registry, { page: { limit: 8, before, maxBytes } });
    expect(bounded.runIds).toEqual(["f8", "f7"]);
    expect(bytesOf(bounded.frames)).toBe(2 * runBytes);
    expect(bounded.result.page).toEqual({ hasOlder: true, before: { startedAt: 7, runId: "f7" } });
    const next = await replay(registry, { page: { limit: 8, before: { startedAt: 7, runId: "f7" }, maxBytes } });
    expect(next.runIds).toEqual(["f6", "f5"]);
    // A bound smaller than one run still sends one run a page, whole: paging always moves on.
    const tiny = await replay(registry, { page: { limit: 8, before, maxBytes: 1 } });
    expect(tiny.runIds).toEqual(["f8"]);
    expect(tiny.frames.filter((frame) => frame.event.kind === "finished")).toHaveLength(1);
    expect(tiny.result.page).toEqual({ hasOlder: true, before: { startedAt: 8, runId: "f8" } });
    // The last runs fit: nothing older is left.
    const last = await replay(registry, { page: { limit: 8, before: { startedAt: 3, runId: "f3" }, maxBytes } });
    expect(last.runIds).toEqual(["f2", "f1"]);
    expect(last.result.page).toEqual({ hasOlder: false });
  });

  it("gives a client that reconnects with cursors what it missed of its runs and the runs since, never older ones", async () => {
    const { registry, store } = await retained(40);
    // The client holds f31…f40 whole (it loaded one page of 10), and f35 only up to sequence 1.
    const cursors: AgentToolCursors = {};
    for (let index = 31; index <= 40; index += 1) cursors[`f${index}`] = { sequence: 2, revision: 3 };
    cursors["f35"] = { sequence: 1, revision: 3 };
    // While it was away: f33 was cleared, a new run finished.
    await store.deleteRuns(["f33"]);
    await store.insertRun({
      runId: "new",
      agentType: "Scripted",
      status: "completed",
      revision: 3,
      startedAt: 50,
      updatedAt: 50,
      completedAt: 50,
      displayOrder: 0,
      lastSequence: 0,
      summary: "new",
    });
    const { frames, result } = await replay(registry, { cursors, page: { limit: 10 } });
    expect(
      frames.map((frame) => [frame.event.kind, frame.event.kind === "cleared" ? null : frame.event.runId]),
    ).toEqual([
      ["started", "new"],
      ["finished", "new"],
      ["chunk", "f35"],
      ["cleared", null],
    ]);
    expect(frames.at(-1)?.event).toEqual({ kind: "cleared", runIds: ["f33"] });
    expect(result.page).toEqual({ hasOlder: true, before: { startedAt: 31, runId: "f31" } });
  });

  it("without paging replays every retained run, oldest first, as before", async () => {
    const { registry } = await retained(7);
    const { runIds, result } = await replay(registry, {});
    expect(runIds).toEqual(["f1", "f2", "f3", "f4", "f5", "f6", "f7"]);
    expect(result.page).toBeUndefined();
  });
});
