// The lint rules that keep the seed's porting hazard out (SPEC §10): `hasAgentToolRun` is async, and a guard that
// forgets `await` lets every guessed runId through. Runs the repository's Biome configuration over a fixture.
import { describe, expect, it } from "vitest";

// Node is available to tests; the specifiers sit in variables so that tsc (this package has no Node types) does
// not follow them.
const NODE_CHILD_PROCESS = "node:child_process";
const NODE_FS = "node:fs";
const NODE_OS = "node:os";
const NODE_PATH = "node:path";
type ExecResult = { status: number | null; stdout: string; stderr: string };
const { spawnSync } = (await import(/* @vite-ignore */ NODE_CHILD_PROCESS)) as {
  spawnSync(command: string, args: string[], options: { cwd: string; encoding: "utf8" }): ExecResult;
};
const fs = (await import(/* @vite-ignore */ NODE_FS)) as {
  readFileSync(path: string, encoding: "utf8"): string;
  writeFileSync(path: string, data: string): void;
  mkdtempSync(prefix: string): string;
  rmSync(path: string, options: { recursive: true; force: true }): void;
};
const { tmpdir } = (await import(/* @vite-ignore */ NODE_OS)) as { tmpdir(): string };
const path = (await import(/* @vite-ignore */ NODE_PATH)) as {
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
};

const repoRoot = path.resolve(new URL("../../..", import.meta.url).pathname);
const biome = path.join(repoRoot, "node_modules/.bin/biome");

const fixture = `class Registry {
  async hasAgentToolRun(agentType: string, runId: string): Promise<boolean> {
    return agentType !== runId;
  }
}
export async function drillIn(registry: Registry, agentType: string, runId: string): Promise<number> {
  if (!registry.hasAgentToolRun(agentType, runId)) return 404;
  if (registry.hasAgentToolRun(agentType, runId)) return 200;
  if (!(await registry.hasAgentToolRun(agentType, runId))) return 404;
  return 200;
}
`;

/** Lint the fixture with the repository's rules (its `biome.json`, plugin paths made absolute). */
function lintFixture(): ExecResult {
  const config = JSON.parse(fs.readFileSync(path.join(repoRoot, "biome.json"), "utf8")) as {
    plugins?: string[];
    files?: unknown;
    vcs?: unknown;
  };
  config.plugins = (config.plugins ?? []).map((plugin) => path.resolve(repoRoot, plugin));
  delete config.files;
  delete config.vcs;
  const directory = fs.mkdtempSync(path.join(tmpdir(), "agent-tools-lint-"));
  try {
    fs.writeFileSync(path.join(directory, "biome.json"), JSON.stringify(config));
    fs.writeFileSync(path.join(directory, "drill-in.ts"), fixture);
    return spawnSync(biome, ["lint", "--max-diagnostics=50", "drill-in.ts"], { cwd: directory, encoding: "utf8" });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

describe("lint rules against un-awaited guards", () => {
  it("flags `if (!registry.hasAgentToolRun(…))` and `if (registry.hasAgentToolRun(…))`, not the awaited guard", () => {
    const { status, stdout, stderr } = lintFixture();
    const output = `${stdout}\n${stderr}`;
    expect(status).not.toBe(0);
    const flaggedLines = [...output.matchAll(/drill-in\.ts:(\d+):\d+/g)].map((match) => Number(match[1]));
    expect([...new Set(flaggedLines)].sort()).toEqual([7, 8]);
    expect(output).toContain("hasAgentToolRun returns a Promise<boolean>");
  }, 30_000);
});
