#!/usr/bin/env node
import { rm } from "node:fs/promises";
// `pnpm bench`: agent-tools benchmarks in workerd through Miniflare, on our anchor-harness target
// (bench/anchor-target/worker.ts), on the raw pipe (bench/anchor-target/raw-pipe/worker.ts), and, for W1–W3 and W5
// (the figures that depend on the child), on the real child (bench/anchor-target/real-child/worker.ts).
//
// With the anchor harness (`--anchor DIR` or BENCH_ANCHOR=DIR: a copy of it after `npm ci`), the anchor's target runs
// too, and W1–W3 are taken run by run across ours, the anchor and the raw pipe (scripts/lib/interleaved.mjs), so
// their ratios come from one sitting whatever else loads the machine. Issue 33's figures are printed with their
// goals; `--check` exits 1 when one misses its goal or was not measured.
//
// stdout: JSON lines, one per target ({ target, results, … }; W1–W5 keys as the anchor harness names them, so its
// summarize.mjs reads them too; ours carries `goals`). stderr: progress and tables. Knobs: see README.md ("Knobs").
import { cpus, loadavg, totalmem } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildAnchor } from "./lib/anchor.mjs";
import { bundleWorker } from "./lib/build.mjs";
import { evaluateGoals, goalsPass, renderGoals } from "./lib/goals.mjs";
import { WorkerHost } from "./lib/host.mjs";
import { connectToWorker, liveHeap, withPeakHeap } from "./lib/inspector.mjs";
import * as interleaved from "./lib/interleaved.mjs";
import { benchParams } from "./lib/params.mjs";
import { regenerated } from "./lib/regenerated.mjs";
import { describe, round } from "./lib/stats.mjs";
import { renderTable } from "./lib/table.mjs";
import { TARGETS } from "./lib/targets.mjs";
import * as workloads from "./lib/workloads.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OUT = here("../.bench-build/");
const PERSIST = here("../.mf-persist");

const args = process.argv.slice(2);
const check = args.includes("--check");
const anchorIndex = args.indexOf("--anchor");
const anchorFolder = anchorIndex >= 0 ? args[anchorIndex + 1] : process.env["BENCH_ANCHOR"];
const P = benchParams();
const verbose = process.env["BENCH_VERBOSE"] === "1";
const only = new Set((process.env["BENCH_ONLY"] ?? "").split(",").filter(Boolean));
// A section named after another (w1StreamText, historyClients) runs with it.
const wanted = (name) =>
  only.size === 0 || only.has(name) || only.has(name.replace(/(StreamText|Clients|NoDeflate)$/, ""));
const log = (...args) => console.error(...args);

const results = { ours: {}, raw: {}, realChild: {}, anchor: {} };
const errors = { ours: {}, raw: {}, realChild: {}, anchor: {} };
const anchorBuild = buildAnchor(anchorFolder);
/** The Workers this sitting runs: ours, the raw pipe, …, and the anchor's when it could be built. */
const targets = { ...TARGETS, ...("target" in anchorBuild ? { anchor: anchorBuild.target } : {}) };
if ("missing" in anchorBuild) log(`anchor: not run: ${anchorBuild.missing}`);

