#!/usr/bin/env node
// `node bench/anchor-target/scripts/ab.mjs <tree A> <tree B> [workload] [rounds]`: two builds of agent-tools, side by
// side in one sitting, run by run. Each tree is a checkout of this repository with its dependencies installed (a copy
// of the working tree with one commit checked out, say); its own bench target is bundled from its own sources, both
// Workers are started, and each round runs the workload once on each, the order alternating between rounds, so the
// machine's load falls on both alike. A difference of a few per cent that a `pnpm bench` sitting cannot see (its
// ratios move by more than that between sittings) shows here.
//
// workload: w1 (default: one awaited run of C=10 in the parent, in-DO ms), w3 (20 concurrent awaited runs of C=50,
// in-DO ms), w2 (one run of C=2000 with a client connected: dispatch → terminal frame at the client, ms),
// stopCascade (the tree's Stop: every descendant's end after it, ms). Rounds: 300 for w1, 100 for w3, 40 for w2 and
// stopCascade by default; the first few of each are a warm-up, not counted.
//
// stdout: one JSON line (each tree's figures, B ÷ A); stderr: the same as a sentence.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { WorkerHost } from "./lib/host.mjs";
import { benchParams } from "./lib/params.mjs";
import { interquartileMean, quantile, round } from "./lib/stats.mjs";
import { w2Once } from "./lib/workloads.mjs";

const [treeA, treeB, workload = "w1", roundsArg] = process.argv.slice(2);
if (!treeA || !treeB) {
  console.error("usage: node bench/anchor-target/scripts/ab.mjs <tree A> <tree B> [w1|w3|w2|stopCascade] [rounds]");
  process.exit(2);
}

/**
 * A workload's figure: the interquartile mean of its times; their mean too, which resolves finer when the times are
 * whole milliseconds (W1 and W3 in the object: most of W1's read the same number, and the interquartile mean of a run
 * whose middle half is all 4 ms is 4 whatever its other half does).
 */
const BY_INTERQUARTILE_MEAN = {
  summarize: (/** @type {number[]} */ values) => ({
    interquartileMeanMs: round(interquartileMean(values), 3),
    meanMs: round(values.reduce((sum, value) => sum + value, 0) / values.length, 3),
  }),
  figure: "interquartileMeanMs",
};

/** What one round of a workload runs on one tree's host, and what it measures (ms). */
const WORKLOADS = {
  w1: {
    target: "ours",
    rounds: 300,
    warmup: 20,
    once: async (host, round) => [
      (await host.call("run", { parent: "ab-w1", runId: `ab-w1-${round}`, count: 10 })).body.ms,
    ],
    ...BY_INTERQUARTILE_MEAN,
  },
  w3: {
    target: "ours",
    rounds: 100,
    warmup: 5,
    once: async (host, round) => [
      (await host.call("fanout", { parent: "ab-w3", prefix: `ab-w3-${round}`, runs: 20, count: 50 })).body.ms,
    ],
    ...BY_INTERQUARTILE_MEAN,
  },
  w2: {
    target: "ours",
    rounds: 40,
    warmup: 3,
    once: async (host, round) => {
      const rep = await w2Once(host, { ...benchParams(), w2Chunks: 2_000 }, `ab-w2-${round}`);
      return [rep.dispatchToTerminalMs];
    },
    ...BY_INTERQUARTILE_MEAN,
  },
  stopCascade: {
    target: "tree",
    rounds: 40,
    warmup: 2,
    once: async (host, round) =>
      (await host.call("stop-cascade", { parent: `ab-tree-${round}`, top: 2, branches: 4, leaves: 5 })).body
        .endAfterStopMs,
    summarize: (values) => ({
      p50: round(quantile(values, 0.5)),
      p90: round(quantile(values, 0.9)),
      p99: round(quantile(values, 0.99)),
      max: round(Math.max(...values)),
    }),
    figure: "p99",
  },
};

const spec = WORKLOADS[workload];
if (!spec) throw new Error(`unknown workload ${workload} (${Object.keys(WORKLOADS).join(", ")})`);
const rounds = Number(roundsArg ?? spec.rounds);

/**
 * One tree's Worker, bundled from that tree's own sources with that tree's own bundler settings.
 * @param {string} tree
 * @returns {Promise<{ tree: string, host: WorkerHost, values: number[] }>}
 */
async function startTree(tree) {
  const root = resolve(tree);
  const lib = (file) => pathToFileURL(`${root}/bench/anchor-target/scripts/lib/${file}`).href;
  const { bundleWorker } = await import(lib("build.mjs"));
  const { TARGETS } = await import(lib("targets.mjs"));
  const target = TARGETS[spec.target];
  const scriptPath = await bundleWorker(
    target.entry,
    `${root}/bench/anchor-target/.bench-build/ab-${target.name}/worker.js`,
  );
  return { tree: root, host: await WorkerHost.start({ ...target, scriptPath }), values: [] };
}

const trees = [await startTree(treeA), await startTree(treeB)];
try {
  for (let index = 0; index < spec.warmup + rounds; index += 1) {
    for (const tree of index % 2 === 0 ? trees : [...trees].reverse()) {
      const values = await spec.once(tree.host, index);
      if (index >= spec.warmup) tree.values.push(...values);
    }
  }
} finally {
  for (const tree of trees) await tree.host.dispose();
}

const [a, b] = trees.map((tree) => ({ tree: tree.tree, samples: tree.values.length, ...spec.summarize(tree.values) }));
const ratio = round(b[spec.figure] / a[spec.figure], 3);
const meanRatio = "meanMs" in a && "meanMs" in b ? { meanMsBOverA: round(b.meanMs / a.meanMs, 3) } : {};
console.log(
  JSON.stringify({
    workload,
    rounds,
    a,
    b,
    [`${spec.figure}BOverA`]: ratio,
    ...meanRatio,
    at: new Date().toISOString(),
  }),
);
console.error(
  `${workload}, ${rounds} rounds: A ${JSON.stringify(a)}\n  B ${JSON.stringify(b)}\n  B ÷ A (${spec.figure}) ${ratio}` +
    ("meanMsBOverA" in meanRatio ? `; (meanMs) ${meanRatio.meanMsBOverA}` : ""),
);
