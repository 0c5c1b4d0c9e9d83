import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoConfig } from "./harness/demo.js";

// `wrangler deploy --dry-run`, as `npx wrangler deploy` runs it from apps/demo, minus the upload: wrangler.jsonc is
// valid, its custom build (scripts/build-for-deploy.mjs: the packages' dist/ and the page) runs, and the Worker
// bundles with every Durable Object class it binds. Offline and without a Cloudflare login: no account, no token,
// wrangler's own settings in a fresh folder, no metrics. The page is built into a folder of this test (and pointed
// at with --assets), so that a running `pnpm demo`'s .web-build/ is left alone.

const APP_DIRECTORY = fileURLToPath(new URL("../", import.meta.url));
const REPOSITORY_BIN = fileURLToPath(new URL("../../../node_modules/.bin", import.meta.url));
const WRANGLER = join(APP_DIRECTORY, "node_modules", ".bin", "wrangler");

type Finished = { code: number | null; output: string };

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: APP_DIRECTORY, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The names a bundled ES module exports (its final `export { … }` clause). */
function exportedNames(bundle: string): string[] {
  const clause = [...bundle.matchAll(/export\s*\{([^}]*)\}/g)].at(-1)?.[1] ?? "";
  return clause
    .split(",")
    .map(
      (part) =>
        part
          .trim()
          .split(/\s+as\s+/)
          .at(-1) ?? "",
    )
    .filter((name) => name !== "");
}

describe("wrangler deploy --dry-run", () => {
  let folder: string;
  let result: Finished;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "agent-tools-deploy-"));
    // Nothing that could log wrangler in or reach an account.
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(CLOUDFLARE_|CF_|WRANGLER_)/.test(name)),
    );
    result = await run(
      WRANGLER,
      ["deploy", "--dry-run", "--outdir", join(folder, "out"), "--assets", join(folder, "web")],
      {
        ...env,
        // `node` in the custom build: the workspace's Node 22, as under pnpm.
        PATH: [REPOSITORY_BIN, env["PATH"] ?? ""].join(delimiter),
        WRANGLER_SEND_METRICS: "false",
        XDG_CONFIG_HOME: join(folder, "config"),
        DEMO_WEB_BUILD_DIR: join(folder, "web"),
        CI: "true",
      },
    );
  }, 180_000);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("succeeds, offline and logged out", () => {
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("--dry-run: exiting now.");
  });

  it("runs the custom build, which builds the page into the assets directory it uploads", () => {
    expect(result.output).toContain("[custom build] Running: node scripts/build-for-deploy.mjs");
    expect(existsSync(join(folder, "web", "index.html"))).toBe(true);
    expect(result.output).toMatch(/Read \d+ files? from the assets directory .*agent-tools-deploy-[^/\\]*[/\\]web/);
  });

  it("bundles a Worker that exports every Durable Object class the config binds, all of them migrated as SQLite", async () => {
    const bundle = await readFile(join(folder, "out", "worker.js"), "utf8");
    const config = await demoConfig();
    const classes = Object.values(config.durableObjects).map(({ className }) => className);
    expect(classes.sort()).toEqual([
      "Assistant",
      "Editor",
      "Importer",
      "PlainChatAssistant",
      "Researcher",
      "Summarizer",
      "Writer",
    ]);
    expect(exportedNames(bundle).sort()).toEqual([...classes, "default"].sort());
    expect(Object.values(config.durableObjects).every(({ useSQLite }) => useSQLite)).toBe(true);
  });

  it("lists the bindings it would deploy: the agents, the assets, the model variable", () => {
    for (const [binding, className] of [
      ["ASSISTANT", "Assistant"],
      ["PLAIN_ASSISTANT", "PlainChatAssistant"],
      ["RESEARCHER", "Researcher"],
      ["SUMMARIZER", "Summarizer"],
      ["IMPORTER", "Importer"],
      ["EDITOR", "Editor"],
      ["WRITER", "Writer"],
    ]) {
      expect(result.output).toMatch(new RegExp(`env\\.${binding} \\(${className}\\)\\s+Durable Object`));
    }
    expect(result.output).toMatch(/env\.ASSETS\s+Assets/);
    expect(result.output).toMatch(/env\.OPENAI_MODEL \("gpt-4o-mini"\)\s+Environment Variable/);
  });
});
