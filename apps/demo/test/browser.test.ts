// The demo page end to end, in Debian's Chromium driven by playwright-core: the React page (web/) built with Vite,
// served by the demo Worker in workerd (Miniflare), chatting with the scripted assistant whose child runs stream.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots of every step are kept in
// apps/demo/test-results/screenshots/.

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentToolRunInfo } from "@agent-tools/core-runs/protocol";
import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import { type BrowserContext, chromium, type Page, type WebSocket as PlaywrightWebSocket } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebPage, readWebAssets, WEB_ASSETS_BINDING } from "../web/build.mjs";
import { startDemoHost } from "./harness/demo.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SCREENSHOTS = fileURLToPath(new URL("../test-results/screenshots/", import.meta.url));
const CHAT = "browser-e2e";
const BASE = `/agents/assistant/${CHAT}`;
/** Every wait is bounded by Playwright's own timeouts. */
const WAIT_MS = 15_000;

type StoredMessage = { id: string; role: string; parts: { type: string; text?: string }[] };
type DrillIn = { runId: string; messages: StoredMessage[]; run: { status: string } | null };

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `skipping the browser test: ${CHROMIUM} does not exist (CI installs Debian's chromium in .ci/run; ` +
      "locally: apt-get install -y chromium)",
  );
}

