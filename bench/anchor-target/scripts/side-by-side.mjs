#!/usr/bin/env node
// The issue's targets, read from anchor-harness JSON lines (`node run-all.mjs anchor <our target> [raw-pipe] …`,
// several sittings appended to one file). A sitting is a run of consecutive lines with distinct targets.
//   node scripts/side-by-side.mjs FILE.jsonl [--ours anchor-target] [--raw raw-pipe] [--anchor anchor]
//   node scripts/side-by-side.mjs FILE.jsonl --real-child [--ours real-child] [--anchor anchor-think]
// Prints, per sitting and as the median over sittings, each target's ratio and whether it is met. `--real-child`
// reads the real child's targets (issue 16: our streamText child against the anchor's Think child).
import { readFileSync } from "node:fs";
import { quantile, round } from "./lib/stats.mjs";

const args = process.argv.slice(2);
const flag = (name) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 && args.splice(index, 1).length > 0;
};
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args.splice(index, 2)[1] : fallback;
};
const realChild = flag("real-child");
const names = realChild
  ? { ours: option("ours", "real-child"), raw: "", anchor: option("anchor", "anchor-think") }
  : { ours: option("ours", "anchor-target"), raw: option("raw", "raw-pipe"), anchor: option("anchor", "anchor") };
if (args.length === 0) {
  console.error(
    "usage: node scripts/side-by-side.mjs FILE.jsonl… [--ours NAME] [--raw NAME] [--anchor NAME] | [--real-child]",
  );
  process.exit(2);
}

/** @type {Record<string, any>[]} */
const sittings = [];
let current = {};
for (const file of args) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    const report = JSON.parse(line);
    if (!report.target) continue;
    if (current[report.target]) {
      sittings.push(current);
      current = {};
    }
    current[report.target] = report;
  }
}
if (Object.keys(current).length > 0) sittings.push(current);

const get = (object, path) => path.split(".").reduce((value, key) => value?.[key], object);
const rows5 = (report) =>
  get(report, "results.w5.parent.rowsWritten") +
  (get(report, "results.w5.child.rowsWritten") - get(report, "results.w5.childEmpty.rowsWritten"));

/** Storage one run costs: the parent's growth per run (amortized) + the child's database minus an unused one's. */
const bytes5 = (report) =>
  get(report, "results.w5.parent.growthBytesPerRun") +
  (get(report, "results.w5.child.databaseSize") - get(report, "results.w5.childEmpty.databaseSize"));

/** The stub child's targets (agent-tools' machinery against the anchor's stub and the raw pipe). */
const STUB_TARGETS = [
  {
    id: "W1 awaited run C=10, in-DO ms: ours ÷ anchor",
    bound: "≤ 0.5",
    ok: (r) => r <= 0.5,
    ratio: (s) => get(s.ours, "results.w1.innerMs.median") / get(s.anchor, "results.w1.innerMs.median"),
  },
  {
    id: "W2 chunk frames/s: ours ÷ anchor",
    bound: "≥ 2",
    ok: (r) => r >= 2,
    ratio: (s) => get(s.ours, "results.w2.chunksPerSec.median") / get(s.anchor, "results.w2.chunksPerSec.median"),
  },
  {
    id: "W2 chunk frames/s: ours ÷ raw pipe",
    bound: "≥ 0.67",
    ok: (r) => r >= 0.67,
    ratio: (s) => get(s.ours, "results.w2.chunksPerSec.median") / get(s.raw, "results.w2.chunksPerSec.median"),
  },
  {
    id: "W3 20×C=50, in-DO ms: ours ÷ anchor",
    bound: "≤ 0.5",
    ok: (r) => r <= 0.5,
    ratio: (s) => get(s.ours, "results.w3.innerWallMs.median") / get(s.anchor, "results.w3.innerWallMs.median"),
  },
  {
    id: "W4 replay warm: anchor ms ÷ ours ms (times faster)",
    bound: "≥ 3",
    ok: (r) => r >= 3,
    ratio: (s) => get(s.anchor, "results.w4.connectToAllMs.median") / get(s.ours, "results.w4.connectToAllMs.median"),
  },
  {
    id: "W4 replay warm: ours ÷ raw pipe",
    bound: "≤ 1.5",
    ok: (r) => r <= 1.5,
    ratio: (s) => get(s.ours, "results.w4.connectToAllMs.median") / get(s.raw, "results.w4.connectToAllMs.median"),
  },
  {
    id: "W5 C=100 rows written, parent + child: ours ÷ anchor",
    bound: "≤ 0.5",
    ok: (r) => r <= 0.5,
    ratio: (s) => rows5(s.ours) / rows5(s.anchor),
  },
  {
    id: "W5 C=100 bytes per run, parent + child: ours ÷ anchor (issue 28)",
    bound: "≤ 1",
    ok: (r) => r <= 1,
    ratio: (s) => bytes5(s.ours) / bytes5(s.anchor),
  },
];

