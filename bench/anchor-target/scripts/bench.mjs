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
import { connectToWorker, heapUsed, withPeakHeap } from "./lib/inspector.mjs";
import { benchParams } from "./lib/params.mjs";
import { regenerated } from "./lib/regenerated.mjs";
import { describe, round } from "./lib/stats.mjs";
import { renderTable } from "./lib/table.mjs";
import { TARGETS } from "./lib/targets.mjs";
import * as workloads from "./lib/workloads.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OUT = here("../.bench-build/");
const PERSIST = here("../.mf-persist");

const P = benchParams();
const verbose = process.env["BENCH_VERBOSE"] === "1";
const only = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter(Boolean));
// A section named after another (w1StreamText, historyClients) runs with it.
const wanted = (name) => only.size === 0 || only.has(name) || only.has(name.replace(/(StreamText|Clients)$/, ""));
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
const start = (key, persist, inspectorPort) =>
  WorkerHost.start({ ...TARGETS[key], scriptPath: TARGETS[key].scriptPath, persist, verbose, inspectorPort });

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
  // The real child's floor: streamText + toUIMessageStream over the same script, run in the raw pipe's object.
  await section("raw", "w1StreamText", () => workloads.w1(raw, P, "w1-streamText", "streamText"));
  // W2 with the client offering permessage-deflate (as the harness's does), then without: what the servers can
  // send, not zlib's cost (our servers decline it, so both should match).
  for (const [name, deflate] of /** @type {const} */ ([
    ["w2", true],
    ["w2NoDeflate", false],
  ])) {
    if (!wanted("w2")) break;
    /** @type {{ ours: any[], raw: any[], realChild: any[], rawStreamText: any[] }} */
    const reps = { ours: [], raw: [], realChild: [], rawStreamText: [] };
    await section("ours", name, async () => {
      for (let rep = 0; rep < P.reps; rep += 1) {
        reps.ours.push(await workloads.w2Once(ours, P, `${name}-${rep}`, { deflate }));
        reps.raw.push(await workloads.w2Once(raw, P, `${name}-${rep}`, { deflate }));
        reps.realChild.push(await workloads.w2Once(realChild, P, `${name}-${rep}`, { deflate }));
        reps.rawStreamText.push(await workloads.w2Once(raw, P, `${name}-st-${rep}`, { deflate, mode: "streamText" }));
      }
      results.raw[name] = workloads.w2Summary(P, reps.raw);
      results.raw[`${name}StreamText`] = workloads.w2Summary(P, reps.rawStreamText);
      results.realChild[name] = workloads.w2Summary(P, reps.realChild);
      return workloads.w2Summary(P, reps.ours);
    });
  }
  await section("ours", "w3", () => workloads.w3(ours, P));
  await section("realChild", "w3", () => workloads.w3(realChild, P));
  await section("raw", "w3StreamText", () => workloads.w3(raw, P, "streamText"));
  await section("ours", "chat", () => workloads.chatTurns(ours, raw, P));
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

// ── fan-out: one turn of up to 1 000 awaited children, fresh processes (their heap is measured) ──────────────────
if (wanted("fanout")) {
  const port = 9400 + Math.floor(Math.random() * 500);
  const fanOurs = await start("ours", undefined, port);
  const fanRaw = await start("raw", undefined, port + 1);
  const sessions = { ours: await connectToWorker(port), raw: await connectToWorker(port + 1) };
  try {
    const probe = (cdp) => ({ used: () => heapUsed(cdp), peakDuring: (work) => withPeakHeap(cdp, work) });
    const heap = { ours: probe(sessions.ours), raw: probe(sessions.raw) };
    await section("ours", "fanout", () => workloads.fanOut(fanOurs, fanRaw, P, heap));
  } finally {
    sessions.ours.close();
    sessions.raw.close();
    await fanOurs.dispose();
    await fanRaw.dispose();
  }
}

// ── history: a long conversation, many retained runs (issue 27, item 4) ─────────────────────────────────────────
if (wanted("history")) {
  const histHost = await start("ours");
  try {
    await section("ours", "history", () => workloads.history(histHost, P));
    await section("ours", "historyClients", () => workloads.historyClients(histHost, P));
  } finally {
    await histHost.dispose();
  }
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
// ── issue 32: model output tokens made again after a child's host is cut (Node: the runner, no workerd) ─────────
await section("ours", "regenerated", () => regenerated());

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
