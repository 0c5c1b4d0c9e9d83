#!/usr/bin/env node
// The child-only micro-measure (src/turn-cost.ts): each child's turn inside its own Durable Object, with no parent,
// no RPC and no client, for the stub child (anchor-target) and the real child (real-child: AgentToolChild +
// streamText over the scripted model). Per C: the turn's stream drained alone as the runner reads it, then whole
// runs (agentToolStart → NDJSON tail end) in the object. Both Workers run at once and their repetitions alternate.
//   node scripts/turn-cost.mjs          knobs: TURN_COST_REPS (7), TURN_COST_COUNTS (10,2000)
// stdout: one JSON line per target; stderr: a table (medians [min–max] over the repetitions).
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "./lib/build.mjs";
import { WorkerHost } from "./lib/host.mjs";
import { cell, describe, round } from "./lib/stats.mjs";
import { TARGETS } from "./lib/targets.mjs";

const OUT = fileURLToPath(new URL("../.bench-build/", import.meta.url));
const reps = Number(process.env["TURN_COST_REPS"] ?? 7);
const counts = (process.env["TURN_COST_COUNTS"] ?? "10,2000").split(",").map(Number);
/** Short turns are timed together (Date.now() in workerd has 1 ms resolution). @param {number} count */
const turnsFor = (count) => (count <= 100 ? 20 : 1);
const FIELDS = [
  ["drainMsPerTurn", "drain alone, ms/turn"],
  ["drainUsPerChunk", "drain alone, µs/chunk"],
  ["runMsPerTurn", "whole run in the object, ms/turn"],
  ["startAnsweredMsPerTurn", "agentToolStart answered after, ms"],
  ["rowsWrittenPerTurn", "SQL rows written per run"],
];

const loadAtStart = loadavg()[0];
/**
 * @typedef {{ name: string, host: WorkerHost, samples: Record<string, number>[][],
 *   results: Record<string, Record<string, unknown>> }} Subject
 */
/** @type {Subject[]} */
const subjects = [];
for (const target of [TARGETS.ours, TARGETS.realChild]) {
  const scriptPath = await bundleWorker(target.entry, `${OUT}${target.name}/worker.js`);
  const host = await WorkerHost.start({ ...target, scriptPath });
  subjects.push({ name: target.name, host, samples: counts.map(() => []), results: {} });
}
try {
  for (const [index, count] of counts.entries()) {
    for (let rep = -1; rep < reps; rep += 1) {
      for (const subject of subjects) {
        const { body } = await subject.host.call("turn-cost", { parent: "turn-cost", count, turns: turnsFor(count) });
        const drainUsPerChunk = (body.drainMsPerTurn * 1000) / body.chunksPerTurn;
        if (rep >= 0) subject.samples[index]?.push({ ...body, drainUsPerChunk });
      }
    }
  }
} finally {
  for (const subject of subjects) await subject.host.dispose();
}
for (const subject of subjects) {
  for (const [index, count] of counts.entries()) {
    const samples = subject.samples[index] ?? [];
    /** @type {Record<string, unknown>} */
    const figures = { chunksPerTurn: samples[0]?.["chunksPerTurn"], turnsPerSample: turnsFor(count) };
    for (const [field = ""] of FIELDS) figures[field] = describe(samples.map((sample) => sample[field] ?? Number.NaN));
    subject.results[`c${count}`] = figures;
  }
}

const load = { start: round(loadAtStart), end: round(loadavg()[0]) };
const at = new Date().toISOString();
for (const { name, results } of subjects) {
  process.stdout.write(
    `${JSON.stringify({ suite: "turn-cost", target: name, at, reps, loadAverage1m: load, results })}\n`,
  );
}
const figure = (subject, field) =>
  counts.map((count) => cell(/** @type {any} */ (subject.results[`c${count}`])?.[field])).join(" / ");
const rows = [
  `| figure | ${subjects.map((subject) => `${subject.name}, C=${counts.join(" / ")}`).join(" | ")} |`,
  `|---|${subjects.map(() => "---").join("|")}|`,
  ...FIELDS.map(([field, label]) => `| ${label} | ${subjects.map((subject) => figure(subject, field)).join(" | ")} |`),
  `| chunks per turn | ${subjects.map((subject) => figure(subject, "chunksPerTurn")).join(" | ")} |`,
];
console.error(`${rows.join("\n")}\n\n(${reps} repetitions; ${at}; load ${load.start} → ${load.end})`);