const textOf = (message: StoredMessage | undefined) =>
  (message?.parts ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("");

const occurrences = (text: string, segment: string) => text.split(segment).length - 1;

describe.skipIf(!hasChromium)("the demo page in Chromium", () => {
  let persist: PersistDirectory;
  let webBuild: string;
  let profile: string;
  let host: MiniflareHost;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const eventSocketUrls: string[] = [];
  /** runId → agentType of the runs the first turn started. */
  const runs = new Map<string, string>();
  let step = 0;

  const screenshot = async (name: string) => {
    step += 1;
    await page.screenshot({ path: join(SCREENSHOTS, `${String(step).padStart(2, "0")}-${name}.png`) });
  };
  const card = (agentType: string) => page.locator(`article.run[data-agent-type="${agentType}"]`);
  const cardText = async (agentType: string) => (await card(agentType).locator(".t-text").allTextContents()).join("");
  const drillIn = (agentType: string, runId: string) =>
    host.fetchJson<DrillIn>(`${BASE}/sub/${agentType}/${encodeURIComponent(runId)}`);

  beforeAll(async () => {
    await rm(SCREENSHOTS, { recursive: true, force: true });
    await mkdir(SCREENSHOTS, { recursive: true });
    persist = await createPersistDirectory("agent-tools-browser-");
    webBuild = await mkdtemp(join(tmpdir(), "agent-tools-web-"));
    profile = await mkdtemp(join(tmpdir(), "agent-tools-chromium-"));
    const assets = await readWebAssets(await buildWebPage({ outDir: webBuild }));
    if (!assets) throw new Error("the web build produced no index.html");
    // Small but non-zero: the scripted models stream word by word, visibly. The Researcher streams a little
    // slower (its own knob), so that a reload lands while it still runs.
    host = await startDemoHost(persist, {
      DEMO_PACE_MS: "15",
      RESEARCHER_PACE_MS: "100",
      // Background imports take seconds, so the tray test can cancel one while it runs.
      IMPORTER_PACE_MS: "200",
      [WEB_ASSETS_BINDING]: assets,
    });
    // A fresh, empty profile (Playwright passes it as --user-data-dir).
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 900 },
      timeout: 30_000,
    });
    context.setDefaultTimeout(WAIT_MS);
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("websocket", (socket: PlaywrightWebSocket) => {
      if (new URL(socket.url()).pathname === BASE) eventSocketUrls.push(socket.url());
    });
  });

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await host?.dispose();
    await persist?.remove();
    for (const folder of [webBuild, profile]) if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("serves the React page at / with its assets", async () => {
    await page.goto(new URL(`/?chat=${CHAT}`, host.url).toString());
    await expect.poll(() => page.title(), { timeout: WAIT_MS }).toBe(`agent-tools demo · ${CHAT}`);
    await page.getByRole("heading", { name: "agent-tools demo" }).waitFor();
    await page.getByText("No messages yet").waitFor();
    await page.getByText("events: live").waitFor();
    expect(
      await page
        .getByRole("textbox", { name: "Message" })
        .evaluate((input) => input === input.ownerDocument.activeElement),
    ).toBe(true);
    await screenshot("empty-chat");
  });

  it("streams each child run under its tool call, siblings in order", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("research cats");
    await page.keyboard.press("Enter"); // Enter submits
    await page
      .getByRole("region", { name: "Tool call: research" })
      .locator('article[data-agent-type="Researcher"]')
      .waitFor();
    await page
      .getByRole("region", { name: "Tool call: summarize" })
      .locator('article[data-agent-type="Summarizer"]')
      .waitFor();

    // The Researcher's text grows while it streams.
    const researcher = card("Researcher");
    await researcher.locator(".t-text").first().waitFor();
    const before = (await cardText("Researcher")).length;
    await expect.poll(async () => (await cardText("Researcher")).length, { timeout: WAIT_MS }).toBeGreaterThan(before);
    expect(await researcher.getAttribute("data-status")).toBe("running");
    expect(await researcher.locator("progress").count()).toBe(1);
    await screenshot("streaming");

    // Tool calls appear in the order the model made them.
    const order = await page
      .locator("section.tool")
      .evaluateAll((sections) => sections.map((section) => section.getAttribute("aria-label")));
    expect(order).toEqual(["Tool call: research", "Tool call: summarize"]);
    for (const agentType of ["Researcher", "Summarizer"]) {
      const runId = await card(agentType).getAttribute("data-run-id");
      expect(runId).toBeTruthy();
      runs.set(runId ?? "", agentType);
    }
  });

  it("reloaded mid-run, shows the same timeline continuing without doubled text", async () => {
    const researcher = card("Researcher");
    const textBeforeReload = await cardText("Researcher");
    expect(await researcher.getAttribute("data-status")).toBe("running");
    await page.reload();
    await researcher.waitFor();
    // Still running after the reload: what follows is the same run going on, replayed then live.
    expect(await researcher.getAttribute("data-status")).toBe("running");
    await screenshot("after-reload");
    // The replayed timeline holds at least what was on screen before, and goes on to the end.
    await expect.poll(() => cardText("Researcher"), { timeout: WAIT_MS }).toContain(textBeforeReload.trim());
    await page.locator('article.run[data-agent-type="Researcher"][data-status="completed"]').waitFor();
    await page.locator('article.run[data-agent-type="Summarizer"][data-status="completed"]').waitFor();
    // The resumed turn ends with the assistant's answer (from the server's stored conversation).
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await page.locator("li.msg.user").getByText("research cats").waitFor();
    await screenshot("completed");

    // Each child's text on the page is exactly its stored answer: nothing doubled by the replay.
    for (const [runId, agentType] of runs) {
      const stored = await drillIn(agentType, runId);
      const storedText = textOf(stored.messages.find((message) => message.role === "assistant"));
      expect(storedText.length).toBeGreaterThan(0);
      expect(await cardText(agentType)).toBe(storedText);
    }
    const researcherText = await cardText("Researcher");
    expect(occurrences(researcherText, "Looking that up.")).toBe(1);
    expect(occurrences(researcherText, "That is what the sources say.")).toBe(1);
    expect(await page.locator("article.run").count()).toBe(2);

    // The chat shows the stored conversation once (the answer is stored when its turn ends, just after its text).
    await expect
      .poll(async () => (await host.fetchJson<StoredMessage[]>(`${BASE}/messages`)).length, { timeout: WAIT_MS })
      .toBe(2);
    const stored = await host.fetchJson<StoredMessage[]>(`${BASE}/messages`);
    const shown = await page
      .locator("li.msg")
      .evaluateAll((items) =>
        items.map((item) => [item.getAttribute("data-role"), item.getAttribute("data-message-id")]),
      );
    expect(shown).toEqual(stored.map((message) => [message.role, message.id]));
    const answer = textOf(stored.at(-1));
    expect(occurrences(answer, "Here is what I found")).toBe(1);
  });

  it("reconnects the events socket with its cursors, receiving nothing twice", async () => {
    const textsBefore = await Promise.all(["Researcher", "Summarizer"].map(cardText));
    const socketsBefore = eventSocketUrls.length;
    await page.getByRole("button", { name: "Reconnect events" }).click();
    await expect.poll(() => eventSocketUrls.length, { timeout: WAIT_MS }).toBeGreaterThan(socketsBefore);
    await page.getByText("events: live").waitFor();
    const url = new URL(eventSocketUrls.at(-1) ?? "");
    const cursors = JSON.parse(url.searchParams.get("agentToolCursors") ?? "[]") as [string, number, number][];
    expect(cursors.map(([runId]) => runId).sort()).toEqual([...runs.keys()].sort());
    for (const [, sequence, revision] of cursors) {
      expect(sequence).toBeGreaterThan(0);
      expect(revision).toBeGreaterThan(0);
    }
    expect(await Promise.all(["Researcher", "Summarizer"].map(cardText))).toEqual(textsBefore);
  });

  it("drills in to a child's own conversation", async () => {
    const details = page.getByRole("button", { name: "Details of Researcher: its own conversation" });
    await details.click();
    const dialog = page.getByRole("dialog", { name: "Researcher — its own conversation" });
    await dialog.waitFor();
    await dialog.locator('li[data-role="user"]').getByText("research cats").waitFor();
    await dialog.locator('li[data-role="assistant"]').getByText("Findings on").waitFor();
    await dialog.locator('li[data-role="assistant"]').getByText("lookup").waitFor();
    await screenshot("drill-in");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    // Focus goes back to the button that opened it.
    expect(await details.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);
  });

  it("refuses a guessed drill-in URL", async () => {
    const statuses = await page.evaluate(
      async ([base, runId]) => {
        const guessed = await fetch(`${base}/sub/Researcher/${encodeURIComponent("agent-tool:guessed")}`);
        const wrongType = await fetch(`${base}/sub/Importer/${encodeURIComponent(runId)}`);
        const real = await fetch(`${base}/sub/Researcher/${encodeURIComponent(runId)}`);
        return [guessed.status, wrongType.status, real.status];
      },
      [BASE, [...runs].find(([, agentType]) => agentType === "Researcher")?.[0] ?? ""] as const,
    );
    expect(statuses).toEqual([404, 404, 200]);
  });

  it("clears the runs: the timelines disappear and /runs is empty", async () => {
    expect((await host.fetchJson<AgentToolRunInfo[]>(`${BASE}/runs`)).length).toBe(2);
    await page.getByRole("button", { name: "Clear runs" }).click();
    await page.locator("article.run").first().waitFor({ state: "detached" });
    await expect.poll(() => page.locator("article.run").count(), { timeout: WAIT_MS }).toBe(0);
    expect(await host.fetchJson<AgentToolRunInfo[]>(`${BASE}/runs`)).toEqual([]);
    // The conversation stays; only the runs went.
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await screenshot("cleared");
    expect(pageErrors).toEqual([]);
  });

  it("shows a background import in the tray; Cancel ends it aborted, told once in the chat", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("start a background import");
    await page.keyboard.press("Enter");
    const tray = page.getByRole("complementary", { name: /Background runs/ });
    const trayCard = tray.locator('article.run[data-agent-type="Importer"]');
    await tray.locator('article.run[data-agent-type="Importer"][data-status="running"]').waitFor();
    const runId = (await trayCard.getAttribute("data-run-id")) ?? "";
    expect(runId).not.toBe("");
    await tray.getByText("1 running · 1 in all").waitFor();
    await screenshot("background-running");

    await trayCard.getByRole("button", { name: /^Cancel / }).click();
    await tray.locator(`article.run[data-run-id="${runId}"][data-status="aborted"]`).waitFor();
    await tray.getByText("0 running · 1 in all").waitFor();
    // The detached delivery tells the chat once, and the model answers it.
    const completionId = `agent-tool:detached:${runId}:aborted`;
    await expect
      .poll(
        async () => {
          const messages = await host.fetchJson<Array<{ id: string; role: string }>>(`${BASE}/messages`);
          const at = messages.findIndex((message) => message.id === completionId);
          return at < 0 ? [] : messages.slice(at).map((message) => message.role);
        },
        { timeout: WAIT_MS },
      )
      .toEqual(["user", "assistant"]);
    // The page shows the model's answer after the completion, without a reload.
    await expect
      .poll(() => page.locator("li.msg").last().getAttribute("class"), { timeout: WAIT_MS })
      .toMatch(/\bassistant\b/);
    await expect.poll(() => page.locator("li.msg").count(), { timeout: WAIT_MS }).toBe(6);
    const background = await host.fetchJson<Array<{ runId: string; status: string }>>(`${BASE}/background`);
    expect(background).toEqual([expect.objectContaining({ runId, status: "aborted" })]);
    await screenshot("background-cancelled");
    expect(pageErrors).toEqual([]);
  });
});
