import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { answerOutcome, liveAnswerId, saysError } from "../web/src/answer-state.js";

// The demo page's last answer: which one is still in flight (its tool calls read as their runs do, also while the
// connection is down), and whether it failed (Retry) or may be regenerated.

const user = (id: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text: id }] });
const answer = (id: string, text = "Here is what I found."): UIMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text }],
});
const calling = (id: string): UIMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "tool-research", toolCallId: "c1", state: "input-available", input: { topic: "cats" } }],
});

describe("liveAnswerId", () => {
  const base = { isBusy: false, isDisconnected: false, endedTurns: {} };
  it("is the answer the chat streams", () => {
    expect(liveAnswerId({ ...base, messages: [user("u1"), answer("a1")], isBusy: true })).toBe("a1");
    expect(liveAnswerId({ ...base, messages: [user("u1")], isBusy: true })).toBeNull();
    expect(liveAnswerId({ ...base, messages: [user("u1"), answer("a1")] })).toBeNull();
  });

  it("while the connection is down, is the last answer whose turn was cut with a tool call unfinished", () => {
    const messages = [user("u1"), calling("a1")];
    expect(liveAnswerId({ ...base, messages, isDisconnected: true })).toBe("a1");
    expect(liveAnswerId({ ...base, messages, isDisconnected: true, endedTurns: { a1: "aborted" } })).toBeNull();
    expect(liveAnswerId({ ...base, messages: [user("u1"), answer("a1")], isDisconnected: true })).toBeNull();
    expect(liveAnswerId({ ...base, messages: [calling("a1"), user("u2")], isDisconnected: true })).toBeNull();
  });
});

describe("answerOutcome", () => {
  it("says a failed answer failed, from its turn's end or from its stored words", () => {
    expect(answerOutcome(answer("a1", "Let me think."), { a1: "error" })).toBe("failed");
    expect(answerOutcome(answer("a1", "This answer failed: The model is unavailable"), {})).toBe("failed");
    expect(answerOutcome(answer("a1"), { a1: "completed" })).toBe("answered");
    expect(answerOutcome(answer("a1"), {})).toBe("answered");
  });
});

describe("saysError", () => {
  it("tells the error a failed answer carries from another one (shown on its own)", () => {
    const failed = answer("a1", "This answer failed: The model is unavailable");
    expect(saysError(failed, "The model is unavailable")).toBe(true);
    expect(saysError(failed, "The conversation changed since this page loaded it")).toBe(false);
  });
});
