// The child's drill-in socket, in Node over the core runner (the socket itself is faked): the conversation it sends
// and the tail after it hold every log entry exactly once, and the socket closes once the run has ended.
import { AgentToolChildRunner, type RunStore } from "@agent-tools/core-runs";
import { type AgentToolDrillInFrame, parseAgentToolDrillInFrame } from "@agent-tools/core-runs/protocol";
import {
  textDelta as delta,
  flushMicrotasks,
  InMemoryRunStore,
  ManualClock,
  ScriptedChild,
  storeWith,
} from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { type DrillInSocket, serveDrillIn } from "../src/child/drill-in-socket.js";

function fakeSocket() {
  const frames: AgentToolDrillInFrame[] = [];
  const closes: Array<{ code?: number; reason?: string }> = [];
  const onClose: Array<() => void> = [];
  const socket: DrillInSocket = {
    send(message) {
      const parsed = parseAgentToolDrillInFrame(message);
      if (!parsed.ok) throw new Error(parsed.error);
      frames.push(parsed.frame);
    },
    close(code, reason) {
      closes.push({ ...(code !== undefined ? { code } : {}), ...(reason !== undefined ? { reason } : {}) });
      for (const listener of onClose) listener();
    },
    addEventListener(_type, listener) {
      onClose.push(listener);
    },
  };
  return { socket, frames, closes };
}

/** A store whose log reads can be held: the turn writes meanwhile. */
function holdableStore() {
  const inner = new InMemoryRunStore();
  let hold: Promise<void> | null = null;
  let release = () => {};
  const store: RunStore = storeWith(inner, {
    readLog: async (runId, options) => {
      if (hold !== null) await hold;
      return inner.readLog(runId, options);
    },
  });
  return {
    store,
    holdReads() {
      hold = new Promise((resolve) => {
        release = resolve;
      });
    },
    releaseReads() {
      hold = null;
      release();
    },
  };
}

/** What a drill-in client shows: the messages' text, then every entry after the run's `lastSequence`. */
function shownText(frames: readonly AgentToolDrillInFrame[]): string {
  const [first, ...rest] = frames;
  if (first?.type !== "child-messages") throw new Error("no messages frame first");
  let text = (first.messages.at(-1)?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  let held = first.run?.lastSequence ?? 0;
  for (const frame of rest) {
    if (frame.type !== "child-chunk" || frame.item.type !== "entries") continue;
    for (const entry of frame.item.entries) {
      if (entry.sequence <= held) continue;
      held = entry.sequence;
      if (entry.body.type === "text-delta") text += entry.body.delta;
    }
  }
  return text;
}

describe("serveDrillIn", () => {
  it("sends the conversation and the tail after it with each entry once, though the turn writes while it reads", async () => {
    const clock = new ManualClock(1_000);
    const child = new ScriptedChild("Echo");
    const { store, holdReads, releaseReads } = holdableStore();
    const runner = new AgentToolChildRunner({ definition: child.definition, store, clock });
    await runner.start("r1", "x");
    const run = child.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "start-step" }, { type: "text-start", id: "t" }, delta("a"));
    await flushMicrotasks(100);
    await clock.advanceBy(0);

    const { socket, frames, closes } = fakeSocket();
    holdReads();
    const serving = serveDrillIn(runner, "r1", socket);
    await flushMicrotasks(100);
    // While the drill-in reads the conversation, the turn goes on.
    run.emit(delta("b"), delta("c"));
    await flushMicrotasks(100);
    await clock.advanceBy(0);
    releaseReads();
    const { delivery } = await serving;
    run.emit(delta("d"), { type: "text-end", id: "t" }, { type: "finish-step" }, { type: "finish" });
    run.complete();
    await delivery;

    expect(shownText(frames)).toBe("abcd");
    expect(frames.at(-1)).toMatchObject({ type: "child-chunk", item: { type: "terminal" } });
    expect(closes).toEqual([{ code: 1000, reason: "run ended" }]);
  });

  it("closes the socket of a run that has already ended, after its conversation and terminal", async () => {
    const clock = new ManualClock(1_000);
    const child = new ScriptedChild("Echo");
    const runner = new AgentToolChildRunner({ definition: child.definition, store: new InMemoryRunStore(), clock });
    await runner.start("r1", "x");
    const run = child.run("r1");
    await run.context;
    run.emit({ type: "start" }, { type: "text-start", id: "t" }, delta("done"), { type: "text-end", id: "t" });
    run.complete();
    await flushMicrotasks(100);
    await clock.advanceBy(0);
    expect((await runner.inspect("r1"))?.status).toBe("completed");

    const { socket, frames, closes } = fakeSocket();
    const { delivery } = await serveDrillIn(runner, "r1", socket);
    await delivery;
    expect(frames.map((frame) => (frame.type === "child-chunk" ? frame.item.type : frame.type))).toEqual([
      "child-messages",
      "terminal",
    ]);
    expect(shownText(frames)).toBe("done");
    expect(closes).toEqual([{ code: 1000, reason: "run ended" }]);
  });
});
