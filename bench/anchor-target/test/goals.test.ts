// Issue 33's goals as `pnpm bench --check` reads them from a sitting's results: ratios of values taken in the same
// rounds, each goal met or missed, and a figure that should have been measured but was not fails the check.
import { describe, expect, it } from "vitest";
import { evaluateGoals, goalsPass } from "../scripts/lib/goals.mjs";
import { interquartileMean, pairedRatios } from "../scripts/lib/stats.mjs";
import { repeat, sitting } from "./sitting-fixture.js";

type Goal = ReturnType<typeof evaluateGoals>[number];
const byId = (goals: Goal[], id: string): Goal | undefined => goals.find((goal) => goal.id === id);
const detailOf = (goal: Goal | undefined): string => (goal && "detail" in goal ? String(goal.detail) : "");

describe("issue 33's goals", () => {
  it("are all met by a sitting within every bound, and the check passes", () => {
    const goals = evaluateGoals(sitting());
    expect(goals.map((goal) => [goal.id, goal.status])).toEqual([
      ["w1-anchor", "met"],
      ["w3-anchor", "met"],
      ["w2-raw", "met"],
      ["w2-anchor", "met"],
      ["chat-overhead", "met"],
      ["fanout-raw", "met"],
      ["fanout-heap", "met"],
      ["fanout-scale", "met"],
      ["real-child-w1", "met"],
      ["first-chunk-stub", "met"],
      ["first-chunk-real", "met"],
    ]);
    expect(byId(goals, "w1-anchor")).toMatchObject({ value: 0.4 });
    expect(byId(goals, "real-child-w1")).toMatchObject({ value: 0.889 });
    expect(goalsPass(goals)).toBe(true);
  });

  it("say each side's own part of W1 above the raw pipe's new object (information, not a goal)", () => {
    // ours 4, the anchor 10, a new object's round trip 4 (the raw pipe's W1): 0 ÷ 6.
    expect(detailOf(byId(evaluateGoals(sitting()), "w1-anchor"))).toContain("round trip (4 ms): 0 ÷ 6 ms = 0");
    const fasterObject = sitting((r) => (r.raw["w1NewObject"] = { innerMsSamples: repeat(2, 10) }));
    expect(detailOf(byId(evaluateGoals(fasterObject), "w1-anchor"))).toContain("round trip (2 ms): 2 ÷ 8 ms = 0.25");
    const noRaw = sitting((r) => delete r.raw["w1NewObject"]);
    expect(detailOf(byId(evaluateGoals(noRaw), "w1-anchor"))).not.toContain("round trip");
  });

  it("take W2 and W3's ratio round by round, not as a ratio of medians", () => {
    // ours ÷ anchor per round: 100/300 and 50/200, median 0.29; the medians' ratio would be 75/250 = 0.3.
    const w3 = byId(evaluateGoals(sitting()), "w3-anchor");
    expect(w3).toMatchObject({ value: 0.29, min: 0.25, max: 0.33, status: "met" });
    const slower = byId(evaluateGoals(sitting((r) => (r.ours["w3"] = { innerWallMsSamples: [150, 60] }))), "w3-anchor");
    expect(slower).toMatchObject({ value: 0.4, status: "missed" });
  });

  it("fail the check when one ratio misses its goal", () => {
    // ÷ raw: 0.6 and 0.65; ÷ anchor: 5 and 5.2.
    const goals = evaluateGoals(
      sitting((r) => (r.ours["w2"] = { chunksPerSecSamples: [30_000, 26_000], firstChunkMs: { median: 12 } })),
    );
    expect(byId(goals, "w2-raw")).toMatchObject({ status: "missed", value: 0.63 });
    expect(byId(goals, "w2-anchor")?.status).toBe("met");
    expect(goalsPass(goals)).toBe(false);
  });

  it("fail the check when a figure was not measured: a sitting without the anchor", () => {
    const goals = evaluateGoals(
      sitting((r) => {
        r.anchor = {};
      }),
    );
    expect(byId(goals, "w1-anchor")).toMatchObject({ status: "not measured", missing: "the anchor's W1" });
    expect(byId(goals, "w2-anchor")?.status).toBe("not measured");
    expect(byId(goals, "w2-raw")?.status).toBe("met");
    expect(goalsPass(goals)).toBe(false);
  });

  it("skip the figures of sections a limited sitting (BENCH_ONLY) did not run", () => {
    const goals = evaluateGoals(
      sitting((r) => delete r.ours["fanout"]),
      (section) => section !== "fanout",
    );
    expect(goals.filter((goal) => goal.status === "skipped").map((goal) => goal.id)).toEqual([
      "fanout-raw",
      "fanout-heap",
      "fanout-scale",
    ]);
    expect(goalsPass(goals)).toBe(true);
  });
});

describe("the statistics behind them", () => {
  it("pairs values by round", () => {
    expect(pairedRatios([10, 40, 30], [20, 40, 10])).toMatchObject({ median: 1, min: 0.5, max: 3, n: 3 });
    expect(pairedRatios([10, Number.NaN], [20, 5])).toMatchObject({ median: 0.5, n: 1 });
  });

  it("means the middle half of whole-millisecond readings", () => {
    // A run of 6.4 ms read as whole ms: 6 six times in ten, 7 four times; an outlier of 50 at each end dropped.
    const readings = [50, 6, 7, 6, 6, 7, 6, 7, 6, 7, 6, 1];
    expect(interquartileMean(readings)).toBeCloseTo(6.33, 2);
    expect(interquartileMean([])).toBeNull();
  });
});
