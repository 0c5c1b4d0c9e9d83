// Issue 33's goals over several `pnpm bench` sittings: each figure's value in every sitting that measured it, its
// median and range, how many sittings met it, and which sittings met every goal. One sitting's ratios move with the
// machine (the platform's round trip to a new object alone moves W1's by ±0.05); this says where a figure sits.
import { evaluateGoals, GOALS } from "./goals.mjs";
import { quantile, round } from "./stats.mjs";

/** The harness target names `pnpm bench` writes, by the key its goals read them under. */
const TARGET_KEYS = { "anchor-target": "ours", "raw-pipe": "raw", "real-child": "realChild", anchor: "anchor" };

/**
 * One sitting's goals, evaluated again with today's definitions from its JSON lines (one per target), so that sittings
 * recorded before a goal's reading changed are read alike. A section the sitting left out (`BENCH_ONLY`, as its own
 * goals recorded it) stays `skipped`.
 * @param {string} name @param {any[]} lines the sitting's parsed JSON lines
 */
export function sittingFromLines(name, lines) {
  /** @type {{ ours?: any, raw?: any, realChild?: any, anchor?: any }} */
  const results = {};
  let recorded = /** @type {{ id: string, status: string }[]} */ ([]);
  let at = null;
  for (const line of lines) {
    if (line?.suite !== "pnpm-bench" || !Object.hasOwn(TARGET_KEYS, line.target)) continue;
    const key = TARGET_KEYS[/** @type {keyof typeof TARGET_KEYS} */ (line.target)];
    results[key] = line.results;
    if (key === "ours") {
      recorded = Array.isArray(line.goals) ? line.goals : [];
      at = line.at ?? null;
    }
  }
  if (results.ours === undefined)
    throw new Error(`${name}: no line of ours (target "anchor-target", suite "pnpm-bench")`);
  const skipped = new Set(
    GOALS.filter((goal) => recorded.some((entry) => entry.id === goal.id && entry.status === "skipped")).map(
      (goal) => goal.section,
    ),
  );
  return { name, at, goals: evaluateGoals(results, (section) => !skipped.has(section)) };
}

/**
 * Every goal across `sittings`: the values where measured, their median and range, met in how many.
 * @param {{ name: string, at?: string | null, goals: ReturnType<typeof evaluateGoals> }[]} sittings
 */
export function summarizeSittings(sittings) {
  const figures = GOALS.map((goal) => {
    const readings = sittings.flatMap((sitting) => {
      const evaluated = sitting.goals.find((entry) => entry.id === goal.id);
      if (evaluated === undefined || !("value" in evaluated) || typeof evaluated.value !== "number") return [];
      return [{ sitting: sitting.name, value: evaluated.value, status: evaluated.status }];
    });
    const values = readings.map((reading) => reading.value);
    return {
      id: goal.id,
      figure: goal.figure,
      goal: goal.atMost !== undefined ? `≤ ${goal.atMost}` : `≥ ${goal.atLeast}`,
      measured: readings.length,
      met: readings.filter((reading) => reading.status === "met").length,
      median: round(quantile(values, 0.5), 3),
      min: values.length === 0 ? null : Math.min(...values),
      max: values.length === 0 ? null : Math.max(...values),
      readings,
    };
  });
  const perSitting = sittings.map((sitting) => {
    const measured = sitting.goals.filter((entry) => entry.status === "met" || entry.status === "missed");
    return {
      sitting: sitting.name,
      at: sitting.at ?? null,
      measured: measured.length,
      missed: measured.filter((entry) => entry.status === "missed").map((entry) => entry.id),
      complete: measured.length === GOALS.length,
    };
  });
  return {
    figures,
    perSitting,
    everyGoalMet: perSitting
      .filter((entry) => entry.complete && entry.missed.length === 0)
      .map((entry) => entry.sitting),
  };
}

/** The summary as markdown: one line per goal, then one per sitting. @param {ReturnType<typeof summarizeSittings>} summary */
export function renderSittings(summary) {
  const complete = summary.perSitting.filter((entry) => entry.complete).length;
  return [
    "| issue 33: figure | goal | median | [min–max] | met in |",
    "|---|---|---|---|---|",
    ...summary.figures.map((figure) =>
      figure.measured === 0
        ? `| ${figure.figure} | ${figure.goal} | — | | 0 of 0 |`
        : `| ${figure.figure} | ${figure.goal} | **${round(figure.median, 2)}** | [${round(figure.min, 2)}–${round(figure.max, 2)}] | ${figure.met} of ${figure.measured} |`,
    ),
    "",
    "| sitting | goals measured | missed |",
    "|---|---|---|",
    ...summary.perSitting.map(
      (entry) => `| ${entry.sitting} | ${entry.measured} of ${GOALS.length} | ${entry.missed.join(", ") || "none"} |`,
    ),
    "",
    `Every goal met in one sitting: ${summary.everyGoalMet.length} of ${complete} complete sittings${summary.everyGoalMet.length > 0 ? ` (${summary.everyGoalMet.join(", ")})` : ""}.`,
  ].join("\n");
}