async function section(target, name, run) {
  if (!wanted(name)) return;
  const started = performance.now();
  try {
    results[target][name] = await run();
  } catch (error) {
    errors[target][name] = error instanceof Error ? error.message : String(error);
    log(`${targets[target].name} ${name}: FAILED ${errors[target][name]}`);
  }
  log(`${targets[target].name} ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Files the other targets' series of an interleaved section under their names (`where`: series → [target, name]);
 * returns ours, which `section` files.
 * @param {Record<string, any>} series @param {Record<string, [keyof typeof results, string]>} where
 */
function file(series, where) {
  for (const [key, [target, name]] of Object.entries(where)) {
    if (series[key]) results[target][name] = series[key];
  }
  return series["ours"];
}

const startedAll = performance.now();
const loadAtStart = loadavg();
await rm(PERSIST, { recursive: true, force: true });
for (const target of Object.values(TARGETS)) {
  target.scriptPath = await bundleWorker(target.entry, `${OUT}${target.name}/worker.js`);
}
const start = (key, persist, inspectorPort) =>
  WorkerHost.start({ ...targets[key], scriptPath: targets[key].scriptPath, persist, verbose, inspectorPort });

// ── warm workloads: the targets up at once, repetitions of W2 and W4 interleaved ──────────────────────────
const ours = await start("ours");
const raw = await start("raw");
const realChild = await start("realChild");
const anchor = targets.anchor ? await start("anchor") : null;
const bootMs = {
  ours: round(ours.bootMs),
  raw: round(raw.bootMs),
  realChild: round(realChild.bootMs),
  anchor: anchor ? round(anchor.bootMs) : null,
};
const hosts = { ours, raw, realChild, anchor };
try {
  await section("ours", "baseline", () => workloads.baseline(ours));
  await section("raw", "baseline", () => workloads.baseline(raw));
  if (anchor) await section("anchor", "baseline", () => workloads.baseline(anchor));
  // W1–W3 run by run across the targets (the raw pipe's floors: a new object's round trip, streamText alone).
  await section("ours", "w1", async () =>
    file(await interleaved.w1(hosts, P), {
      anchor: ["anchor", "w1"],
      realChild: ["realChild", "w1"],
      rawNewObject: ["raw", "w1NewObject"],
      rawStreamText: ["raw", "w1StreamText"],
    }),
  );
  // W2 with the client offering permessage-deflate (as the harness's does), then without: what the servers can
  // send, not zlib's cost (our servers decline it, so both should match; the anchor's accepts it).
  for (const [name, deflate] of /** @type {const} */ ([
    ["w2", true],
    ["w2NoDeflate", false],
  ])) {
    if (!wanted("w2")) break;
    await section("ours", name, async () =>
      file(await interleaved.w2(hosts, P, name, deflate), {
        anchor: ["anchor", name],
        raw: ["raw", name],
        rawStreamText: ["raw", `${name}StreamText`],
        realChild: ["realChild", name],
      }),
    );
  }
  await section("ours", "w3", async () =>
    file(await interleaved.w3(hosts, P), {
      anchor: ["anchor", "w3"],
      realChild: ["realChild", "w3"],
      rawChildren: ["raw", "w3Children"],
      rawStreamText: ["raw", "w3StreamText"],
    }),
  );
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
  await anchor?.dispose();
}

// ── fan-out: one turn of up to 1 000 awaited children, fresh processes (their heap is measured) ──────────────────
if (wanted("fanout")) {
  const port = 9400 + Math.floor(Math.random() * 500);
  const fanOurs = await start("ours", undefined, port);
  const fanRaw = await start("raw", undefined, port + 1);
  const sessions = { ours: await connectToWorker(port), raw: await connectToWorker(port + 1) };
  try {
    // The live heap: a heap snapshot's objects (V8 collects fully before it takes one), before the call, then one
    // after another while it runs (the inspector is answered between the isolate's tasks, an HTTP request is not).
    const probe = (cdp) => ({
      live: () => liveHeap(cdp),
      peakLiveDuring: (work) => withPeakHeap(cdp, work, { everyMs: 50, read: () => liveHeap(cdp) }),
    });
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
const goals = evaluateGoals(results, (name) => only.size === 0 || only.has(name));
for (const key of /** @type {const} */ (["ours", "raw", "realChild", "anchor"])) {
  if (key === "anchor" && !anchor) continue;
  const line = {
    bench: "agents-as-tools",
    suite: "pnpm-bench",
    target: targets[key]?.name ?? key,
    at,
    params: P,
    machine,
    miniflareBootMs: bootMs[key],
    results: results[key],
    errors: errors[key],
    ...(key === "ours" ? { goals } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
log("");
log(renderTable(results, P));
log("");
log(renderGoals(goals));
log(
  `\n(${((performance.now() - startedAll) / 1000).toFixed(0)} s; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ${at}; load ${machine.loadAverage1m.start} → ${machine.loadAverage1m.end})`,
);
const failed = Object.values(errors).filter((failures) => Object.keys(failures).length > 0).length;
if (check && !goalsPass(goals)) log("\n--check: a goal of issue 33 is missed or was not measured (table above)");
process.exit(failed > 0 || (check && !goalsPass(goals)) ? 1 : 0);
