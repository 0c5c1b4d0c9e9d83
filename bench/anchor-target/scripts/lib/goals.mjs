// Issue 33's table: each figure with its goal, computed from one `pnpm bench` sitting (the ratios from values taken
// run by run in the same rounds, scripts/lib/interleaved.mjs), printed, and checked (`pnpm bench --check`).
import { interquartileMean, pairedRatios, round } from "./stats.mjs";

const get = (object, path) => path.split(".").reduce((value, key) => value?.[key], object);
const number = (value) => (typeof value === "number" && Number.isFinite(value) ? value : null);
const blockSize = 10;

/**
 * Ratios of interquartile means over consecutive blocks of `blockSize` rounds: the spread of a W1 ratio within the
 * sitting (each block is a sitting of its own, taken at one moment's load).
 * @param {number[]} a @param {number[]} b
 */
function blockRatios(a, b) {
  const ratios = [];
  for (let start = 0; start + blockSize <= Math.min(a.length, b.length); start += blockSize) {
    const x = interquartileMean(a.slice(start, start + blockSize));
    const y = interquartileMean(b.slice(start, start + blockSize));
    if (x !== null && y) ratios.push(x / y);
  }
  return ratios;
}

/** @typedef {{ value: number, min?: number | null, max?: number | null, detail: string } | { missing: string }} Reading */

/**
 * The issue's figures. `at most` / `at least` is the goal; `read` returns the figure from a sitting's results, or
 * what is missing. `section`: the `BENCH_ONLY` name whose sections measure it.
 * @type {{ id: string, figure: string, section: string, atMost?: number, atLeast?: number, read: (results: any) => Reading }[]}
 */
/**
 * Both sides' own part of an awaited run, above the platform's round trip to a new object (the raw pipe's W1, taken in
 * the same rounds): the round trip moves between sittings by more than either side's own part and both pay it whole,
 * so it says why the ratio moves. Not a goal.
 * @param {number} oursMs @param {number} anchorMs @param {any} raw
 */
function ownParts(oursMs, anchorMs, raw) {
  const samples = get(raw, "w1NewObject.innerMsSamples");
  if (!samples) return "";
  const platform = /** @type {number} */ (interquartileMean(samples));
  const own = (oursMs - platform) / (anchorMs - platform);
  return `; above a new object's round trip (${round(platform)} ms): ${round(oursMs - platform)} ÷ ${round(anchorMs - platform)} ms = ${round(own)}`;
}

export const GOALS = [
  {
    id: "w1-anchor",
    figure: "W1 awaited run, ours ÷ anchor (in-DO ms, interquartile means, run by run)",
    section: "w1",
    atMost: 0.45,
    read: ({ ours, anchor, raw }) => {
      const a = get(ours, "w1.innerMsSamples");
      const b = get(anchor, "w1.innerMsSamples");
      if (!a || !b) return { missing: b ? "ours' W1" : "the anchor's W1" };
      const oursMs = /** @type {number} */ (interquartileMean(a));
      const anchorMs = /** @type {number} */ (interquartileMean(b));
      const blocks = blockRatios(a, b);
      return {
        value: oursMs / anchorMs,
        ...(blocks.length > 1 ? { min: Math.min(...blocks), max: Math.max(...blocks) } : {}),
        detail: `${round(oursMs)} ÷ ${round(anchorMs)} ms; [range] over blocks of ${blockSize} rounds${ownParts(oursMs, anchorMs, raw)}`,
      };
    },
  },
  {
    id: "w3-anchor",
    figure: "W3 20 concurrent runs, ours ÷ anchor (in-DO wall ms, paired rounds)",
    section: "w3",
    atMost: 0.35,
    read: ({ ours, anchor }) => paired(ours, anchor, "w3.innerWallMsSamples", "ms", "the anchor's W3"),
  },
  {
    id: "w2-raw",
    figure: "W2 2 000 chunks, frames/s ÷ raw pipe (paired rounds)",
    section: "w2",
    atLeast: 0.67,
    read: ({ ours, raw }) => paired(ours, raw, "w2.chunksPerSecSamples", "frames/s", "the raw pipe's W2"),
  },
  {
    id: "w2-anchor",
    figure: "W2 frames/s ÷ anchor (paired rounds)",
    section: "w2",
    atLeast: 5,
    read: ({ ours, anchor }) => paired(ours, anchor, "w2.chunksPerSecSamples", "frames/s", "the anchor's W2"),
  },
  {
    id: "chat-overhead",
    figure:
      "one awaited child inside a chat turn: (agent-tool turn − plain-tool turn) − a new object's round trip, ms (interquartile means)",
    section: "chat",
    atMost: 2,
    read: ({ ours }) => {
      const means = get(ours, "chat.interquartileMeans");
      if (!means) return { missing: "the chat turns" };
      return {
        value: means.overheadBeyondNewObjectMs,
        detail: `${means.agentToolTurnMs} − ${means.plainToolTurnMs} − ${means.newDurableObjectRoundTripMs} ms`,
      };
    },
  },
  {
    id: "fanout-raw",
    figure: "fan-out of 1 000 awaited children: the turn ÷ the raw pipe's 1 000 new objects",
    section: "fanout",
    atMost: 2,
    read: (results) =>
      fanOutFigure(results, 1000, (size) => {
        const rounds = size.rounds.map((round) => round.turnVersusRaw);
        return {
          value: size.turnVersusRaw,
          min: Math.min(...rounds),
          max: Math.max(...rounds),
          detail: `${size.turnMs} ÷ ${size.rawChildrenMs} ms`,
        };
      }),
  },
  {
    id: "fanout-heap",
    figure: "fan-out of 1 000: the isolate's live heap, peak growth ÷ the raw pipe's",
    section: "fanout",
    atMost: 2,
    read: (results) =>
      fanOutFigure(results, 1000, (size) => ({
        value: size.heapVersusRaw,
        detail: `+${size.heapPeakGrowthMiB} ÷ +${size.rawHeapPeakGrowthMiB} MiB, live`,
      })),
  },
  {
    id: "fanout-scale",
    figure: "fan-out: the turn of 1 000 ÷ the turn of 100",
    section: "fanout",
    atMost: 11,
    read: (results) => {
      const small = (get(results.ours, "fanout.sizes") ?? []).find((size) => size.calls === 100);
      if (!small) return { missing: "the fan-out of 100" };
      return fanOutFigure(results, 1000, (size) => ({
        value: size.turnMs / small.turnMs,
        detail: `${size.turnMs} ÷ ${small.turnMs} ms`,
      }));
    },
  },
  {
    id: "real-child-w1",
    figure:
      "real child W1: the floor's time (streamText alone + a new object's round trip) ÷ ours (interquartile means)",
    section: "w1",
    atLeast: 0.8,
    read: ({ realChild, raw }) => {
      const ours = interquartileMean(get(realChild, "w1.innerMsSamples") ?? []);
      const streamText = interquartileMean(get(raw, "w1StreamText.innerMsSamples") ?? []);
      const newObject = interquartileMean(get(raw, "w1NewObject.innerMsSamples") ?? []);
      if (ours === null || streamText === null || newObject === null) return { missing: "the real child's W1 rounds" };
      return {
        value: (streamText + newObject) / ours,
        detail: `(${round(streamText)} + ${round(newObject)}) ÷ ${round(ours)} ms`,
      };
    },
  },
  {
    id: "first-chunk-stub",
    figure: "first child chunk at the client, stub: ÷ the raw pipe's first frame (keep: today 9–14 ms)",
    section: "w2",
    atMost: 2,
    read: ({ ours, raw }) => {
      const a = number(get(ours, "w2.firstChunkMs.median"));
      const b = number(get(raw, "w2.firstChunkMs.median"));
      if (a === null || b === null) return { missing: "W2's first chunks" };
      return { value: a / b, detail: `${a} ÷ ${b} ms` };
    },
  },
  {
    id: "first-chunk-real",
    figure: "first child chunk at the client, real child: ÷ its last chunk (keep: today 16–31 ms, as the model yields)",
    section: "w2",
    atMost: 0.1,
    read: ({ realChild }) => {
      const first = number(get(realChild, "w2.firstChunkMs.median"));
      const last = number(get(realChild, "w2.lastChunkMs.median"));
      if (first === null || last === null) return { missing: "the real child's W2" };
      return { value: first / last, detail: `${first} ÷ ${last} ms` };
    },
  },
];

