#!/usr/bin/env node
import { rm } from "node:fs/promises";
// `pnpm bench`: agent-tools benchmarks in workerd through Miniflare, on our anchor-harness target
// (bench/anchor-target/worker.ts), on the raw pipe (bench/anchor-target/raw-pipe/worker.ts), and, for W1–W3 and W5
// (the figures that depend on the child), on the real child (bench/anchor-target/real-child/worker.ts).
//
// stdout: JSON lines, one per target ({ target, results, … }; W1–W5 keys as the anchor harness names them, so its
// summarize.mjs reads them too). stderr: progress and a table. Knobs: see README.md ("Knobs").
import { cpus, loadavg, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "./lib/build.mjs";
import { WorkerHost } from "./lib/host.mjs";
import { describe, round } from "./lib/stats.mjs";
import { renderTable } from "./lib/table.mjs";
import { TARGETS } from "./lib/targets.mjs";
import * as workloads from "./lib/workloads.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OUT = here("../.bench-build/");
const PERSIST = here("../.mf-persist");

const knob = (name, fallback) => {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) ? value : fallback;
};
const P = {
  w1Runs: knob("BENCH_R", 50),
  w1Chunks: knob("BENCH_W1_C", 10),
  w1Warmup: 3,
  w2Chunks: knob("BENCH_W2_C", 2000),
  w3Runs: knob("BENCH_W3_RUNS", 20),
  w3Chunks: knob("BENCH_W3_C", 50),
  w4Runs: knob("BENCH_W4_K", 50),
  w4Chunks: knob("BENCH_W4_C", 50),
  w5Chunks: knob("BENCH_W5_C", 100),
  w5GrowthRuns: knob("BENCH_W5_GROWTH", 100),
  reps: knob("BENCH_REPS", 5),
  coldReps: knob("BENCH_COLD_REPS", 2),
  reconcileLargeRuns: knob("BENCH_RECONCILE_LARGE", 10_000),
  reconcileDueInMs: knob("BENCH_RECONCILE_DUE_IN_MS", 4000),
  memoryRuns: knob("BENCH_MEMORY_RUNS", 10_000),
  memoryChunks: knob("BENCH_MEMORY_C", 10),
  memoryReps: knob("BENCH_MEMORY_REPS", 2),
  stopReps: knob("BENCH_STOP_REPS", 5),
  stopTop: knob("BENCH_STOP_TOP", 2),
  stopBranches: knob("BENCH_STOP_BRANCHES", 4),
  stopLeaves: knob("BENCH_STOP_LEAVES", 5),
  retentionRuns: knob("BENCH_RETENTION_RUNS", 10_000),
  retentionMaxRuns: knob("BENCH_RETENTION_MAX_RUNS", 100),
};
const verbose = process.env["BENCH_VERBOSE"] === "1";
const only = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter(Boolean));
const wanted = (name) => only.size === 0 || only.has(name);
const log = (...args) => console.error(...args);

const results = { ours: {}, raw: {}, realChild: {} };
const errors = { ours: {}, raw: {}, realChild: {} };

