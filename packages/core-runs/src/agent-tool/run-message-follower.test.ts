import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEventFrame, stepResetChunk } from "../protocol/index.js";
import { acceptedFrameIndexes, adversarialRunFrames } from "../testing/adversarial-frames.js";
import { textChunks } from "../testing/scripted-child.js";
import { RunMessageFollower } from "./run-message-follower.js";

const chunkFrame = (runId: string, sequence: number, body: UIMessageChunk, replay = false): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  sequence,
  ...(replay ? { replay: true as const } : {}),
  event: { kind: "chunk", runId, body },
});
const lifecycle = (event: AgentToolEventFrame["event"], revision?: number): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  ...(revision === undefined ? {} : { revision }),
  event,
});
const textOf = async (follower: RunMessageFollower) =>
  ((await follower.read()).message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

describe("RunMessageFollower", () => {
  const chunks = textChunks(["one ", "two ", "three"]);

  it("uses chunks in sequence order and only while gap-free; a later chunk waits for the gap to fill", async () => {
    const follower = new RunMessageFollower("r1");
    for (const [index, body] of chunks.entries()) if (index !== 3) follower.push(chunkFrame("r1", index + 1, body));
    expect(await textOf(follower)).toBe(""); // sequence 4 ("one ") is missing: nothing after it counts
    const missing = chunks[3];
    if (!missing) throw new Error("textChunks changed shape");
    follower.push(chunkFrame("r1", 4, missing));
    expect(await textOf(follower)).toBe("one two three");
  });

  it("takes a replayed chunk and its live twin once", async () => {
    const follower = new RunMessageFollower("r1");
    for (const [index, body] of chunks.entries()) follower.push(chunkFrame("r1", index + 1, body, true));
    const version = follower.version;
    for (const [index, body] of chunks.entries()) follower.push(chunkFrame("r1", index + 1, body));
    expect(follower.version).toBe(version);
    expect(await textOf(follower)).toBe("one two three");
  });

  it("drops a cut step on a step reset, live or replayed without the voided chunks: the text is the uninterrupted one", async () => {
    // Live: the cut step's "Hal" came, then the reset (sequence 6 voids 3–5), then the step again.
    const cut: UIMessageChunk[] = [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hal" },
      { type: "data-agent-milestone", data: { name: "read" } } as UIMessageChunk,
    ];
    const redo: UIMessageChunk[] = [
      stepResetChunk(2),
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Half done" },
      { type: "text-end", id: "t" },
      { type: "finish-step" },
    ];
    const live = new RunMessageFollower("r1");
    for (const [index, body] of [...cut, ...redo].entries()) live.push(chunkFrame("r1", index + 1, body));
    expect(await textOf(live)).toBe("Half done");
    expect((await live.read()).message?.parts.filter((part) => part.type === "step-start")).toHaveLength(1);
    // Replayed: the voided chunks never come (the milestone does); the reset stands for them.
    const replayed = new RunMessageFollower("r1");
    replayed.push(chunkFrame("r1", 1, { type: "start" }, true));
    replayed.push(chunkFrame("r1", 5, cut[4] as UIMessageChunk, true));
    for (const [index, body] of redo.entries()) replayed.push(chunkFrame("r1", cut.length + 1 + index, body, true));
    expect(await textOf(replayed)).toBe("Half done");
    expect((await replayed.read()).message?.parts).toEqual((await live.read()).message?.parts);
  });

  it("keeps the newest lifecycle by revision, and ignores other runs", async () => {
    const follower = new RunMessageFollower("r1");
    follower.push(lifecycle({ kind: "finished", runId: "r1", summary: "s" }, 3));
    follower.push(lifecycle({ kind: "started", runId: "r1", agentType: "A", displayOrder: 0 }, 1));
    follower.push(lifecycle({ kind: "error", runId: "other", error: "e" }, 9));
    follower.push(chunkFrame("other", 1, { type: "start" }));
    expect(await follower.read()).toEqual({ status: "completed", message: null, progress: null, approvals: [] });
  });

  it("frames without a revision (an older server): a started never revives an ended run, a terminal never overrides a hard one", async () => {
    const revived = new RunMessageFollower("r1");
    revived.push(lifecycle({ kind: "finished", runId: "r1", summary: "s" }));
    revived.push(lifecycle({ kind: "started", runId: "r1", agentType: "A", displayOrder: 0 }));
    expect((await revived.read()).status).toBe("completed");
    const overridden = new RunMessageFollower("r1");
    overridden.push(lifecycle({ kind: "aborted", runId: "r1" }));
    overridden.push(lifecycle({ kind: "error", runId: "r1", error: "late" }));
    expect((await overridden.read()).status).toBe("aborted");
    // A repair of an interrupted run is applied.
    const repaired = new RunMessageFollower("r1");
    repaired.push(lifecycle({ kind: "interrupted", runId: "r1", error: "cut" }));
    repaired.push(lifecycle({ kind: "finished", runId: "r1", summary: "s" }));
    expect((await repaired.read()).status).toBe("completed");
  });

  it("accepts exactly the frames the protocol's rule accepts (acceptAgentToolFrame)", () => {
    const frames = adversarialRunFrames("r1");
    const follower = new RunMessageFollower("r1");
    const changed: number[] = [];
    frames.forEach((frame, index) => {
      const version = follower.version;
      follower.push(frame);
      if (follower.version !== version) changed.push(index);
    });
    expect(changed).toEqual(acceptedFrameIndexes(frames));
  });

  it("wakes a reader on the next change, at once when one already happened", async () => {
    const follower = new RunMessageFollower("r1");
    const before = follower.version;
    let woken = false;
    const waiting = follower.changedSince(before).then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    follower.push(chunkFrame("r1", 1, { type: "start" }));
    await waiting;
    expect(woken).toBe(true);
    await follower.changedSince(before); // already changed: resolves without another push
  });
});
