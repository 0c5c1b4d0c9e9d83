#!/usr/bin/env node
// `pnpm --filter @agent-tools/bench profile [target] [workload] [reps]`: a CPU profile of workerd's isolate (V8's
// sampling profiler over Miniflare's inspector) while one of `pnpm bench`'s workloads runs, summarized by the module of
// the bundle each sample's function comes from (esbuild's `// path` comments) and by function.
//
// target: ours (default) | realChild | raw; workload: w2 (default) | w1 | w3 | chat | chat-plain | chat-fixed | fanout.
// Writes bench/results/<UTC time>-profile-<target>-<workload>.txt (the summary) and .cpuprofile.gz (gunzip it and
// open it in Chrome DevTools' Performance panel or speedscope). Knobs: as `pnpm bench` (BENCH_W2_C, …), plus
// PROFILE_INTERVAL_US (sampling interval, default 100) and PROFILE_W1_RUNS (the awaited runs of one w1 repetition,
// default 20: the .cpuprofile.gz holds the first repetition only, so raise it for a profile with more samples).
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bundleWorker } from "./lib/build.mjs";
import { WorkerHost } from "./lib/host.mjs";
import { connectToWorker } from "./lib/inspector.mjs";
import { benchParams, knob } from "./lib/params.mjs";
import { round } from "./lib/stats.mjs";
import { TARGETS } from "./lib/targets.mjs";
import * as workloads from "./lib/workloads.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const [targetKey = "ours", workload = "w2", repsArg = "5"] = process.argv.slice(2);
const reps = Number(repsArg);
const P = { ...benchParams(), reps, fanoutRuns: knob("BENCH_FANOUT_RUNS", 1000) };
const target = TARGETS[targetKey];
if (!target) throw new Error(`unknown target ${targetKey} (${Object.keys(TARGETS).join(", ")})`);
const intervalUs = knob("PROFILE_INTERVAL_US", 100);
const port = 9300 + Math.floor(Math.random() * 500);

const scriptPath = await bundleWorker(target.entry, here(`../.bench-build/profile-${target.name}/worker.js`));
const host = await WorkerHost.start({ ...target, scriptPath, inspectorPort: port });
const load = loadavg()[0];
/** @type {any[]} one CPU profile per repetition, of its timed part */
const profiles = [];
const timings = [];
try {
  const cdp = await connectToWorker(port);
  try {
    await cdp.call("Profiler.enable");
    await cdp.call("Profiler.setSamplingInterval", { interval: intervalUs });
    const around = {
      before: () => cdp.call("Profiler.start"),
      after: async () => profiles.push((await cdp.call("Profiler.stop")).profile),
    };
    const idle = { before: async () => {}, after: async () => {} };
    // One untimed round to warm up (the bundle compiled, the first objects created), then the profiled ones.
    const run = workloadRunner(workload);
    await run("warm", idle);
    for (let rep = 0; rep < reps; rep += 1) timings.push(await run(`rep${rep}`, around));
  } finally {
    cdp.close();
  }
} finally {
  await host.dispose();
}

const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, "").replace("T", "T");
const base = here(`../../results/${stamp}-profile-${target.name}-${workload}`);
const bundle = readFileSync(scriptPath, "utf8");
const summary = [...summarize(profiles, bundle), "", ...timeline(profiles[0], bundle)];
const header = [
  `# CPU profile of workerd (Miniflare inspector, V8 sampling every ${intervalUs} µs): the timed part of ${reps} × ${workload} on ${target.name} (pnpm bench's build), ${new Date().toISOString()}, load ${round(load)}. The .cpuprofile.gz is the first repetition's.`,
  "# Self time grouped by the bundle module of the nearest JS frame (native frames with no JS caller, (program), GC and idle on their own).",
  `# Timings with the profiler attached: ${JSON.stringify(timings)}`,
];
writeFileSync(`${base}.txt`, `${[...header, ...summary].join("\n")}\n`);
writeFileSync(`${base}.cpuprofile.gz`, gzipSync(JSON.stringify(profiles[0])));
console.log([...header, ...summary].join("\n"));
console.error(`\nwrote ${base}.txt and .cpuprofile.gz`);

