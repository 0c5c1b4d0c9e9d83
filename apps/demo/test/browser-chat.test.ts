/// <reference lib="dom" />
// The demo page in one tab, end to end, in Debian's Chromium (playwright-core): the React page (web/) built with
// Vite, served by the demo Worker in workerd, chatting with the scripted Assistant whose child runs stream. Each UI
// fix of the page is checked here (scrolling, collapsed cards, formatted structured output, tool headers in step with
// their runs, focus, contrast, headings, a phone-sized screen, developer controls), and axe-core runs in the page.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots of every step are kept in
// apps/demo/test-results/screenshots/chat/.

import type { AgentToolRunInfo } from "@agent-tools/core-runs/protocol";
import type { Locator, Page, WebSocket as PlaywrightWebSocket } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browserSuite,
  contrastRatioOf,
  hasChromium,
  occurrences,
  replyEnded as replyOver,
  type StoredMessage,
  seriousAxeViolations,
  textOf,
  WAIT_MS,
} from "./browser-harness.js";

const CHAT = "browser-chat";
const BASE = `/agents/assistant/${CHAT}`;

type DrillIn = { runId: string; messages: StoredMessage[]; run: { status: string } | null };

/**
 * Installed in every document of the test (a reload too): records each run card's disclosure state as it changes,
 * every state React committed — also two in one task — from the mutation records' old values. `cardStates()` reads
 * them: for each card element (by run id), the values `aria-expanded` took, in order.
 */
function recordCardStates(): void {
  type Entry = { runId: string; element: Element; olds: (string | null)[] };
  const entries: Entry[] = [];
  const byElement = new WeakMap<Element, Entry>();
  const entryOf = (toggle: Element) => {
    let entry = byElement.get(toggle);
    if (!entry) {
      entry = { runId: toggle.closest("article.run")?.getAttribute("data-run-id") ?? "", element: toggle, olds: [] };
      byElement.set(toggle, entry);
      entries.push(entry);
    }
    return entry;
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "attributes" && record.attributeName === "aria-expanded") {
        entryOf(record.target as Element).olds.push(record.oldValue);
      }
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        for (const toggle of node.querySelectorAll(".run-toggle")) entryOf(toggle);
      }
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["aria-expanded"],
    attributeOldValue: true,
  });
  (window as unknown as { cardStates: () => Record<string, string[][]> }).cardStates = () => {
    const states: Record<string, string[][]> = {};
    for (const { runId, element, olds } of entries) {
      const values = [...olds, element.getAttribute("aria-expanded")].filter(
        (value, index, all): value is string => value !== null && value !== all[index - 1],
      );
      states[runId] = [...(states[runId] ?? []), values];
    }
    return states;
  };
}

