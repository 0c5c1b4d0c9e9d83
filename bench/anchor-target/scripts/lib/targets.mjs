// The Workers `pnpm bench` and `scripts/turn-cost.mjs` run. A harness target's bindings and socket path come from its
// own target.json (the file the anchor harness reads), so both runners start it the way the harness does.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** A harness target folder (relative to bench/anchor-target/): its entry, durableObjects and wsPath. */
function harnessTarget(name, folder) {
  const config = JSON.parse(readFileSync(here(`../../${folder}target.json`), "utf8"));
  return {
    name,
    entry: here(`../../${folder}${config.entry ?? "worker.ts"}`),
    durableObjects: config.durableObjects,
    wsPath: config.wsPath,
  };
}

export const TARGETS = {
  /** agent-tools with the stub child (BenchChild). */
  ours: harnessTarget("anchor-target", ""),
  /** agent-tools with the real child: AgentToolChild + streamText over the scripted model (RealChild). */
  realChild: harnessTarget("real-child", "real-child/"),
  /** @agent-tools/detached's reconcile tick (not a harness target). */
  reconcile: {
    name: "reconcile",
    entry: here("../../reconcile/worker.ts"),
    durableObjects: { ReconcileParent: { className: "ReconcileParent", useSQLite: true } },
    wsPath: "/none/{parent}",
  },
  /** A parent whose turn fans out to a tree of children that run agent tools themselves (the Stop cascade). */
  tree: {
    name: "tree",
    entry: here("../../tree/worker.ts"),
    durableObjects: {
      TreeParent: { className: "TreeParent", useSQLite: true },
      Branch: { className: "Branch", useSQLite: true },
      Leaf: { className: "Leaf", useSQLite: true },
    },
    wsPath: "/none/{parent}",
  },
  /** The raw pipe: the same frames, no agent-tools logic. */
  raw: harnessTarget("raw-pipe", "raw-pipe/"),
};
