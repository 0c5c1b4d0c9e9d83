import { AGENT_USAGE_PART, usageChunk } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { selectAnswerUsage } from "./answer-usage.js";

describe("selectAnswerUsage", () => {
  it("reads what the turn spent, and its own share, from the answer's usage part", () => {
    const total = { inputTokens: 700, outputTokens: 79, runs: 2 };
    const own = { inputTokens: 400, outputTokens: 36, runs: 2 };
    const answer = { parts: [{ type: "text", text: "Here." }, usageChunk(total, own)] };
    expect(selectAnswerUsage(answer)).toEqual({ usage: total, own });
    expect(selectAnswerUsage({ parts: [usageChunk(total)] })).toEqual({ usage: total, own: null });
  });

  it("answers null for an answer without one, or a malformed one", () => {
    expect(selectAnswerUsage({ parts: [{ type: "text", text: "Here." }] })).toBeNull();
    expect(selectAnswerUsage({ parts: [{ type: AGENT_USAGE_PART, data: { inputTokens: "many" } }] })).toBeNull();
    expect(selectAnswerUsage({ parts: [null, 3] })).toBeNull();
  });
});
