import { describe, expect, it } from "vitest";
import { ChatLimitError, checkSize, DEFAULT_CHAT_LIMITS, jsonBytes, resolveChatLimits } from "./chat-limits.js";

describe("chat limits", () => {
  it("fills in the defaults and refuses a limit that is not a positive integer", () => {
    expect(resolveChatLimits({ maxQueuedSends: 2 })).toEqual({ ...DEFAULT_CHAT_LIMITS, maxQueuedSends: 2 });
    expect(() => resolveChatLimits({ maxMessageBytes: 0 })).toThrow(/maxMessageBytes must be a positive integer/);
    expect(() => resolveChatLimits({ maxAnswerBytes: Number.NaN })).toThrow(/maxAnswerBytes/);
  });

  it("measures UTF-8 JSON bytes, and a value JSON cannot hold as never fitting", () => {
    expect(jsonBytes("é")).toBe(4);
    expect(jsonBytes({ a: 1 })).toBe(7);
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(jsonBytes(cyclic)).toBe(Number.POSITIVE_INFINITY);
  });

  it("checkSize returns a typed error naming the value, its size and the limit", () => {
    const limits = resolveChatLimits({ maxToolInputBytes: 10 });
    expect(checkSize("maxToolInputBytes", "short", limits, "The input")).toBeNull();
    const error = checkSize("maxToolInputBytes", "x".repeat(2_000), limits, "The input");
    expect(error).toBeInstanceOf(ChatLimitError);
    expect(error).toMatchObject({ limit: "maxToolInputBytes", actual: 2_002, maximum: 10, code: "LIMIT_EXCEEDED" });
    expect(error?.message).toBe("The input is too large (2.0 kB; the limit is 10 bytes)");
  });
});
