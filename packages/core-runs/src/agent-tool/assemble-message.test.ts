import type { UIMessageChunk } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sdkParts } from "../testing/sdk-parts.js";
import { assembleMessage } from "./assemble-message.js";

describe("assembleMessage", () => {
  it("assembles every chunk of an unfinished message, also those after the SDK's last snapshot", async () => {
    const unfinished: UIMessageChunk[] = [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "a" },
      { type: "text-delta", id: "a", delta: "Looking." },
      { type: "text-end", id: "a" },
      { type: "finish-step" },
      { type: "start-step" },
    ];
    const message = await assembleMessage(unfinished, "m1");
    expect(message?.parts).toEqual(await sdkParts(unfinished));
    expect(message?.parts.at(-1)).toEqual({ type: "step-start" });
    expect(message).toMatchObject({ id: "m1", role: "assistant" });
    expect(message?.metadata).toBeUndefined();
  });

  it("gives the message of a stream that has only started its first step, and none for no chunk", async () => {
    expect((await assembleMessage([{ type: "start" }, { type: "start-step" }], "m1"))?.parts).toEqual([
      { type: "step-start" },
    ]);
    expect(await assembleMessage([], "m1")).toBeNull();
  });

  it("keeps the metadata and data parts the chunks give", async () => {
    const chunks: UIMessageChunk[] = [
      { type: "start", messageMetadata: { model: "m" } },
      { type: "data-note", id: "n", data: { a: 1 } } as UIMessageChunk,
      { type: "start-step" },
    ];
    const message = await assembleMessage(chunks, "m1");
    expect(message?.metadata).toEqual({ model: "m" });
    expect(message?.parts).toEqual([{ type: "data-note", id: "n", data: { a: 1 } }, { type: "step-start" }]);
  });

  describe("a turn of many tool calls", () => {
    afterEach(() => vi.restoreAllMocks());

    /** A step calling the tool `calls` times (input, then output each), as a fan-out turn journals it. */
    function fanOut(calls: number): UIMessageChunk[] {
      const chunks: UIMessageChunk[] = [{ type: "start", messageId: "m1" }, { type: "start-step" }];
      for (let index = 0; index < calls; index += 1) {
        const toolCallId = `call-${index}`;
        chunks.push({ type: "tool-input-start", toolCallId, toolName: "bench" });
        chunks.push({ type: "tool-input-available", toolCallId, toolName: "bench", input: { count: index } });
      }
      for (let index = 0; index < calls; index += 1) {
        chunks.push({ type: "tool-output-available", toolCallId: `call-${index}`, output: { text: `done ${index}` } });
      }
      chunks.push({ type: "finish-step" }, { type: "finish" });
      return chunks;
    }

    it("assembles the message once, not a copy of it per chunk (linear in the parts, not quadratic)", async () => {
      const chunks = fanOut(200);
      const expected = await sdkParts(chunks);
      let partsCopied = 0;
      const clone = globalThis.structuredClone;
      vi.spyOn(globalThis, "structuredClone").mockImplementation((value, options) => {
        const parts = (value as { parts?: unknown })?.parts;
        if (Array.isArray(parts)) partsCopied += parts.length;
        return clone(value, options);
      });
      const message = await assembleMessage(chunks, "fallback");
      expect(message?.parts).toEqual(expected);
      expect(message?.id).toBe("m1");
      // 201 parts (a step start and 200 tool parts): a copy of each at the end, none per chunk (which copied 80 000).
      expect(expected).toHaveLength(201);
      expect(partsCopied).toBeLessThanOrEqual(2 * expected.length);
    });

    it("gives what the SDK's own assembly gives when a second message starts in the chunks", async () => {
      const chunks: UIMessageChunk[] = [
        { type: "start", messageId: "a" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "first" },
        { type: "text-end", id: "t" },
        { type: "start", messageId: "b" },
        { type: "text-start", id: "u" },
        { type: "text-delta", id: "u", delta: "second" },
        { type: "text-end", id: "u" },
      ];
      const message = await assembleMessage(chunks, "fallback");
      expect(message?.parts).toEqual(await sdkParts(chunks));
      expect(message?.id).toBe("b");
    });

    it("gives what the SDK's own assembly gives for chunks it cannot apply (a delta of no text part)", async () => {
      const chunks: UIMessageChunk[] = [
        { type: "start" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "kept" },
        { type: "text-delta", id: "unknown", delta: "x" },
        { type: "text-end", id: "t" },
      ];
      const message = await assembleMessage(chunks, "fallback");
      expect(message?.parts).toEqual(await sdkParts(chunks, () => undefined));
      expect(message?.id).toBe("fallback");
    });
  });
});