/** The workload to profile: one repetition per call (its timed part inside `around`), returning what it measured. */
function workloadRunner(name) {
  const whole = (measure) => async (tag, around) => {
    await around.before();
    try {
      return await measure(tag);
    } finally {
      await around.after();
    }
  };
  switch (name) {
    case "w1":
      return whole(
        async (tag) =>
          (await workloads.w1(host, { ...P, w1Warmup: 0, w1Runs: knob("PROFILE_W1_RUNS", 20) }, `w1-${tag}`)).innerMs,
      );
    case "w2":
      return async (tag, around) => {
        const rep = await workloads.w2Once(host, P, `w2-${tag}`, { deflate: false, around });
        return { firstChunkMs: rep.firstChunkMs, dispatchToTerminalMs: rep.dispatchToTerminalMs, innerMs: rep.innerMs };
      };
    case "w3":
      return whole(
        async (tag) =>
          (await host.call("fanout", { parent: `w3-${tag}`, prefix: tag, runs: P.w3Runs, count: P.w3Chunks })).body.ms,
      );
    case "chat":
    case "chat-plain":
    case "chat-fixed": {
      // Ten turns on one parent (the untimed warm-up round wired it), a scripted model calling the stub child
      // (`chat`), an ordinary tool (`chat-plain`) or no model (`chat-fixed`).
      const tool = { chat: "bench", "chat-plain": "plain", "chat-fixed": "fixed" }[name];
      return whole(
        async () => (await host.call("chat-turns", { parent: "chat", tool, turns: 10, count: P.w1Chunks })).body.ms,
      );
    }
    case "w1-new-object":
      // The raw pipe's floor of W1: 20 rounds of one new child object and one RPC to it (its `children` mode).
      return whole(async (tag) => {
        const samples = [];
        for (let index = 0; index < 20; index += 1) {
          const { body } = await host.call("fanout", {
            parent: `w1n-${tag}`,
            prefix: `${tag}-${index}`,
            runs: 1,
            count: P.w1Chunks,
            mode: "children",
          });
          samples.push(body.ms);
        }
        return samples;
      });
    case "fanout":
      // One chat turn of P.fanoutRuns awaited stub children, on a fresh parent each time.
      return whole(
        async (tag) =>
          (await host.call("chat-fanout", { parent: `fan-${tag}`, calls: P.fanoutRuns, count: P.w1Chunks })).body.ms,
      );
    default:
      throw new Error(`unknown workload ${name}`);
  }
}

