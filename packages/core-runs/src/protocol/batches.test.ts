// Batches on the wire (SPEC §6): frames packed into JSON arrays under a bound, and read back one by one; a bad batch,
// or a bad element in one, is read as one bad message and loses nothing else.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AGENT_TOOL_BATCH_PARAM,
  asksForAgentToolBatches,
  MAX_AGENT_TOOL_BATCH_LENGTH,
  packAgentToolBatches,
  unpackAgentToolMessage,
} from "./batches.js";
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEventFrame, encodeAgentToolFrame } from "./frames.js";
import { parseAgentToolFrame } from "./parse-frame.js";

const chunk = (runId: string, sequence: number, delta: string): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  sequence,
  event: { kind: "chunk", runId, body: { type: "text-delta", id: "t", delta } },
});

/** Each message read back: a batch's elements (parsed), or a plain message parsed. */
const readBack = (messages: string[]) =>
  messages
    .flatMap((message) => unpackAgentToolMessage(message))
    .map((one) => (typeof one === "string" ? JSON.parse(one) : one));

describe("agentToolBatch", () => {
  it("is asked for with agentToolBatch=1, and only that", () => {
    expect(AGENT_TOOL_BATCH_PARAM).toBe("agentToolBatch");
    expect(asksForAgentToolBatches("1")).toBe(true);
    for (const other of [null, "", "0", "2", "true", " 1"]) expect(asksForAgentToolBatches(other)).toBe(false);
  });

  it("joins a stretch into one array message, and leaves one frame plain", () => {
    const texts = [chunk("r1", 1, "a"), chunk("r2", 1, "b"), chunk("r1", 2, "c")].map(encodeAgentToolFrame);
    const [message, ...rest] = packAgentToolBatches(texts);
    expect(rest).toEqual([]);
    expect(message).toBe(`[${texts.join(",")}]`);
    expect(JSON.parse(message as string)).toEqual(texts.map((text) => JSON.parse(text)));
    expect(packAgentToolBatches(texts.slice(0, 1))).toEqual(texts.slice(0, 1));
    expect(packAgentToolBatches([])).toEqual([]);
  });

  it("keeps every message within the bound, a frame longer than the bound alone and as it was", () => {
    const long = encodeAgentToolFrame(chunk("r1", 2, "x".repeat(MAX_AGENT_TOOL_BATCH_LENGTH)));
    const small = (sequence: number) => encodeAgentToolFrame(chunk("r1", sequence, "y".repeat(100_000)));
    const texts = [small(1), long, small(3), small(4), small(5)];
    const messages = packAgentToolBatches(texts);
    // [1] alone (the next is too long to share), the long one alone, [3, 4] together (5 would go past the bound), [5].
    expect(messages).toEqual([texts[0], long, `[${texts[2]},${texts[3]}]`, texts[4]]);
    for (const message of messages) {
      if (message !== long) expect(message.length).toBeLessThanOrEqual(MAX_AGENT_TOOL_BATCH_LENGTH);
    }
  });

  it("packs any texts into messages that read back as the same frames in order, each within the bound", () => {
    const frames = fc.array(
      fc.tuple(fc.constantFrom("r1", "r2", "r3"), fc.integer({ min: 1, max: 10_000 }), fc.string({ maxLength: 300 })),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(frames, fc.integer({ min: 2, max: 4_000 }), (tuples, maxLength) => {
        const texts = tuples.map(([runId, sequence, delta]) => encodeAgentToolFrame(chunk(runId, sequence, delta)));
        const messages = packAgentToolBatches(texts, maxLength);
        expect(readBack(messages)).toEqual(texts.map((text) => JSON.parse(text)));
        for (const message of messages) {
          expect(texts.includes(message) || message.length <= maxLength).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads a plain message as itself, and anything that is not a batch as one message", () => {
    const text = encodeAgentToolFrame(chunk("r1", 1, "a"));
    expect(unpackAgentToolMessage(text)).toEqual([text]);
    const parsed = JSON.parse(text);
    expect(unpackAgentToolMessage(parsed)).toEqual([parsed]);
    expect(unpackAgentToolMessage([parsed, parsed])).toEqual([parsed, parsed]);
    // A malformed batch is one bad message: the caller rejects it as it rejects any text that is not JSON.
    expect(unpackAgentToolMessage("[{not json")).toEqual(["[{not json"]);
    expect(parseAgentToolFrame(unpackAgentToolMessage("[{not json")[0])).toEqual({
      ok: false,
      error: "frame is not valid JSON",
    });
    expect(unpackAgentToolMessage(new Uint8Array([91, 93]))).toEqual([new Uint8Array([91, 93])]);
    expect(unpackAgentToolMessage(undefined)).toEqual([undefined]);
  });

  it("loses nothing else for an element of a batch that is not a frame", () => {
    const good = [chunk("r1", 1, "a"), chunk("r1", 2, "b")];
    const message = `[${encodeAgentToolFrame(good[0] as AgentToolEventFrame)},{"type":"agent-tool-event","event":42},"x",${encodeAgentToolFrame(good[1] as AgentToolEventFrame)}]`;
    const results = unpackAgentToolMessage(message).map(parseAgentToolFrame);
    expect(results.map((result) => result.ok)).toEqual([true, false, false, true]);
    expect(results.flatMap((result) => (result.ok ? [result.frame] : []))).toEqual(good);
  });
});
