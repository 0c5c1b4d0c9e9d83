import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readWebAssets, WEB_ASSETS_BINDING, WEB_BUILD_DIRECTORY } from "../web/build.mjs";
import { demoConfig, demoWsUrl, startDemoHost } from "./harness/demo.js";

// The page as wrangler.jsonc serves it: static assets in front of the Worker (through the ASSETS binding), except
// `/agents/*`, which always reaches the Worker and its Assistant objects, and `/plain.html`, which the Worker serves
// from `/plain` (the assets alone would redirect it). A small hand-made "build" stands in for the React page (the
// browser test serves the real one).

const PAGE = "<!doctype html><title>a built page</title><script type=module src=/assets/app-1234.js></script>";
const SCRIPT = "console.log('the page');";
const PLAIN_PAGE = "<!doctype html><title>the plain useChat page</title>";

async function writeFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [path, body] of Object.entries(files)) {
    const file = join(folder, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, body);
  }
}

describe("the demo's settings, from wrangler.jsonc", () => {
  it("bind the agents as SQLite-backed Durable Objects, and the page built where web/build.mjs puts it", async () => {
    const config = await demoConfig();
    expect(config.durableObjects).toEqual({
      ASSISTANT: { className: "Assistant", useSQLite: true },
      PLAIN_ASSISTANT: { className: "PlainChatAssistant", useSQLite: true },
      RESEARCHER: { className: "Researcher", useSQLite: true },
      SUMMARIZER: { className: "Summarizer", useSQLite: true },
      IMPORTER: { className: "Importer", useSQLite: true },
      EDITOR: { className: "Editor", useSQLite: true },
      WRITER: { className: "Writer", useSQLite: true },
    });
    expect(config.main).toMatch(/[\\/]apps[\\/]demo[\\/]src[\\/]worker\.ts$/);
    expect(config.compatibilityFlags).toContain("nodejs_compat");
    expect(config.assets.binding).toBe("ASSETS");
    expect(join(config.assets.directory, "/")).toBe(join(WEB_BUILD_DIRECTORY, "/"));
    expect(config.assets.routerConfig?.static_routing?.user_worker).toEqual(["/agents/*", "/plain.html"]);
  });
});

describe("the demo Worker serving its page", () => {
  let persist: PersistDirectory;
  let page: string;
  let host: MiniflareHost | undefined;

  beforeAll(async () => {
    persist = await createPersistDirectory();
    page = await mkdtemp(join(tmpdir(), "agent-tools-page-"));
    await writeFiles(page, {
      "index.html": PAGE,
      "assets/app-1234.js": SCRIPT,
      "plain.html": PLAIN_PAGE,
      // A file where an agent route is: the route must win.
      "agents/assistant/shadowed/runs": "a file, not the Assistant",
    });
  });

  afterEach(async () => {
    await host?.dispose();
    host = undefined;
  });

  afterAll(async () => {
    await persist?.remove();
    if (page) await rm(page, { recursive: true, force: true });
  });

  it("serves the built page at / and its files, and sends /agents/* to the Assistant", async () => {
    host = await startDemoHost(persist, { DEMO_PACE_MS: "0" }, { assetsDirectory: page });

    const index = await host.fetch("/?chat=assets");
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await index.text()).toBe(PAGE);

    const script = await host.fetch("/assets/app-1234.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect(await script.text()).toBe(SCRIPT);

    const runs = await host.fetch("/agents/assistant/shadowed/runs");
    expect(runs.status).toBe(200);
    expect(await runs.json()).toEqual([]);

    const missing = await host.fetch("/assets/missing.js");
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();

    // The event socket, through the assets router, still declines per-message deflate.
    const events = await RecordingSocket.open(demoWsUrl(host, "/agents/assistant/assets"));
    expect(events.extensions).toBe("");
    events.close();
  });

  it("serves the plain page at /plain.html, with its query, without a redirect (and at /plain)", async () => {
    host = await startDemoHost(persist, { DEMO_PACE_MS: "0" }, { assetsDirectory: page });
    for (const path of ["/plain.html?chat=assets", "/plain?chat=assets"]) {
      const plain = await host.fetch(path, { redirect: "manual" });
      expect([path, plain.status, plain.headers.get("location")]).toEqual([path, 200, null]);
      expect(plain.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await plain.text()).toBe(PLAIN_PAGE);
    }
  });

  it("answers / with a one-line hint when no page is built, the agents all the same", async () => {
    host = await startDemoHost(persist, { DEMO_PACE_MS: "0" });

    const index = await host.fetch("/");
    expect(index.status).toBe(404);
    expect(await index.text()).toMatch(
      /^agent-tools demo: the page is not built\. Build it with `node web\/build\.mjs`/,
    );

    const messages = await host.fetch("/agents/assistant/no-page/messages");
    expect(messages.status).toBe(200);
    expect(await messages.json()).toEqual([]);
  });

  it("still takes the page as the former WEB_ASSETS binding (readWebAssets), serving it as static assets", async () => {
    const assets = await readWebAssets(page);
    if (!assets) throw new Error("readWebAssets found no index.html");
    host = await startDemoHost(persist, { DEMO_PACE_MS: "0", [WEB_ASSETS_BINDING]: assets });
    const index = await host.fetch("/");
    expect(await index.text()).toBe(PAGE);
    await host.dispose();

    // A record made by hand (not read by readWebAssets) is written out first.
    host = await startDemoHost(persist, {
      [WEB_ASSETS_BINDING]: { "/index.html": { contentType: "text/html; charset=utf-8", body: PAGE } },
    });
    const written = await host.fetch("/");
    expect(written.status).toBe(200);
    expect(await written.text()).toBe(PAGE);
  });
});
