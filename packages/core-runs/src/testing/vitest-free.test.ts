import { describe, expect, it } from "vitest";

// "@agent-tools/core-runs/testing" must load where vitest is not installed (a consumer's app, workerd): no module
// it reaches may import vitest. Only "./testing/vitest" does.

// Specifier in a variable: the package compiles without Node's types.
const NODE_FS = "node:fs/promises";

type ReadFile = (path: URL, encoding: "utf8") => Promise<string>;

const IMPORT_SPECIFIER = /^\s*(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Every bare specifier (a package, not a relative path) reached from `entry` through relative imports. */
async function packagesReachedFrom(entry: URL, readFile: ReadFile): Promise<Map<string, string>> {
  const reached = new Map<string, string>(); // package specifier → the module that imports it
  const seen = new Set<string>();
  const pending = [entry];
  for (let module = pending.pop(); module !== undefined; module = pending.pop()) {
    if (seen.has(module.href)) continue;
    seen.add(module.href);
    const source = await readFile(module, "utf8");
    const specifiers = [...source.matchAll(IMPORT_SPECIFIER), ...source.matchAll(DYNAMIC_IMPORT)].map(
      (match) => match[1] ?? match[2] ?? "",
    );
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) pending.push(new URL(specifier.replace(/\.js$/, ".ts"), module));
      else if (!reached.has(specifier)) reached.set(specifier, module.pathname);
    }
  }
  return reached;
}

async function loadReadFile(): Promise<ReadFile> {
  const fs = (await import(/* @vite-ignore */ NODE_FS)) as { readFile: ReadFile };
  return fs.readFile;
}

const isVitest = (specifier: string) => specifier === "vitest" || specifier.startsWith("vitest/");

describe("@agent-tools/core-runs/testing without vitest", () => {
  it("reaches no vitest import from ./testing", async () => {
    const reached = await packagesReachedFrom(new URL("./index.ts", import.meta.url), await loadReadFile());
    expect(reached.size).toBeGreaterThan(0); // the walk did read the modules (it reaches "ai/test")
    expect([...reached].filter(([specifier]) => isVitest(specifier))).toEqual([]);
  });

  it("keeps the vitest suites on ./testing/vitest", async () => {
    const reached = await packagesReachedFrom(new URL("./vitest.ts", import.meta.url), await loadReadFile());
    expect([...reached.keys()].some(isVitest)).toBe(true);
  });
});
