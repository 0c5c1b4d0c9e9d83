import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import {
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolEventFrame,
  acceptAgentToolFrame,
  NO_FRAMES_ACCEPTED,
  outputMessageId,
  stepResetChunk,
} from "../protocol/index.js";
import { acceptedFrameIndexes, adversarialRunFrames } from "../testing/adversarial-frames.js";
import { textChunks } from "../testing/scripted-child.js";
import { assembleMessage } from "./assemble-message.js";
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

  it("keeps its message once closed, and takes no chunk into it after", async () => {
    const follower = new RunMessageFollower("r1");
    for (const [index, body] of chunks.entries()) follower.push(chunkFrame("r1", index + 1, body));
    follower.close();
    expect(await textOf(follower)).toBe("one two three");
    follower.push(chunkFrame("r1", chunks.length + 1, { type: "text-delta", id: "text-1", delta: " more" }));
    expect(await textOf(follower)).toBe("one two three");
  });

  describe("a long child: the message grows with each chunk, assembled once", () => {
    /** Chunks that count how often the assembly looks at them (the SDK reads a chunk's `type` to apply it). */
    function counted(bodies: readonly UIMessageChunk[]): { chunks: UIMessageChunk[]; looks: () => number } {
      let looks = 0;
      const chunks = bodies.map((body) => {
        const { type, ...rest } = body;
        const chunk = { ...rest } as UIMessageChunk;
        Object.defineProperty(chunk, "type", {
          enumerable: true,
          get: () => {
            looks += 1;
            return type;
          },
        });
        return chunk;
      });
      return { chunks, looks: () => looks };
    }

    it("applies each chunk once however often the message is read (linear, not a reassembly per change)", async () => {
      const deltas = Array.from({ length: 400 }, (_, index) => `d${index} `);
      const { chunks, looks } = counted(textChunks(deltas));
      const follower = new RunMessageFollower("r1");
      for (const [index, body] of chunks.entries()) {
        follower.push(chunkFrame("r1", index + 1, body));
        await follower.read(); // a reader after every chunk, as a preliminary-results tool call with one frame a batch
      }
      expect(await textOf(follower)).toBe(deltas.join(""));
      // Each chunk is looked at a few times where it is taken and applied; a reassembly per read looked at every
      // chunk again at each of the 406 reads (497 351 looks).
      expect(looks()).toBeLessThanOrEqual(10 * chunks.length);
    });

    it("gives, after every chunk, what assembling all the chunks so far gives (also across a step reset and a gap)", async () => {
      const bodies: UIMessageChunk[] = [
        { type: "start", messageId: "m1" },
        { type: "start-step" },
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "think" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hal" },
        { type: "data-agent-milestone", data: { name: "read" } } as UIMessageChunk,
        stepResetChunk(2),
        { type: "start-step" },
        { type: "tool-input-start", toolCallId: "c1", toolName: "look" },
        { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"q":' },
        { type: "tool-input-available", toolCallId: "c1", toolName: "look", input: { q: 1 } },
        { type: "tool-output-available", toolCallId: "c1", output: "seen" },
        { type: "finish-step" },
        { type: "start-step" },
        { type: "text-start", id: "t2" },
        { type: "text-delta", id: "t2", delta: "Half done" },
        { type: "text-end", id: "t2" },
        { type: "data-note", id: "n", data: { a: 1 } } as UIMessageChunk,
        { type: "data-note", id: "n", data: { a: 2 } } as UIMessageChunk,
        { type: "finish-step" },
        { type: "finish", messageMetadata: { done: true } },
      ];
      // The reference: the chunks the protocol keeps (a reset voids the cut step's, not its milestone), assembled
      // from scratch after each frame.
      const follower = new RunMessageFollower("r1");
      const kept = new Map<number, UIMessageChunk>();
      let cursor = NO_FRAMES_ACCEPTED;
      // Sequence 4 arrives after 5–7: until then nothing after 3 counts.
      const order = [...bodies.keys()].filter((index) => index !== 3);
      order.splice(6, 0, 3);
      for (const index of order) {
        const frame = chunkFrame("r1", index + 1, bodies[index] as UIMessageChunk);
        follower.push(frame);
        const accepted = acceptAgentToolFrame(cursor, frame);
        cursor = accepted.cursor;
        for (const [from, until] of accepted.voids) {
          for (let voided = from; voided < until; voided += 1) {
            if (kept.get(voided)?.type !== "data-agent-milestone") kept.delete(voided);
          }
        }
        kept.set(index + 1, bodies[index] as UIMessageChunk);
        const chunks: UIMessageChunk[] = [];
        for (let sequence = 1; sequence <= cursor.contiguous; sequence += 1) {
          const chunk = kept.get(sequence);
          if (chunk !== undefined && !chunk.type.startsWith("data-agent-")) chunks.push(chunk);
        }
        expect((await follower.read()).message).toEqual(await assembleMessage(chunks, outputMessageId("r1")));
      }
      expect((await follower.read()).message?.parts.map((part) => part.type)).toEqual([
        "step-start",
        "tool-look",
        "step-start",
        "text",
        "data-note",
      ]);
    });
  });
});
