import type { UIMessage, UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import {
  closeUnfinishedToolCalls,
  repairUnfinishedToolParts,
  UNFINISHED_TOOL_CALL_TEXT,
} from "./unfinished-tool-calls.js";

const decided = (toolCallId: string, extra: Partial<UIMessageChunk> = {}): UIMessageChunk =>
  ({ type: "tool-input-available", toolCallId, toolName: "t", input: {}, ...extra }) as UIMessageChunk;

describe("closeUnfinishedToolCalls", () => {
  it("closes each decided call without a result, and leaves answered, failed and denied ones", () => {
    const chunks: UIMessageChunk[] = [
      decided("open"),
      decided("answered"),
      { type: "tool-output-available", toolCallId: "answered", output: 1 },
      decided("failed"),
      { type: "tool-output-error", toolCallId: "failed", errorText: "x" },
      decided("denied"),
      { type: "tool-output-denied", toolCallId: "denied" },
      decided("preliminary-only"),
      { type: "tool-output-available", toolCallId: "preliminary-only", output: 1, preliminary: true },
    ];
    const { kept, closing } = closeUnfinishedToolCalls(chunks, "stopped");
    expect(kept).toEqual(chunks);
    expect(closing).toEqual([
      { type: "tool-output-error", toolCallId: "open", errorText: "stopped" },
      { type: "tool-output-error", toolCallId: "preliminary-only", errorText: "stopped" },
    ]);
  });

  it("drops the chunks of a call whose input was still streaming", () => {
    const chunks: UIMessageChunk[] = [
      { type: "text-delta", id: "t", delta: "hi" },
      { type: "tool-input-start", toolCallId: "half", toolName: "t" },
      { type: "tool-input-delta", toolCallId: "half", inputTextDelta: "{" },
    ];
    expect(closeUnfinishedToolCalls(chunks, "x")).toEqual({ kept: [chunks[0]], closing: [] });
  });

  it("leaves provider-executed calls, and calls waiting for approval unless told to close them", () => {
    const chunks: UIMessageChunk[] = [
      decided("provider", { providerExecuted: true } as Partial<UIMessageChunk>),
      decided("asks"),
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "asks" },
    ];
    expect(closeUnfinishedToolCalls(chunks, "x").closing).toEqual([]);
    expect(closeUnfinishedToolCalls(chunks, "x", { closeApprovals: true }).closing).toEqual([
      { type: "tool-output-error", toolCallId: "asks", errorText: "x" },
    ]);
  });
});

describe("repairUnfinishedToolParts", () => {
  it("gives an error result to a stored tool part without one and drops one whose input never completed", () => {
    const messages = [
      { id: "u", role: "user", parts: [{ type: "text", text: "hi" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "text", text: "working" },
          { type: "tool-search", toolCallId: "c1", state: "input-available", input: {} },
          { type: "tool-search", toolCallId: "c2", state: "input-streaming", input: undefined },
          { type: "tool-search", toolCallId: "c3", state: "output-available", input: {}, output: 1 },
        ],
      },
    ] as UIMessage[];
    const repaired = repairUnfinishedToolParts(messages);
    expect(repaired[0]).toBe(messages[0]);
    expect(repaired[1]?.parts).toEqual([
      { type: "text", text: "working" },
      { type: "tool-search", toolCallId: "c1", state: "output-error", input: {}, errorText: UNFINISHED_TOOL_CALL_TEXT },
      { type: "tool-search", toolCallId: "c3", state: "output-available", input: {}, output: 1 },
    ]);
  });

  it("returns a message with nothing to repair as it is", () => {
    const message = { id: "a", role: "assistant", parts: [{ type: "text", text: "ok" }] } as UIMessage;
    expect(repairUnfinishedToolParts([message])[0]).toBe(message);
  });
});
