/// <reference lib="dom" />
// What the browser tests of the demo page share: Debian's Chromium through playwright-core, the page built with
// Vite and served by the demo Worker in workerd (Miniflare), behind a local TCP proxy with a fixed port — so a
// restart of the runtime (a new Miniflare on the same persistence folder, which listens on a new port) keeps the
// page's origin, as a deploy or an eviction would — and axe-core injected into the page.

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { buildWebPage } from "../web/build.mjs";
import { releaseHold, startDemoHost } from "./harness/demo.js";
import { standIn } from "./harness/stand-in.js";

export const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Two tabs of one test both stream: neither may be throttled as a background tab.
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
];
/** Every wait on the page is bounded by this (generous: a loaded 2-core machine runs workerd and Chromium). */
export const WAIT_MS = 30_000;

export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `skipping the browser tests: ${CHROMIUM} does not exist (CI installs Debian's chromium in .ci/run; ` +
      "locally: apt-get install -y chromium)",
  );
}

export type StoredMessage = {
  id: string;
  role: string;
  metadata?: { source?: string };
  parts: { type: string; text?: string; state?: string; output?: unknown }[];
};

export const textOf = (message: StoredMessage | undefined) =>
  (message?.parts ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("");

export const occurrences = (text: string, segment: string) => text.split(segment).length - 1;

/**
 * A TCP proxy on a fixed local port to wherever the demo runs now. While the runtime restarts, new connections wait
 * for it; connections to the old one end with it. While it is down (`refuse`), every connection is cut at once, as
 * a server that is away would.
 */
class StableOrigin {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #target: Promise<URL>;
  #resolveTarget: (url: URL) => void = () => {};
  #isRefusing = false;

  private constructor(server: Server, target: URL) {
    this.#server = server;
    this.#target = Promise.resolve(target);
  }

  static async open(target: URL): Promise<StableOrigin> {
    const server = createServer();
    const origin = new StableOrigin(server, target);
    server.on("connection", (client) => origin.#forward(client));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return origin;
  }

  get url(): URL {
    const address = this.#server.address();
    if (address === null || typeof address === "string") throw new Error("the proxy is not listening");
    return new URL(`http://127.0.0.1:${address.port}/`);
  }

  /** From now on new connections wait, until `resume(target)`. */
  pause(): void {
    this.#target = new Promise((resolve) => {
      this.#resolveTarget = resolve;
    });
  }

  resume(target: URL): void {
    this.#isRefusing = false;
    this.#resolveTarget(target);
    this.#target = Promise.resolve(target);
  }

  /** Cut every connection now, and every new one at once, until `resume(target)`. */
  refuse(): void {
    this.#isRefusing = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  #forward(client: Socket): void {
    if (this.#isRefusing) {
      client.destroy();
      return;
    }
    this.#sockets.add(client);
    client.on("close", () => this.#sockets.delete(client));
    client.on("error", () => client.destroy());
    client.pause();
    void this.#target.then((target) => {
      if (client.destroyed) return;
      const upstream = tcpConnect(Number(target.port), target.hostname);
      this.#sockets.add(upstream);
      upstream.on("close", () => {
        this.#sockets.delete(upstream);
        client.destroy();
      });
      upstream.on("error", () => upstream.destroy());
      client.on("close", () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** The demo Worker serving the built page, at a fixed origin that survives restarts. */
export type BrowserDemo = {
  /** The page's origin (the proxy's). */
  readonly url: URL;
  readonly host: MiniflareHost;
  /** A JSON route of the Worker, from the test (not through the page). */
  fetchJson<T>(path: string): Promise<T>;
  /**
   * Let child run `runId` past one hold of the `DEMO_HOLD_AFTER` test knob (src/agents/test-holds.ts): the one it
   * waits at now, or else the next one it reaches. A restart forgets what was released.
   */
  releaseHold(runId: string): Promise<void>;
  /** Stop the runtime and start it again on the same storage, as a deploy or an eviction would. */
  restart(): Promise<void>;
  /**
   * Take the runtime down, as a crash would (workerd killed), and keep it down: until `up()`, the page's origin cuts
   * every connection (its sockets drop, its requests fail).
   */
  down(): Promise<void>;
  /** Start the runtime again on the same storage, after `down()`: the origin accepts connections again. */
  up(): Promise<void>;
  dispose(): Promise<void>;
};

/** Build the page, boot the Worker with `bindings` on a fresh storage folder, and open a fixed origin to it. */
export async function startBrowserDemo(bindings: Record<string, string>): Promise<BrowserDemo> {
  const persist: PersistDirectory = await createPersistDirectory("agent-tools-browser-");
  const webBuild = await mkdtemp(join(tmpdir(), "agent-tools-web-"));
  await buildWebPage({ outDir: webBuild });
  const host = await startDemoHost(persist, bindings, { assetsDirectory: webBuild });
  const origin = await StableOrigin.open(host.url);
  return {
    url: origin.url,
    host,
    fetchJson: (path) => host.fetchJson(path),
    releaseHold: (runId) => releaseHold(host, runId),
    async restart() {
      origin.pause();
      await host.restart();
      origin.resume(host.url);
    },
    async down() {
      origin.refuse();
      await host.kill();
    },
    async up() {
      await host.restart();
      origin.resume(host.url);
    },
    async dispose() {
      await origin.close();
      await host.dispose();
      await persist.remove();
      await rm(webBuild, { recursive: true, force: true });
    },
  };
}

/**
 * What the tests do with the chat page, on `demo()` in `context()` (read when called: both are made in `beforeAll`):
 * open a chat (its page errors go to `pageErrors`), send with the keyboard, read what it shows and what is stored.
 */
export function chatPage(demo: () => BrowserDemo, context: () => BrowserContext, pageErrors: string[]) {
  return {
    /** The conversation the server stored. */
    storedOf: (chat: string) => demo().fetchJson<StoredMessage[]>(`/agents/assistant/${chat}/messages`),
    /** Open `?chat=<chat>` in `page` (default: a new tab) and wait for the page. */
    async open(chat: string, page?: Page): Promise<Page> {
      const tab = page ?? (await context().newPage());
      tab.on("pageerror", (error) => pageErrors.push(error.message));
      await tab.goto(new URL(`/?chat=${chat}`, demo().url).toString());
      await tab.getByRole("heading", { level: 1, name: "agent-tools demo" }).waitFor();
      return tab;
    },
    async send(page: Page, text: string): Promise<void> {
      await page.getByRole("textbox", { name: "Message" }).fill(text);
      await page.keyboard.press("Enter");
    },
    /** The ids of the messages shown, in order. */
    shownIds: (page: Page) =>
      page.locator("li.msg[data-message-id]").evaluateAll((items) => items.map((item) => item.dataset["messageId"])),
    /** The reply is over: the composer's Stop is off again. */
    replyEnded: (page: Page) => replyEnded(page),
  };
}

/**
 * What `browserSuite` sets up for a test file: `demo` and `context` stand for the running demo and browser context
 * (see `standIn`), valid from its `beforeAll` on.
 */
export type BrowserSuite = {
  readonly demo: BrowserDemo;
  readonly context: BrowserContext;
  /** The page errors of every tab `chat.open` opened. */
  readonly pageErrors: string[];
  readonly chat: ReturnType<typeof chatPage>;
  screenshot(page: Page, name: string): Promise<void>;
};

/**
 * The set-up of a browser test file: the demo with `bindings` and a Chromium, started before its tests and disposed
 * after them; screenshots go to apps/demo/test-results/screenshots/<suite>/.
 */
export function browserSuite(suite: string, bindings: Record<string, string>): BrowserSuite {
  let demo: BrowserDemo | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  let shoot: ((page: Page, name: string) => Promise<void>) | undefined;
  const pageErrors: string[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the browser suite is not started: use it inside a test");
    return value;
  };
  beforeAll(async () => {
    shoot = await screenshotFolder(suite);
    demo = await startBrowserDemo(bindings);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.dispose();
  });
  const context = () => started(browser).context;
  return {
    demo: standIn(() => started(demo)),
    context: standIn(context),
    pageErrors,
    chat: chatPage(() => started(demo), context, pageErrors),
    screenshot: (page, name) => started(shoot)(page, name),
  };
}

/** Resolves once no reply is in flight in `page`: the composer's Stop (always there) is off. */
export function replyEnded(page: Page): Promise<void> {
  return page.getByRole("button", { name: "Stop" }).and(page.locator('[aria-disabled="true"]')).waitFor();
}

/**
 * Record, from now on, the text of every alert (`role="alert"`) the page shows, however briefly: what a screen reader
 * announces. Resolves to a function that reads the record.
 */
export async function recordAlerts(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const shown: string[] = [];
    const record = () => {
      for (const alert of document.querySelectorAll('[role="alert"]')) {
        const text = alert.textContent ?? "";
        if (shown.at(-1) !== text) shown.push(text);
      }
    };
    new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
    record();
    (window as unknown as { __alertsShown: string[] }).__alertsShown = shown;
  });
  return () => page.evaluate(() => [...(window as unknown as { __alertsShown: string[] }).__alertsShown]);
}

/** A headless Chromium with a fresh profile; `close()` removes the profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "agent-tools-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    timeout: WAIT_MS,
  });
  context.setDefaultTimeout(WAIT_MS);
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go (git-ignored): apps/demo/test-results/screenshots/<suite>/. */
export async function screenshotFolder(suite: string): Promise<(page: Page, name: string) => Promise<void>> {
  const folder = fileURLToPath(new URL(`../test-results/screenshots/${suite}/`, import.meta.url));
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  let step = 0;
  return async (page, name) => {
    step += 1;
    await page.screenshot({ path: join(folder, `${String(step).padStart(2, "0")}-${name}.png`) });
  };
}

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] };

let axeSource: string | undefined;

/**
 * Run axe-core (injected into the page) on the whole document; resolves the violations of impact `serious` or
 * `critical`, each with the elements it found.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const violations = await axeViolations(page);
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}

/** Run axe-core (injected into the page) on the whole document; resolves every violation, whatever its impact. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<unknown> } }).axe;
    const results = (await axe.run(document, { resultTypes: ["violations"] })) as { violations: AxeViolation[] };
    return results.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((node) => ({ target: node.target })),
    }));
  });
}

/** The contrast ratio (WCAG) of an element's text colour on the background it sits on (the nearest opaque one). */
export function contrastRatioOf(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((element) => {
      const parse = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
      const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
        const channel = (value: number) => {
          const c = value / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      };
      let background: number[] | null = null;
      for (let node: Element | null = element; node && background === null; node = node.parentElement) {
        const color = parse(getComputedStyle(node).backgroundColor);
        if (color.length >= 3 && (color[3] === undefined || color[3] === 1)) background = color;
      }
      const foreground = luminance(parse(getComputedStyle(element).color));
      const back = luminance(background ?? [255, 255, 255]);
      return (Math.max(foreground, back) + 0.05) / (Math.min(foreground, back) + 0.05);
    });
}
