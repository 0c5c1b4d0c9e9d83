/**
 * Target "anchor-target": agent-tools (packages/core-runs + the demo's Durable Object adapters) behind the anchor
 * harness's contract (its README, "Adding a target"; the harness is external, see bench/README.md). The parent is
 * `BenchParent`, each run's child its own `BenchChild` object emitting the stub's C chunks.
 */
import { benchHandler } from "./src/bench-handler.js";

export { BenchChild } from "./src/bench-child.js";
export { BenchParent } from "./src/bench-parent.js";

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default benchHandler;
