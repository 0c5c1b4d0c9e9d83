// `pnpm kill-matrix` (in apps/demo): the kill matrix of issue 17 — KILL_MATRIX kills at each fault point (default
// 10) and KILL_RANDOM kills at seeded random moments of a turn (default 40, KILL_SEED picks them) — with its table
// printed at the end and written to test-results/kill-matrix.json. See test/faults/README.md.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

// Run from the repository's root, as `pnpm test` runs the demo's project (its workerd tests resolve paths from there).
const root = fileURLToPath(new URL("../../../", import.meta.url));

const env = {
  ...process.env,
  KILL_MATRIX: process.env.KILL_MATRIX ?? "10",
  KILL_RANDOM: process.env.KILL_RANDOM ?? "40",
};
const test = "apps/demo/test/faults/kill-matrix.test.ts";
const result = spawnSync("vitest", ["run", "--project", "demo", test, ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env,
  shell: process.platform === "win32",
});
process.exit(result.status ?? 1);
