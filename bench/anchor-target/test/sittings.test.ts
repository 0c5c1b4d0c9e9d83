// Issue 33's goals over several sittings (scripts/sittings.mjs): read again from each sitting's JSON lines, summed up
// per goal (median, range, met in how many) and per sitting (what it missed), and which sittings met every goal.
import { describe, expect, it } from "vitest";
import { GOALS } from "../scripts/lib/goals.mjs";
import { renderSittings, sittingFromLines, summarizeSittings } from "../scripts/lib/sittings.mjs";
import { repeat, type Sitting, sitting } from "./sitting-fixture.js";

const TARGETS = { ours: "anchor-target", raw: "raw-pipe", realChild: "real-child", anchor: "anchor" } as const;

/** A sitting as `pnpm bench` writes it: one JSON line per target; ours carries the goals it recorded. */
function lines(results: Sitting, recorded: { id: string; status: string }[] = []) {
  return (Object.keys(TARGETS) as (keyof typeof TARGETS)[]).map((key) => ({
    bench: "agents-as-tools",
    suite: "pnpm-bench",
    target: TARGETS[key],
    at: "2026-12-05T17:00:00.000Z",
    results: results[key],
    ...(key === "ours" ? { goals: recorded } : {}),
  }));
}

/** W1 at `ratio` of the anchor's 10 ms (ours' samples all the same, so the interquartile mean is exact). */
const w1At = (ratio: number) => sitting((r) => (r.ours["w1"] = { innerMsSamples: repeat(10 * ratio, 50) }));

describe("issue 33's goals over several sittings", () => {
  it("reads each sitting's lines by target and evaluates every goal with today's definitions", () => {
    const read = sittingFromLines("a", lines(sitting(), [{ id: "w1-anchor", status: "missed" }]));
    // The goals recorded with the lines are not trusted: the results are read again.
    expect(read.goals.map((goal) => goal.status)).toEqual(GOALS.map(() => "met"));
    expect(read.goals.find((goal) => goal.id === "w1-anchor")).toMatchObject({ value: 0.4 });
    expect(read.at).toBe("2026-12-05T17:00:00.000Z");
  });

  it("keeps a section the sitting left out (BENCH_ONLY) skipped, not 'not measured'", () => {
    const onlyW1 = sitting((r) => {
      delete r.ours["chat"];
      delete r.ours["fanout"];
    });
    const read = sittingFromLines(
      "w1 only",
      lines(onlyW1, [
        { id: "chat-overhead", status: "skipped" },
        { id: "fanout-raw", status: "skipped" },
      ]),
    );
    const status = (id: string) => read.goals.find((goal) => goal.id === id)?.status;
    expect([status("chat-overhead"), status("fanout-raw"), status("fanout-heap"), status("w1-anchor")]).toEqual([
      "skipped",
      "skipped",
      "skipped",
      "met",
    ]);
    // Left out without saying so (no recorded goals): what should have been measured was not.
    expect(sittingFromLines("silent", lines(onlyW1)).goals.find((goal) => goal.id === "chat-overhead")?.status).toBe(
      "not measured",
    );
  });

  it("says which file is not a sitting", () => {
    const ab = [{ bench: "agents-as-tools", suite: "ab", target: "anchor-target", results: {} }];
    expect(() => sittingFromLines("ab-run", ab)).toThrow(/ab-run: no line of ours/);
  });

  it("sums each goal up over the sittings: median, range, met in how many", () => {
    const sittings = [0.4, 0.5, 0.44, 0.56].map((ratio, index) => sittingFromLines(`s${index}`, lines(w1At(ratio))));
    const summary = summarizeSittings(sittings);
    const w1 = summary.figures.find((figure) => figure.id === "w1-anchor");
    expect(w1).toMatchObject({ goal: "≤ 0.45", measured: 4, met: 2, median: 0.47, min: 0.4, max: 0.56 });
    expect(w1?.readings.map((reading) => reading.status)).toEqual(["met", "missed", "met", "missed"]);
    expect(summary.perSitting.map((entry) => entry.missed)).toEqual([[], ["w1-anchor"], [], ["w1-anchor"]]);
    expect(summary.everyGoalMet).toEqual(["s0", "s2"]);
  });

  it("counts only a sitting that measured every goal as meeting them all", () => {
    const partial = sitting((r) => delete r.ours["chat"]);
    const sittings = [
      sittingFromLines("partial", lines(partial, [{ id: "chat-overhead", status: "skipped" }])),
      sittingFromLines("missing", lines(partial)),
    ];
    const summary = summarizeSittings(sittings);
    expect(summary.perSitting).toMatchObject([
      { sitting: "partial", measured: GOALS.length - 1, missed: [], complete: false },
      { sitting: "missing", measured: GOALS.length - 1, missed: [], complete: false },
    ]);
    expect(summary.everyGoalMet).toEqual([]);
    expect(summary.figures.find((figure) => figure.id === "chat-overhead")).toMatchObject({ measured: 0, met: 0 });
  });

  it("renders one line per goal and one per sitting", () => {
    const summary = summarizeSittings([
      sittingFromLines("quiet", lines(w1At(0.4))),
      sittingFromLines("busy", lines(w1At(0.5))),
    ]);
    const markdown = renderSittings(summary);
    expect(markdown).toContain(
      "| W1 awaited run, ours ÷ anchor (in-DO ms, interquartile means, run by run) | ≤ 0.45 | **0.45** | [0.4–0.5] | 1 of 2 |",
    );
    expect(markdown).toContain(`| busy | ${GOALS.length} of ${GOALS.length} | w1-anchor |`);
    expect(markdown).toContain("Every goal met in one sitting: 1 of 2 complete sittings (quiet).");
  });
});