describe.skipIf(!hasChromium)("the demo page in Chromium: one tab", () => {
  const { demo, context, pageErrors, screenshot } = browserSuite("chat", {
    // The scripted models stream word by word, visibly; the Importer's batches take a second each, so the page sees
    // its progress move in steps.
    DEMO_PACE_MS: "15",
    IMPORTER_PACE_MS: "200",
    // Test knob: each Researcher holds after its 4th text delta (the first word of its findings) and again after its
    // 6th, each Importer in its third batch (its bar at 40 %), each time until its run is cancelled or the test
    // releases it: a reload, a Stop or a Cancel lands while the run is live, however slow the machine.
    DEMO_HOLD_AFTER: "Researcher:4,6;Importer:4",
  });
  let page: Page;
  const eventSocketUrls: string[] = [];
  /** runId → agentType of the runs the first turn started. */
  const runs = new Map<string, string>();

  const shot = (name: string) => screenshot(page, name);
  const card = (agentType: string) => page.locator(`article.run[data-agent-type="${agentType}"]`);
  const cardText = async (agentType: string) =>
    (await card(agentType).first().locator(".t-text").allTextContents()).join("");
  const tool = (name: string) => page.getByRole("group", { name: `Tool call: ${name}` });
  const toolStates = () => page.locator(".tool-state").allTextContents();
  const isFocused = (locator: Locator) =>
    locator.evaluate((element) => element === element.ownerDocument.activeElement);
  const stored = () => demo.fetchJson<StoredMessage[]>(`${BASE}/messages`);
  /** Each card's disclosure states since the page loaded, by run id (see `recordCardStates`). */
  const cardStates = () =>
    page.evaluate(() => (window as unknown as { cardStates: () => Record<string, string[][]> }).cardStates());
  const send = async (text: string) => {
    await page.getByRole("textbox", { name: "Message" }).fill(text);
    await page.keyboard.press("Enter");
  };
  /** The reply is over: the composer's Stop is off again. */
  const replyEnded = () => replyOver(page);
  /** The visible part of an element, in the viewport between the sticky header and the composer. */
  const isInView = (locator: Locator) =>
    locator.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const header = document.querySelector("header.top")?.getBoundingClientRect().bottom ?? 0;
      const composer = document.querySelector("form.composer")?.getBoundingClientRect().top ?? window.innerHeight;
      return box.top >= header - 1 && box.top < composer && box.bottom > header;
    });

  beforeAll(async () => {
    await context.addInitScript(recordCardStates);
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("websocket", (socket: PlaywrightWebSocket) => {
      if (new URL(socket.url()).pathname === BASE) eventSocketUrls.push(socket.url());
    });
  });

  it("serves the page: the empty chat, focus in the message box, no developer controls, axe-clean", async () => {
    await page.goto(new URL(`/?chat=${CHAT}`, demo.url).toString());
    await expect.poll(() => page.title(), { timeout: WAIT_MS }).toBe(`agent-tools demo · ${CHAT}`);
    await page.getByRole("heading", { level: 1, name: "agent-tools demo" }).waitFor();
    await page.getByText("No messages yet").waitFor();
    expect(await isFocused(page.getByRole("textbox", { name: "Message" }))).toBe(true);
    // Developer controls only with ?dev=1.
    expect(await page.getByRole("button", { name: "Reconnect events" }).count()).toBe(0);
    expect(await page.getByText(/events: /).count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot("empty-chat");
  });

  it("streams each child run under its tool call; the tool header runs with its run; the badge reads at 4.5:1", async () => {
    await send("research cats");
    await tool("research").locator('article[data-agent-type="Researcher"]').waitFor();
    await tool("summarize").locator('article[data-agent-type="Summarizer"]').waitFor();
    // The user's message is in view.
    expect(await isInView(page.locator("li.msg.user").last())).toBe(true);

    // The Researcher's text grows while it streams, and its tool call says so. It holds at the first word of its
    // findings; released, it streams on and holds again two words later, still running.
    const researcher = card("Researcher");
    await expect.poll(() => cardText("Researcher"), { timeout: WAIT_MS }).toContain("Findings");
    const before = (await cardText("Researcher")).length;
    await demo.releaseHold((await researcher.getAttribute("data-run-id")) ?? "");
    await expect.poll(async () => (await cardText("Researcher")).length, { timeout: WAIT_MS }).toBeGreaterThan(before);
    expect(await researcher.getAttribute("data-status")).toBe("running");
    expect(await tool("research").locator(".tool-state").textContent()).toBe("running…");
    expect(await researcher.getByRole("progressbar").count()).toBe(1);
    expect(await contrastRatioOf(page, 'article.run[data-status="running"] .badge')).toBeGreaterThanOrEqual(4.5);
    // Headings in order (h1, h2, h3) and nothing serious for axe, while it streams.
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot("streaming");

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

  it("reloaded mid-run: the question stays, the same timeline goes on with nothing doubled, finished cards fold to one line", async () => {
    const researcher = card("Researcher");
    const textBeforeReload = await cardText("Researcher");
    expect(await researcher.getAttribute("data-status")).toBe("running");
    await page.reload();
    // The user's message is there at once (stored when its turn started), and the turn goes on, replayed then live.
    await page.locator("li.msg.user").getByText("research cats").waitFor();
    await researcher.waitFor();
    expect(await researcher.getAttribute("data-status")).toBe("running");
    await shot("after-reload");
    await expect.poll(() => cardText("Researcher"), { timeout: WAIT_MS }).toContain(textBeforeReload.trim());
    // The Researcher held through the reload: let it finish.
    await demo.releaseHold((await researcher.getAttribute("data-run-id")) ?? "");
    await page.locator('article.run[data-agent-type="Researcher"][data-status="completed"]').waitFor();
    await page.locator('article.run[data-agent-type="Summarizer"][data-status="completed"]').waitFor();
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await replyEnded();
    expect(await toolStates()).toEqual(["done", "done"]);

    // Finished cards are one line: the name (a collapsed disclosure), the status and the outcome.
    for (const agentType of ["Researcher", "Summarizer"]) {
      const toggle = card(agentType).getByRole("button", { name: agentType, exact: true });
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      const box = await card(agentType).boundingBox();
      expect(box?.height).toBeLessThan(64);
      expect(await card(agentType).locator(".run-body").isHidden()).toBe(true);
    }
    await shot("completed-collapsed");

    // Each child's text, opened, is exactly its stored answer: nothing doubled by the replay.
    await card("Researcher").getByRole("button", { name: "Researcher", exact: true }).click();
    for (const [runId, agentType] of runs) {
      if (agentType !== "Researcher") continue;
      const child = await demo.fetchJson<DrillIn>(`${BASE}/sub/${agentType}/${encodeURIComponent(runId)}`);
      const storedText = textOf(child.messages.find((message) => message.role === "assistant"));
      expect(storedText.length).toBeGreaterThan(0);
      expect(await cardText(agentType)).toBe(storedText);
    }
    const researcherText = await cardText("Researcher");
    expect(occurrences(researcherText, "Looking that up.")).toBe(1);
    expect(occurrences(researcherText, "That is what the sources say.")).toBe(1);
    expect(await page.locator("article.run").count()).toBe(2);

    // The Summarizer's structured output reads as a title and bullets, not as JSON.
    const summarizer = card("Summarizer");
    await summarizer.getByRole("button", { name: "Summarizer", exact: true }).click();
    await summarizer.locator(".struct-title").getByText('Summary of "research cats"').waitFor();
    expect(await summarizer.locator(".struct-list li").count()).toBe(3);
    expect(await summarizer.locator(".run-body").textContent()).not.toContain('{"title"');
    await shot("summarizer-formatted");

    // The chat shows the stored conversation, once.
    const messages = await stored();
    expect(messages).toHaveLength(2);
    const shown = await page
      .locator("li.msg")
      .evaluateAll((items) =>
        items.map((item) => [item.getAttribute("data-role"), item.getAttribute("data-message-id")]),
      );
    expect(shown).toEqual(messages.map((message) => [message.role, message.id]));
    expect(occurrences(textOf(messages.at(-1)), "Here is what I found")).toBe(1);
  });

  it("reloaded once the runs finished: each card starts folded and never opens on its own", async () => {
    await page.reload();
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await expect.poll(() => page.locator("article.run").count(), { timeout: WAIT_MS }).toBe(2);
    await page.locator('article.run[data-agent-type="Researcher"][data-status="completed"]').waitFor();
    await page.locator('article.run[data-agent-type="Summarizer"][data-status="completed"]').waitFor();
    await replyEnded();
    // The runs' frames are replayed after the stored conversation shows: a card must not open for their `started`.
    expect(await cardStates()).toEqual(Object.fromEntries([...runs.keys()].map((runId) => [runId, [["false"]]])));
  });

  it("drills in by keyboard: focus on Close, kept there while the conversation loads, inside the dialog, then back on Details", async () => {
    const details = page.getByRole("button", { name: "Details of Researcher: its own conversation" });
    await details.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Researcher — its own conversation" });
    await dialog.waitFor();
    const close = dialog.getByRole("button", { name: "Close" });
    expect(await isFocused(close)).toBe(true);
    await dialog.locator('li[data-role="user"]').getByText("research cats").waitFor();
    await dialog.locator('li[data-role="assistant"]').getByText("Findings on").waitFor();
    await dialog.locator('li[data-role="assistant"]').getByText("lookup").waitFor();
    expect(await isFocused(close)).toBe(true);
    for (let step = 0; step < 4; step += 1) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot("drill-in");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await isFocused(details)).toBe(true);
  });

  it("refuses a guessed drill-in URL", async () => {
    const researcherRunId = [...runs].find(([, agentType]) => agentType === "Researcher")?.[0] ?? "";
    const statuses = await page.evaluate(
      async ([base, runId]) => {
        const guessed = await fetch(`${base}/sub/Researcher/${encodeURIComponent("agent-tool:guessed")}`);
        const wrongType = await fetch(`${base}/sub/Importer/${encodeURIComponent(runId)}`);
        const real = await fetch(`${base}/sub/Researcher/${encodeURIComponent(runId)}`);
        return [guessed.status, wrongType.status, real.status];
      },
      [BASE, researcherRunId] as const,
    );
    expect(statuses).toEqual([404, 404, 200]);
  });

  it("on send scrolls to the message sent; progress glides and never falls back to unknown", async () => {
    // Watch the Importer's bar from before it exists: every value it shows, in order (null: no value).
    await page.evaluate(() => {
      const seen: (string | null)[] = [];
      (window as unknown as { progressSeen: (string | null)[] }).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('article.run[data-agent-type="Importer"] [role="progressbar"]');
        if (!bar) return;
        const value = bar.getAttribute("aria-valuenow");
        if (seen.length === 0 || seen[seen.length - 1] !== value) seen.push(value);
      }).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ["aria-valuenow"],
      });
    });
    // From the top of the conversation: each frame, where the message sent is from the top of the view (the
    // sticky header's bottom), from the moment it shows until the reply ended.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      const sentAfter = document.querySelectorAll("li.msg.user").length;
      const offsets: number[] = [];
      const watch = window as unknown as { sentOffsets: number[]; stopWatching?: boolean };
      watch.sentOffsets = offsets;
      const frame = () => {
        const users = document.querySelectorAll("li.msg.user");
        const header = document.querySelector("header.top")?.getBoundingClientRect().bottom ?? 0;
        if (users.length > sentAfter)
          offsets.push(Math.round((users[users.length - 1]?.getBoundingClientRect().top ?? 0) - header));
        if (!watch.stopWatching) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    await send("import data");
    await page.locator("li.msg.user").getByText("import data").waitFor();
    await expect.poll(() => isInView(page.locator("li.msg.user").last()), { timeout: WAIT_MS }).toBe(true);

    // The Importer holds at 40 %; released, it goes on to the end.
    const importer = card("Importer");
    await importer.locator('[role="progressbar"][aria-valuenow="40"]').waitFor();
    await shot("import-progress");
    const fill = importer.locator(".bar-fill");
    expect(await fill.evaluate((element) => parseFloat(getComputedStyle(element).transitionDuration))).toBeGreaterThan(
      0,
    );
    await demo.releaseHold((await importer.getAttribute("data-run-id")) ?? "");
    await page.locator('article.run[data-agent-type="Importer"][data-status="completed"]').waitFor();
    await replyEnded();
    await page.locator("li.msg.assistant").last().getByText("Here is what I found").waitFor();
    const offsets = await page.evaluate(() => {
      const watch = window as unknown as { sentOffsets: number[]; stopWatching?: boolean };
      watch.stopWatching = true;
      return watch.sentOffsets;
    });
    // The message sent is at the top of the view (the scroll padding below the header: 12 px) from its first frame
    // on, and stays there while the answer grows below it: it never jumps.
    expect(offsets.length).toBeGreaterThan(10);
    expect(offsets.filter((offset) => offset < 0 || offset > 16)).toEqual([]);
    // The Importer's card was live when it first showed: open, then folded once its run ended.
    const importerId = (await card("Importer").getAttribute("data-run-id")) ?? "";
    expect((await cardStates())[importerId]).toEqual([["true", "false"]]);
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: (string | null)[] }).progressSeen);
    const firstValue = seen.findIndex((value) => value !== null);
    expect(firstValue).toBeGreaterThanOrEqual(0);
    const values = seen.slice(firstValue);
    expect(values).not.toContain(null);
    const numbers = values.map(Number);
    expect(numbers).toEqual([...numbers].sort((left, right) => left - right));
    expect(numbers.at(-1)).toBe(100);
    expect(new Set(numbers).size).toBeGreaterThanOrEqual(4);
    expect(await tool("importData").locator(".tool-state").textContent()).toBe("done");
  });

  it("Cancel by keyboard: focus lands on the card's Details, and the card and its tool call say you cancelled", async () => {
    await send("import data again");
    const importer = page.locator('article.run[data-agent-type="Importer"]').last();
    await expect.poll(() => importer.getAttribute("data-status"), { timeout: WAIT_MS }).toBe("running");
    const runId = (await importer.getAttribute("data-run-id")) ?? "";
    const cancel = importer.getByRole("button", { name: "Cancel Importer" });
    await cancel.focus();
    await page.keyboard.press("Enter");
    const cancelled = page.locator(`article.run[data-run-id="${runId}"]`);
    await expect.poll(() => cancelled.getAttribute("data-status"), { timeout: WAIT_MS }).toBe("aborted");
    await expect
      .poll(() => isFocused(cancelled.getByRole("button", { name: "Details of Importer: its own conversation" })), {
        timeout: WAIT_MS,
      })
      .toBe(true);
    await cancelled.locator(".run-line").getByText("Cancelled by you").waitFor();
    await replyEnded();
    const section = page.locator("section.tool", { has: cancelled });
    expect(await section.locator(".tool-state").textContent()).toBe("cancelled by you");
    await shot("cancelled-by-you");
  });

  it("Stop mid-reply: no tool is left running…, and the cards say the reply was stopped, by you", async () => {
    await send("research dogs");
    const researcher = page.locator('article.run[data-agent-type="Researcher"]').last();
    await expect.poll(() => researcher.getAttribute("data-status"), { timeout: WAIT_MS }).toBe("running");
    await researcher.locator(".t-text").first().waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await replyEnded();
    await expect.poll(() => researcher.getAttribute("data-status"), { timeout: WAIT_MS }).toBe("aborted");
    const section = tool("research").last();
    await expect.poll(() => section.locator(".tool-state").textContent(), { timeout: WAIT_MS }).toBe("stopped by you");
    expect(await toolStates()).not.toContain("running…");
    await researcher.locator(".run-line").getByText("Stopped by you", { exact: true }).waitFor();
    // One wording for one fact: the call says it once, as its header does, in the server's words too.
    expect(await section.locator(".tool-error").count()).toBe(0);
    expect(await section.textContent()).not.toMatch(/before this tool finished|with the reply/);
    // The server ended the turn as stopped, and stored what it had.
    await expect.poll(async () => (await stored()).at(-1)?.role, { timeout: WAIT_MS }).toBe("assistant");
    await shot("stopped");
  });

  it("with ?dev=1 shows the developer controls; Reconnect events resumes with cursors, receiving nothing twice", async () => {
    await page.goto(new URL(`/?chat=${CHAT}&dev=1`, demo.url).toString());
    await page.getByText("events: live").waitFor();
    // Every run the server holds is on the page (replayed on connect) before the reconnect.
    const runCount = (await demo.fetchJson<AgentToolRunInfo[]>(`${BASE}/runs`)).length;
    await expect.poll(() => page.locator("article.run").count(), { timeout: WAIT_MS }).toBe(runCount);
    const textsBefore = await page.locator("article.run .t-text").allTextContents();
    const socketsBefore = eventSocketUrls.length;
    await page.getByRole("button", { name: "Reconnect events" }).click();
    await expect.poll(() => eventSocketUrls.length, { timeout: WAIT_MS }).toBeGreaterThan(socketsBefore);
    await page.getByText("events: live").waitFor();
    const url = new URL(eventSocketUrls.at(-1) ?? "");
    const cursors = JSON.parse(url.searchParams.get("agentToolCursors") ?? "[]") as [string, number, number][];
    expect(cursors.map(([runId]) => runId)).toEqual(expect.arrayContaining([...runs.keys()]));
    for (const [, sequence, revision] of cursors) {
      expect(sequence).toBeGreaterThan(0);
      expect(revision).toBeGreaterThan(0);
    }
    expect(await page.locator("article.run").count()).toBe(runCount);
    expect(await page.locator("article.run .t-text").allTextContents()).toEqual(textsBefore);
    await shot("dev-controls");
  });

  it("on a 390×844 screen: the tray behind a header badge, 44 px targets, Jump to latest, a reachable Close", async () => {
    await page.goto(new URL(`/?chat=${CHAT}`, demo.url).toString());
    await page.setViewportSize({ width: 390, height: 844 });
    await replyEnded();
    await page.locator("li.msg").last().waitFor();
    // No sideways scrolling.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // The tray is behind the header's badge.
    const tray = page.getByRole("complementary", { name: "Background runs" });
    expect(await tray.isVisible()).toBe(false);
    const badge = page.getByRole("button", { name: /^Background/ });
    await badge.click();
    await tray.waitFor({ state: "visible" });
    expect(await isFocused(tray.getByRole("button", { name: "Close" }))).toBe(true);
    await shot("phone-tray");
    await page.keyboard.press("Escape");
    await tray.waitFor({ state: "hidden" });
    expect(await isFocused(badge)).toBe(true);

    // Every control is at least 44 × 44 px.
    const small = await page.evaluate(() =>
      [...document.querySelectorAll("button, a[href], input, select, textarea")]
        .filter((element) => (element as HTMLElement).offsetParent !== null)
        .map((element) => ({
          text: element.textContent?.trim() || element.getAttribute("aria-label"),
          box: element.getBoundingClientRect(),
        }))
        .filter(({ box }) => box.width < 44 || box.height < 44)
        .map(({ text, box }) => `${text}: ${Math.round(box.width)}×${Math.round(box.height)}`),
    );
    expect(small).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // Away from the end, "Jump to latest" takes you there (and focus to the message box).
    await page.evaluate(() => window.scrollTo(0, 0));
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await jump.waitFor();
    await shot("phone-jump-to-latest");
    await jump.click();
    await expect.poll(() => isInView(page.locator("li.msg").last()), { timeout: WAIT_MS }).toBe(true);
    await jump.waitFor({ state: "detached" });
    expect(await isFocused(page.getByRole("textbox", { name: "Message" }))).toBe(true);

    // The dialog fills the screen, its Close in view and on top.
    await page.getByRole("button", { name: "Details of Researcher: its own conversation" }).first().click();
    const dialog = page.getByRole("dialog", { name: /Researcher/ });
    await dialog.locator('li[data-role="assistant"]').first().waitFor();
    const close = dialog.getByRole("button", { name: "Close" });
    const reachable = await close.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return (
        box.top >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth && element.contains(hit)
      );
    });
    expect(reachable).toBe(true);
    await dialog.locator(".drill-body").evaluate((element) => element.scrollTo(0, element.scrollHeight));
    expect(await close.isVisible()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot("phone-drill-in");
    await close.click();
    await dialog.waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("clears the runs: the timelines disappear and /runs is empty; the conversation stays", async () => {
    expect((await demo.fetchJson<AgentToolRunInfo[]>(`${BASE}/runs`)).length).toBeGreaterThan(0);
    await page
      .getByRole("complementary", { name: "Background runs" })
      .getByRole("button", { name: "Clear runs" })
      .click();
    await expect.poll(() => page.locator("article.run").count(), { timeout: WAIT_MS }).toBe(0);
    expect(await demo.fetchJson<AgentToolRunInfo[]>(`${BASE}/runs`)).toEqual([]);
    await page.locator("li.msg.assistant").getByText("Here is what I found").first().waitFor();
    await shot("cleared");
    expect(pageErrors).toEqual([]);
  });

  // Stock useChat alone showing a child's text inside its tool card: browser-plain.test.ts.
});
