// The README's first example, run as written in workerd: the Worker module it shows, bundled with this repository's
// sources, with the bindings and compatibility settings of the README's wrangler.jsonc, answering `/` with the text
// the README says. (The consumer test runs it under `wrangler dev` against the published packages.)
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "@agent-tools/workerd-harness/bundle";
import {
  createPersistDirectory,
  MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { afterAll, describe, expect, it } from "vitest";

const README = fileURLToPath(new URL("../README.md", import.meta.url));
// Inside the package, so that the example's imports resolve to the workspace packages.
const DIRECTORY = fileURLToPath(new URL("./.readme-example/", import.meta.url));

type Example = { code: string; attributes: Record<string, string>; expected: string; config: WranglerConfig };
type WranglerConfig = {
  main: string;
  compatibility_date: string;
  compatibility_flags?: string[];
  durable_objects: { bindings: Array<{ name: string; class_name: string }> };
  migrations: Array<{ new_sqlite_classes?: string[] }>;
};

/**
 * The first ts/tsx/js/mjs block, its attributes, the first ```text block after it, and the first ```jsonc block
 * after it (the wrangler.jsonc the README says to save beside the example; fences may be indented, in a list).
 */
function firstExample(markdown: string): Example {
  const blocks = [...markdown.matchAll(/^( *)```(\S*)([^\n]*)\n([\s\S]*?)^\1```\s*$/gm)].map((match) => ({
    language: match[2] ?? "",
    words: (match[3] ?? "").trim().split(/\s+/).filter(Boolean),
    code: (match[4] ?? "").replace(new RegExp(`^${match[1] ?? ""}`, "gm"), ""),
  }));
  const exampleAt = blocks.findIndex((block) => ["ts", "tsx", "js", "mjs"].includes(block.language));
  const example = blocks[exampleAt];
  const after = blocks.slice(exampleAt + 1);
  const output = after.find((block) => block.language === "text");
  const config = after.find((block) => block.language === "jsonc");
  if (!example || !output || !config) throw new Error("the README has no first example with its output and config");
  const attributes = Object.fromEntries(
    example.words.map((word) => (word.includes("=") ? word.split(/=(.*)/s).slice(0, 2) : ["runner", word])),
  ) as Record<string, string>;
  return {
    code: example.code,
    attributes,
    expected: output.code.trimEnd(),
    config: JSON.parse(config.code) as WranglerConfig,
  };
}

let persist: PersistDirectory | undefined;
let host: MiniflareHost | undefined;

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
  await rm(DIRECTORY, { recursive: true, force: true });
});

describe("README", () => {
  it("its first example, a Worker module, answers as the README says with the README's wrangler.jsonc", async () => {
    const { code, attributes, expected, config } = firstExample(await readFile(README, "utf8"));
    expect(attributes["runner"]).toBe("wrangler");
    expect(config.main).toBe("src/worker.ts");
    const sqliteClasses = config.migrations.flatMap((migration) => migration.new_sqlite_classes ?? []);
    const durableObjects = Object.fromEntries(
      config.durable_objects.bindings.map(({ name, class_name }) => {
        expect(sqliteClasses).toContain(class_name);
        return [name, { className: class_name, useSQLite: true }];
      }),
    );
    await mkdir(DIRECTORY, { recursive: true });
    const entry = `${DIRECTORY}worker.ts`;
    await writeFile(entry, code);
    persist = await createPersistDirectory("agent-tools-readme-");
    host = await MiniflareHost.start({
      scriptPath: await bundleWorker(entry),
      durableObjects,
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags ?? [],
      persistDirectory: persist.path,
    });
    const response = await host.fetch(attributes["path"] ?? "/");
    expect(response.status).toBe(200);
    expect((await response.text()).trimEnd()).toBe(expected);
  });
});
