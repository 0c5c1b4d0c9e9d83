import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { consumerEnvironment, exportTargets, tarballProblems } from "../src/consumer-test.mjs";
import { normalizeOutput, runExample } from "../src/example-runners.mjs";
import { readReadmeConvention } from "../src/readme.mjs";

// The consumer test itself runs in .ci/run (pnpm consumer-test): it needs the public npm registry. These are its
// parts that can be checked offline.

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
      PATH: "/bin",
      HOME: "/root",
      npm_config_registry: "https://mirror.example/",
      npm_config_https_proxy: "http://proxy:3128",
    });
  });
});

describe("output comparison", () => {
  it("ignores trailing whitespace and line-end style, nothing else", () => {
    expect(normalizeOutput("a  \r\nb\n\n")).toBe("a\nb");
    expect(normalizeOutput(" a")).not.toBe(normalizeOutput("a"));
  });
});

describe("the worker runner (```ts worker): a README's Worker module, bundled and run in workerd", () => {
  let directory: string | undefined;
  afterEach(async () => {
    if (directory) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });

  it("serves the path the README names, with the Durable Objects it lists", async () => {
    directory = await mkdtemp(path.join(tmpdir(), "worker-example-"));
    const readme = [
      "## Install",
      "",
      "```sh",
      "npm i @agent-tools/cloudflare",
      "```",
      "",
      "```ts worker path=/count durable-objects=COUNTER:Counter",
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
    ].join("\n");
    const { example, problems } = readReadmeConvention(readme);
    expect(problems).toEqual([]);
    if (!example) throw new Error("no example");
    const result = await runExample({ directory, example });
    expect(result).toMatchObject({ ok: true, detail: "" });
    expect(normalizeOutput(result.output)).toBe(example.expectedOutput);
  }, 60_000);
});
