import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { assembleMessage } from "./assemble-message.js";
import { sdkParts } from "./testing/sdk-parts.js";

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
});
