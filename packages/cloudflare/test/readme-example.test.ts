// The README's first example, run as written in workerd: the Worker module it shows, bundled with this repository's
// sources, answering `/` with the text the README says.
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

type Example = { code: string; attributes: Record<string, string>; expected: string };

/** The first ts/tsx/js/mjs block, its attributes, and the first ```text block after it. */
function firstExample(markdown: string): Example {
  const blocks = [...markdown.matchAll(/^```(\S*)([^\n]*)\n([\s\S]*?)^```\s*$/gm)].map((match) => ({
    language: match[1] ?? "",
    words: (match[2] ?? "").trim().split(/\s+/).filter(Boolean),
    code: match[3] ?? "",
    index: match.index ?? 0,
  }));
  const exampleAt = blocks.findIndex((block) => ["ts", "tsx", "js", "mjs"].includes(block.language));
  const example = blocks[exampleAt];
  const output = blocks.slice(exampleAt + 1).find((block) => block.language === "text");
  if (!example || !output) throw new Error("the README has no first example with its output");
  const attributes = Object.fromEntries(
    example.words.map((word) => (word.includes("=") ? word.split(/=(.*)/s).slice(0, 2) : ["runner", word])),
  ) as Record<string, string>;
  return { code: example.code, attributes, expected: output.code.trimEnd() };
}

let persist: PersistDirectory | undefined;
let host: MiniflareHost | undefined;

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
  await rm(DIRECTORY, { recursive: true, force: true });
});

describe("README", () => {
  it("its first example, a Worker module, answers as the README says", async () => {
    const example = firstExample(await readFile(README, "utf8"));
    expect(example.attributes["runner"]).toBe("worker");
    await mkdir(DIRECTORY, { recursive: true });
    const entry = `${DIRECTORY}example.ts`;
    await writeFile(entry, example.code);
    const durableObjects = Object.fromEntries(
      (example.attributes["durable-objects"] ?? "").split(",").map((pair) => pair.split(":") as [string, string]),
    );
    persist = await createPersistDirectory("agent-tools-readme-");
    host = await MiniflareHost.start({
      scriptPath: await bundleWorker(entry),
      durableObjects,
      persistDirectory: persist.path,
    });
    const response = await host.fetch(example.attributes["path"] ?? "/");
    expect(response.status).toBe(200);
    expect((await response.text()).trimEnd()).toBe(example.expected);
  });
});