async function section(target, name, run) {
  if (!wanted(name)) return;
  const started = performance.now();
  try {
    results[target][name] = await run();
  } catch (error) {
    errors[target][name] = error instanceof Error ? error.message : String(error);
    log(`${TARGETS[target].name} ${name}: FAILED ${errors[target][name]}`);
  }
  log(`${TARGETS[target].name} ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const startedAll = performance.now();
const loadAtStart = loadavg();
await rm(PERSIST, { recursive: true, force: true });
for (const target of Object.values(TARGETS)) {
  target.scriptPath = await bundleWorker(target.entry, `${OUT}${target.name}/worker.js`);
}
const start = (key, persist) =>
  WorkerHost.start({ ...TARGETS[key], scriptPath: TARGETS[key].scriptPath, persist, verbose });

// ── warm workloads: the targets up at once, repetitions of W2 and W4 interleaved ──────────────────────────
const ours = await start("ours");
const raw = await start("raw");
const realChild = await start("realChild");
const bootMs = { ours: round(ours.bootMs), raw: round(raw.bootMs), realChild: round(realChild.bootMs) };
try {
  await section("ours", "baseline", () => workloads.baseline(ours));
  await section("raw", "baseline", () => workloads.baseline(raw));
  await section("ours", "w1", () => workloads.w1(ours, P));
  await section("realChild", "w1", () => workloads.w1(realChild, P));
  // W2 with the client offering permessage-deflate (as the harness's does), then without: what the servers can
  // send, not zlib's cost (our servers decline it, so both should match).
  for (const [name, deflate] of /** @type {const} */ ([
    ["w2", true],
    ["w2NoDeflate", false],
  ])) {
    if (!wanted("w2")) break;
    /** @type {{ ours: any[], raw: any[], realChild: any[] }} */
    const reps = { ours: [], raw: [], realChild: [] };
    await section("ours", name, async () => {
      for (let rep = 0; rep < P.reps; rep += 1) {
        reps.ours.push(await workloads.w2Once(ours, P, `${name}-${rep}`, { deflate }));
        reps.raw.push(await workloads.w2Once(raw, P, `${name}-${rep}`, { deflate }));
        reps.realChild.push(await workloads.w2Once(realChild, P, `${name}-${rep}`, { deflate }));
      }
      results.raw[name] = workloads.w2Summary(P, reps.raw);
      results.realChild[name] = workloads.w2Summary(P, reps.realChild);
      return workloads.w2Summary(P, reps.ours);
    });
  }
  await section("ours", "w3", () => workloads.w3(ours, P));
  await section("realChild", "w3", () => workloads.w3(realChild, P));
  if (wanted("w4")) {
    await section("ours", "w4", async () => {
      const seedMs = {
        ours: await workloads.seedRetained(ours, P, "w4"),
        raw: await workloads.seedRetained(raw, P, "w4"),
      };
      await workloads.stats(ours, "w4"); // reset the counters: what follows is replay only
      /** @type {{ ours: any[], raw: any[] }} */
      const reps = { ours: [], raw: [] };
      for (let rep = 0; rep < P.reps; rep += 1) {
        reps.ours.push(await workloads.replayOnce(ours, "w4"));
        reps.raw.push(await workloads.replayOnce(raw, "w4"));
      }
      /** @type {{ ours: any[], raw: any[] }} */
      const plain = { ours: [], raw: [] };
      for (let rep = 0; rep < P.reps; rep += 1) {
        plain.ours.push(await workloads.replayOnce(ours, "w4", "", { deflate: false }));
        plain.raw.push(await workloads.replayOnce(raw, "w4", "", { deflate: false }));
      }
      results.raw.w4NoDeflate = workloads.replaySummary(P, plain.raw);
      results.ours.w4NoDeflate = workloads.replaySummary(P, plain.ours);
      const during = await workloads.stats(ours, "w4");
      results.raw.w4 = { seedMs: seedMs.raw, ...workloads.replaySummary(P, reps.raw) };
      return {
        seedMs: seedMs.ours,
        ...workloads.replaySummary(P, reps.ours),
        childrenWokenDuringReplays: during.childrenWoken,
        childCallsDuringReplays: during.childCalls,
      };
    });
    await section("ours", "reconnect", () => workloads.reconnect(ours, P, "w4"));
  }
  await section("ours", "w5", () => workloads.w5(ours, P));
  await section("realChild", "w5", () => workloads.w5(realChild, P));
  await section("ours", "retention", () => workloads.retention(ours, P));
} finally {
  await ours.dispose();
  await raw.dispose();
  await realChild.dispose();
}

// ── W4-cold: replay right after a restart on persisted storage (parent starts cold) ─────────────────────────
if (wanted("w4cold")) {
  for (const key of ["ours", "raw"]) {
    await section(key, "w4cold", async () => {
      const folder = `${PERSIST}/w4cold-${key}`;
      let host = await start(key, folder);
      await workloads.seedRetained(host, P, "w4cold");
      await host.dispose();
      const reps = [];
      const boots = [];
      /** @type {{ childrenWoken: number, childCalls: Record<string, number> } | null} */
      let woken = null;
      for (let rep = 0; rep < P.coldReps; rep += 1) {
        host = await start(key, folder);
        boots.push(host.bootMs);
        try {
          reps.push(await workloads.replayOnce(host, "w4cold"));
          if (key === "ours") woken = await workloads.stats(host, "w4cold");
        } finally {
          await host.dispose();
        }
      }
      return {
        restarts: P.coldReps,
        miniflareBootMs: describe(boots),
        ...workloads.replaySummary(P, reps),
        ...(woken ? { childrenWokenOnColdReplay: woken.childrenWoken, childCallsOnColdReplay: woken.childCalls } : {}),
      };
    });
  }
}

// ── the reconcile tick of @agent-tools/detached ─────────────────────────────────────────────────────────────────
if (wanted("reconcile")) {
  const reconcileHost = await start("reconcile");
  try {
    await section("ours", "reconcile", () => workloads.reconcile(reconcileHost, P));
  } finally {
    await reconcileHost.dispose();
  }
}

// ── the Stop cascade over a tree of children ─────────────────────────────────────────────────────────────────────
if (wanted("stopCascade")) {
  const treeHost = await start("tree");
  try {
    await section("ours", "stopCascade", () => workloads.stopCascade(treeHost, P));
  } finally {
    await treeHost.dispose();
  }
}

// ── memory with retained runs ──────────────────────────────────────────────────────────────────────────────
await section("ours", "memory", () => workloads.memory((folder) => start("ours", folder), P, PERSIST));
await rm(PERSIST, { recursive: true, force: true });

// ── report ───────────────────────────────────────────────────────────────────────────────────────────────────
const machine = {
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memGiB: round(totalmem() / 2 ** 30, 1),
  platform: `${process.platform}-${process.arch}`,
  // Other work on the machine skews every figure: 1-minute load average at start and end.
  loadAverage1m: { start: round(loadAtStart[0] ?? 0), end: round(loadavg()[0] ?? 0) },
};
const at = new Date().toISOString();
for (const key of ["ours", "raw", "realChild"]) {
  const line = {
    bench: "agents-as-tools",
    suite: "pnpm-bench",
    target: TARGETS[key].name,
    at,
    params: P,
    machine,
    miniflareBootMs: bootMs[key],
    results: results[key],
    errors: errors[key],
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
log("");
log(renderTable(results, P));
log(
  `\n(${((performance.now() - startedAll) / 1000).toFixed(0)} s; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ${at}; load ${machine.loadAverage1m.start} → ${machine.loadAverage1m.end})`,
);
const failed = Object.values(errors).filter((failures) => Object.keys(failures).length > 0).length;
process.exit(failed > 0 ? 1 : 0);