/** The real child's targets (issue 16): our streamText child against the anchor's Think child, the same script. */
const REAL_CHILD_TARGETS = [
  {
    id: "W1 awaited run C=10, in-DO ms: ours ÷ anchor",
    bound: "≤ 0.33",
    ok: (r) => r <= 0.33,
    ratio: (s) => get(s.ours, "results.w1.innerMs.median") / get(s.anchor, "results.w1.innerMs.median"),
  },
  {
    id: "W2 chunk frames/s (dispatch → terminal): ours ÷ anchor",
    bound: "≥ 3",
    ok: (r) => r >= 3,
    ratio: (s) => get(s.ours, "results.w2.chunksPerSec.median") / get(s.anchor, "results.w2.chunksPerSec.median"),
  },
  {
    id: "W3 20×C=50, in-DO wall ms: ours ÷ anchor",
    bound: "none",
    ok: null,
    ratio: (s) => get(s.ours, "results.w3.innerWallMs.median") / get(s.anchor, "results.w3.innerWallMs.median"),
  },
  {
    id: "W2 dispatch → first chunk frame: ours ÷ anchor",
    bound: "context",
    ok: null,
    ratio: (s) => get(s.ours, "results.w2.firstChunkMs.median") / get(s.anchor, "results.w2.firstChunkMs.median"),
  },
];

const TARGETS = realChild ? REAL_CHILD_TARGETS : STUB_TARGETS;
const fmt = (value) => (Number.isFinite(value) ? String(round(value, 2)) : "n/a");
const lines = [
  `| target (${names.ours} vs ${names.anchor}${names.raw ? `, ${names.raw}` : ""}) | bound | ${sittings.map((_, index) => `sitting ${index + 1}`).join(" | ")} | median | met? |`,
  `|---|---|${sittings.map(() => "---").join("|")}|---|---|`,
];
for (const target of TARGETS) {
  const values = sittings.map((sitting) => {
    const view = { ours: sitting[names.ours], anchor: sitting[names.anchor], raw: sitting[names.raw] };
    if (!view.ours || !view.anchor || (target.id.includes("raw") && !view.raw)) return Number.NaN;
    return target.ratio(view);
  });
  const finite = values.filter((value) => Number.isFinite(value));
  const median = finite.length > 0 ? quantile(finite, 0.5) : Number.NaN;
  const met = !target.ok ? "" : Number.isFinite(median) ? (target.ok(median) ? "met" : "missed") : "n/a";
  lines.push(`| ${target.id} | ${target.bound} | ${values.map(fmt).join(" | ")} | ${fmt(median)} | ${met} |`);
}
if (realChild) {
  // The figures behind the ratios, per sitting: both targets' medians, and what their clients received.
  const figures = [
    ["W1 in-DO ms", "results.w1.innerMs.median"],
    ["W2 chunk frames/s", "results.w2.chunksPerSec.median"],
    ["W2 dispatch → terminal ms", "results.w2.dispatchToTerminalMs.median"],
    ["W2 dispatch → first chunk ms", "results.w2.firstChunkMs.median"],
    ["W2 rate first → last chunk, frames/s", "results.w2.streamChunksPerSec.median"],
    ["W2 chunk frames received", "results.w2.chunkFramesReceived.0"],
    ["W3 in-DO wall ms", "results.w3.innerWallMs.median"],
  ];
  lines.push(
    "",
    `| figure (${names.ours} · ${names.anchor}) | ${sittings.map((_, i) => `sitting ${i + 1}`).join(" | ")} |`,
  );
  lines.push(`|---|${sittings.map(() => "---").join("|")}|`);
  for (const [label, path] of figures) {
    const cells = sittings.map(
      (sitting) => `${fmt(get(sitting[names.ours], path))} · ${fmt(get(sitting[names.anchor], path))}`,
    );
    lines.push(`| ${label} | ${cells.join(" | ")} |`);
  }
} else {
  const woken = sittings.map((sitting) => get(sitting[names.ours], "results.w4.framesReceived.0"));
  lines.push("", `W4 replay frames received by ${names.ours}, per sitting: ${woken.join(", ")}`);
}
console.log(lines.join("\n"));
