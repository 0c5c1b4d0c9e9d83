/**
 * Target "real-child": the parent of `anchor-target` (`BenchParent`: `AgentToolRegistry` over the
 * `@agent-tools/cloudflare` adapters), dispatching `RealChild`, an `AgentToolChild` whose turn is the AI SDK's
 * `streamText` over the anchor's scripted mock model. Measured side by side with the anchor harness's `anchor-think`
 * (a `@cloudflare/think` child over the same script); see bench/README.md, "Real child".
 */
import { benchHandler } from "../src/bench-handler.js";
import { BenchParent } from "../src/bench-parent.js";
import { REAL_CHILD_TYPE } from "../src/real-child.js";

export { RealChild } from "../src/real-child.js";

/** `BenchParent`, its runs going to `RealChild` (bound as `RealChild` in target.json). */
export class RealChildParent extends BenchParent {
  static override readonly childType = REAL_CHILD_TYPE;
}

// biome-ignore lint/style/noDefaultExport: a Worker's entry is its default export.
export default benchHandler;
