// The anchor (Cloudflare's Agents SDK, the `anchor` target of the external anchor harness), run by `pnpm bench`
// beside ours so the ratios come from one interleaved sitting. The harness is not part of this repository:
// `--anchor DIR` or `BENCH_ANCHOR=DIR` names a copy of it with its dependencies installed (`npm ci`). Its own
// build.mjs bundles the target (its esbuild options, its node_modules); this runner starts the bundle in its own
// Miniflare, with the target's bindings and socket path from the target's target.json, as the harness does.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

const TARGET = "anchor";

/**
 * The anchor's Worker, bundled; or why it cannot be (no folder given, not a harness, dependencies not installed, the
 * build failed).
 * @param {string | undefined} folder the harness copy
 * @returns {{ target: { name: string, scriptPath: string, durableObjects: Record<string, { className: string, useSQLite: boolean }>, wsPath: string, sendsReplayDone: false } } | { missing: string }}
 */
export function buildAnchor(folder) {
  if (!folder) {
    return {
      missing:
        "no anchor harness given (--anchor DIR or BENCH_ANCHOR=DIR: a copy of the harness after `npm ci`, bench/README.md)",
    };
  }
  const root = isAbsolute(folder) ? folder : resolve(process.env["INIT_CWD"] ?? process.cwd(), folder);
  const config = join(root, "targets", TARGET, "target.json");
  if (!existsSync(join(root, "build.mjs")) || !existsSync(config)) {
    return { missing: `${root} is not the anchor harness (no build.mjs or targets/${TARGET}/target.json)` };
  }
  if (!existsSync(join(root, "node_modules", "agents"))) {
    return { missing: `${root} has no node_modules/agents: run \`npm ci\` there first` };
  }
  const built = spawnSync(process.execPath, ["build.mjs", TARGET], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) return { missing: `the anchor's build failed: ${(built.stderr || built.stdout).trim()}` };
  const target = JSON.parse(readFileSync(config, "utf8"));
  return {
    target: {
      name: TARGET,
      scriptPath: join(root, "dist", TARGET, "worker.js"),
      durableObjects: target.durableObjects,
      wsPath: target.wsPath,
      // Its parent sends no `bench-replay-done` frame after a connect's replay (ours and the raw pipe do).
      sendsReplayDone: false,
    },
  };
}
