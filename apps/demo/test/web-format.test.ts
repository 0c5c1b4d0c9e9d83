import type { AgentToolRunState } from "@agent-tools/react";
import { describe, expect, it } from "vitest";
import {
  describeInput,
  describeInputPreview,
  describeUsage,
  describeValue,
  resultText,
  withoutRunIds,
} from "../web/src/format.js";

// The demo page's wording of values: inputs and outputs as a person reads them, not as JSON; no raw run ids.

describe("describeInput / describeValue", () => {
  it("shows one field as its value and several as name: value pairs", () => {
    expect(describeInput({ topic: "research cats" })).toBe("research cats");
    expect(describeInput({ batches: 5, dryRun: false })).toBe("batches: 5 · dryRun: false");
    expect(describeInputPreview('{"topic":"cats"}')).toBe("cats");
    expect(describeInputPreview("plain words")).toBe("plain words");
    expect(describeValue({ query: "cats", facts: ["a", "b"] })).toBe("query: cats · facts: a; b");
    expect(describeValue("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
  });
});

describe("withoutRunIds", () => {
  it("drops a background run's raw id from a text", () => {
    const runId = "background:call-4-a7450944";
    expect(withoutRunIds(`The import is running in the background (${runId}). I will tell you.`, [runId])).toBe(
      "The import is running in the background. I will tell you.",
    );
    expect(withoutRunIds(`Run ${runId} finished`, [runId])).toBe("Run the run finished");
  });
});

describe("resultText of a cancelled run", () => {
  const cancelled = (error: string | null) => ({ status: "aborted", error }) as unknown as AgentToolRunState;

  it("says who cancelled: this page, the reply's stop, or the run's own reason when it was cancelled elsewhere", () => {
    expect(resultText(cancelled("Cancelled by the user"), "you")).toBe("Cancelled by you");
    expect(resultText(cancelled("Stopped by the user"), "reply-stopped")).toBe("Stopped");
    expect(resultText(cancelled("Stopped by the user"), "reply-stopped-by-you")).toBe("Stopped by you");
    expect(resultText(cancelled("Cancelled by the user"), "elsewhere")).toBe("Cancelled by the user");
    expect(resultText(cancelled("Cancelled by the parent"))).toBe("Cancelled by the parent");
    expect(resultText(cancelled(null), "elsewhere")).toBe("Cancelled");
  });
});

describe("describeUsage", () => {
  it("says what a run or a turn spent, short and in words; nothing when nothing was counted", () => {
    expect(describeUsage({ inputTokens: 1_150, outputTokens: 84, runs: 3 })).toEqual({
      short: "1.2k tokens · 3 runs",
      long: "1,150 input and 84 output tokens; 3 runs dispatched",
      own: null,
    });
    // With the turn's own share: its tokens, short and in words.
    expect(
      describeUsage({ inputTokens: 700, outputTokens: 79, runs: 2 }, { inputTokens: 400, outputTokens: 36, runs: 2 }),
    ).toEqual({
      short: "779 tokens · 2 runs",
      long: "700 input and 79 output tokens; 2 runs dispatched; its own model calls: 400 input and 36 output tokens",
      own: "436",
    });
    expect(describeUsage({ inputTokens: 900, outputTokens: 50, runs: 0 })?.short).toBe("950 tokens");
    expect(describeUsage({ inputTokens: 0, outputTokens: 0, runs: 1 })?.short).toBe("0 tokens · 1 run");
    expect(describeUsage({ inputTokens: 40_000, outputTokens: 2_000, runs: 2, cost: 0.12 })?.short).toBe(
      "42k tokens · 2 runs · cost 0.12",
    );
    expect(describeUsage({ inputTokens: 0, outputTokens: 0, runs: 0 })).toBeNull();
    expect(describeUsage(null)).toBeNull();
  });
});