/** Self time per module and per function; a sample's module is that of its nearest frame with a bundle line. */
function summarize(cpuProfiles, bundle) {
  const modules = moduleIndex(bundle);
  const byModule = new Map();
  const byFunction = new Map();
  let total = 0;
  for (const cpuProfile of cpuProfiles) {
    const { nodes, parents, selfUs } = indexProfile(cpuProfile);
    for (const [id, us] of selfUs) {
      total += us;
      const node = nodes.get(id);
      const { label, native } = attribute(node, nodes, parents, modules);
      const entry = byModule.get(label) ?? { us: 0, nativeUs: 0 };
      entry.us += us;
      if (native) entry.nativeUs += us;
      byModule.set(label, entry);
      const where = moduleOfFrame(node, modules);
      const fn = `${node.callFrame.functionName || "(anonymous)"}  ${where ?? node.callFrame.url ?? ""}${where ? `:${node.callFrame.lineNumber + 1}` : ""}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    }
  }
  const ms = (us) => (us / 1000).toFixed(0).padStart(6);
  const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  return [
    "## by module (self time; native: time in native code called from that module)",
    ...[...byModule]
      .sort((a, b) => b[1].us - a[1].us)
      .map(
        ([label, entry]) => `${ms(entry.us)} ms ${pct(entry.us)}  (native ${ms(entry.nativeUs).trim()} ms)  ${label}`,
      ),
    `total ${ms(total).trim()} ms`,
    "",
    "## top 40 functions (self time)",
    ...[...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([fn, us]) => `${ms(us)} ms ${pct(us)}  ${fn}`),
  ];
}

function indexProfile(cpuProfile) {
  const nodes = new Map(cpuProfile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of cpuProfile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const selfUs = new Map();
  cpuProfile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (cpuProfile.timeDeltas[index + 1] ?? 0));
  });
  return { nodes, parents, selfUs };
}

function moduleOfFrame(node, modules) {
  const { url, lineNumber } = node.callFrame;
  return url?.endsWith("worker.js") && lineNumber >= 0 ? modules(lineNumber + 1) : null;
}

/** A sample's label: its own module, or that of the nearest JS caller (native: it was native code). */
function attribute(node, nodes, parents, modules) {
  const name = node.callFrame.functionName;
  if (["(program)", "(garbage collector)", "(idle)", "(root)"].includes(name)) return { label: name, native: false };
  let native = false;
  for (let cursor = node; cursor; cursor = nodes.get(parents.get(cursor.id))) {
    const found = moduleOfFrame(cursor, modules);
    if (found !== null) return { label: found, native };
    native = true;
  }
  return { label: "(native, no JS caller)", native: true };
}

/**
 * The first repetition as a timeline: per 1 ms of wall time, the busy share and the module (and function) most of
 * its samples were in. Shows what happens in order: e.g. everything before the first chunk leaves.
 */
function timeline(cpuProfile, bundle) {
  if (!cpuProfile) return [];
  const modules = moduleIndex(bundle);
  const { nodes, parents } = indexProfile(cpuProfile);
  const buckets = new Map();
  let at = 0;
  cpuProfile.samples.forEach((id, index) => {
    at += cpuProfile.timeDeltas[index] ?? 0;
    const node = nodes.get(id);
    const bucket = Math.floor(at / 1000);
    const entry = buckets.get(bucket) ?? { busy: 0, total: 0, labels: new Map() };
    const { label } = attribute(node, nodes, parents, modules);
    const us = cpuProfile.timeDeltas[index + 1] ?? 0;
    entry.total += us;
    if (label !== "(idle)") {
      entry.busy += us;
      const key = `${label} ${node.callFrame.functionName || "(anonymous)"}`;
      entry.labels.set(key, (entry.labels.get(key) ?? 0) + us);
    }
    buckets.set(bucket, entry);
  });
  const lines = ["## timeline of the first repetition (per ms: busy %, top two module/function by self time)"];
  // The first 300 ms at most: enough to see what comes before a first chunk; the summary above covers the rest.
  for (const [bucket, entry] of [...buckets].sort((a, b) => a[0] - b[0]).slice(0, 300)) {
    const top = [...entry.labels]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([label, us]) => `${label} ${(us / 10 / Math.max(1, entry.total / 100)).toFixed(0)}%`);
    lines.push(
      `${String(bucket).padStart(5)} ms ${String(Math.round((entry.busy / Math.max(1, entry.total)) * 100)).padStart(3)}%  ${top.join(" | ")}`,
    );
  }
  return lines;
}

/** Bundle line → the module esbuild emitted it from (its `// path` comment before each module). */
function moduleIndex(bundle) {
  const starts = [];
  bundle.split("\n").forEach((line, index) => {
    const match = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
    if (match) starts.push([index + 1, shorten(match[1])]);
  });
  return (line) => {
    let low = 0;
    let high = starts.length - 1;
    let found = "(bundle prelude)";
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (starts[mid][0] <= line) {
        found = starts[mid][1];
        low = mid + 1;
      } else high = mid - 1;
    }
    return found;
  };
}

function shorten(path) {
  const pkg = /packages\/([^/]+)\/src\/(.*)$/.exec(path);
  if (pkg) return `@agent-tools/${pkg[1]}: ${pkg[2]}`;
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (dep) return dep[1];
  return path.replace(/^(\.\.\/)+/, "");
}