/** Median [min–max] of the rounds' ratios a[i] ÷ b[i] of the samples at `path`. */
function paired(a, b, path, unit, whatB) {
  const x = get(a, path);
  const y = get(b, path);
  if (!x || !y) return { missing: x ? whatB : `ours' ${path.split(".")[0].toUpperCase()}` };
  const ratios = pairedRatios(x, y);
  if (ratios.median === null) return { missing: `${path}: no rounds` };
  return {
    value: ratios.median,
    min: ratios.min,
    max: ratios.max,
    detail: `medians ${get(a, path.replace(/Samples$/, ".median"))} ÷ ${get(b, path.replace(/Samples$/, ".median"))} ${unit}, ${ratios.n} rounds`,
  };
}

function fanOutFigure(results, calls, read) {
  const size = (get(results.ours, "fanout.sizes") ?? []).find((entry) => entry.calls === calls);
  return size ? read(size) : { missing: `the fan-out of ${calls}` };
}

/**
 * Every goal read from a sitting: met, missed, or not measured (`skipped` when the sitting was limited with
 * BENCH_ONLY to sections that do not measure it).
 * @param {any} results @param {(section: string) => boolean} [ran] whether the sitting ran a section
 */
export function evaluateGoals(results, ran = () => true) {
  return GOALS.map((goal) => {
    const reading = goal.read(results);
    const bound = goal.atMost !== undefined ? `≤ ${goal.atMost}` : `≥ ${goal.atLeast}`;
    const base = { id: goal.id, figure: goal.figure, goal: bound };
    if ("missing" in reading || !Number.isFinite(reading.value)) {
      const missing = "missing" in reading ? reading.missing : "not a number";
      return { ...base, status: ran(goal.section) ? "not measured" : "skipped", missing };
    }
    const met =
      goal.atMost !== undefined ? reading.value <= goal.atMost : reading.value >= /** @type {number} */ (goal.atLeast);
    return {
      ...base,
      status: met ? "met" : "missed",
      value: round(reading.value, 3),
      ...(reading.min !== undefined ? { min: round(reading.min, 3), max: round(reading.max, 3) } : {}),
      detail: reading.detail,
    };
  });
}

/** `--check` passes when nothing measured missed and nothing that should have been measured was not. */
export function goalsPass(evaluated) {
  return evaluated.every((goal) => goal.status === "met" || goal.status === "skipped");
}

/** The issue's table, as markdown. */
export function renderGoals(evaluated) {
  const value = (goal) =>
    goal.value === undefined
      ? `— (${goal.missing})`
      : `**${round(goal.value, 2)}**${goal.min !== undefined ? ` [${round(goal.min, 2)}–${round(goal.max, 2)}]` : ""}`;
  return [
    "| issue 33: figure | this sitting | from | goal | |",
    "|---|---|---|---|---|",
    ...evaluated.map(
      (goal) => `| ${goal.figure} | ${value(goal)} | ${goal.detail ?? ""} | ${goal.goal} | ${goal.status} |`,
    ),
  ].join("\n");
}
