#!/usr/bin/env node
// The issue's targets, read from anchor-harness JSON lines (`node run-all.mjs anchor <our target> [raw-pipe] …`,
// several sittings appended to one file). A sitting is a run of consecutive lines with distinct targets.
//   node scripts/side-by-side.mjs FILE.jsonl [--ours anchor-target] [--raw raw-pipe] [--anchor anchor]
// Prints, per sitting and as the median over sittings, each target's ratio and whether it is met.
import { readFileSync } from "node:fs";
import { quantile, round } from "./lib/stats.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args.splice(index, 2)[1] : fallback;
};
const names = {
  ours: option("ours", "anchor-target"),
  raw: option("raw", "raw-pipe"),
  anchor: option("anchor", "anchor"),
};
if (args.length === 0) {
  console.error("usage: node scripts/side-by-side.mjs FILE.jsonl… [--ours NAME] [--raw NAME] [--anchor NAME]");
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

/** Each target: how to compute its ratio from one sitting, and the bound. */
const TARGETS = [
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
];

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
  const met = Number.isFinite(median) ? (target.ok(median) ? "met" : "missed") : "n/a";
  lines.push(`| ${target.id} | ${target.bound} | ${values.map(fmt).join(" | ")} | ${fmt(median)} | ${met} |`);
}
const woken = sittings.map((sitting) => get(sitting[names.ours], "results.w4.framesReceived.0"));
lines.push("", `W4 replay frames received by ${names.ours}, per sitting: ${woken.join(", ")}`);
console.log(lines.join("\n"));
