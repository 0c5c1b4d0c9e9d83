// `node bench/results/prototypes/platform-costs/run.mjs costs.mjs <variant>… [rounds]`: a throwaway Worker's
// variants, round by round in one Miniflare (each round: every variant once, 50 new child objects each, the order
// fixed), the first two rounds a warm-up. Prints each variant's median and mean ms per child. Issue 33, ninth session
// (bench/README.md): what a child's storage layout, a write before an RPC and warming a child cost in workerd.
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const { Miniflare } = await import(
  pathToFileURL(resolve(here, "../../../anchor-target/node_modules/miniflare/dist/src/index.js")).href
);
const [worker, ...rest] = process.argv.slice(2);
const rounds = Number(rest.at(-1)) || 30;
const variants = rest.filter((arg) => !/^\d+$/.test(arg));
if (!worker || variants.length === 0) {
  console.error("usage: node run.mjs <worker.mjs> <variant>… [rounds]");
  process.exit(2);
}
const mf = new Miniflare({
  modules: true,
  scriptPath: resolve(here, worker),
  compatibilityDate: "2026-04-20",
  compatibilityFlags: ["nodejs_compat"],
  durableObjects: { Parent: { className: "Parent", useSQLite: true }, Child: { className: "Child", useSQLite: true } },
});
await mf.ready;
const times = Object.fromEntries(variants.map((variant) => [variant, /** @type {number[]} */ ([])]));
for (let round = 0; round < rounds; round += 1) {
  for (const variant of variants) {
    const response = await mf.dispatchFetch(`http://x/?prefix=r${round}&v=${variant}&n=50`);
    const { ms, size } = await response.json();
    if (round >= 2) times[variant].push(ms);
    if (round === 0 && size !== undefined) console.log(`${variant}: a child's database, ${size} bytes`);
  }
}
for (const variant of variants) {
  const sorted = [...times[variant]].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  console.log(
    `${variant.padEnd(10)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} mean ${mean.toFixed(2)} ms`,
  );
}
await mf.dispose();
