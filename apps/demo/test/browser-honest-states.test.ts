/// <reference lib="dom" />
// Issue 36 (items 1–3, 6) in Chromium: what the page says stays true. A cancelled child is not "started in the
// background"; after Clear runs an answer names no raw run id, a background entry still reads as its run (name,
// status, outcome) and a call this tab cancelled still says so, after a reload too; the usage line under an answer
// (with the Assistant's own share) survives a reload and shows in a tab opened later; a tool called twice leaves axe's
// `landmark-unique` clean.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/honest-states/.

import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { formatTokens } from "../web/src/format.js";
import {
  axeViolations,
  browserSuite,
  hasChromium,
  type StoredMessage,
  seriousAxeViolations,
  WAIT_MS,
} from "./browser-harness.js";

type StoredUsage = { inputTokens: number; outputTokens: number; runs: number; own?: StoredUsage };

describe.skipIf(!hasChromium)("the demo page in Chromium: honest states", () => {
  // Test knob: each Researcher holds after its 4th text delta until it is cancelled or released: Cancel lands while it
  // runs, however slow the machine.
  const suite = browserSuite("honest-states", { DEMO_PACE_MS: "15", DEMO_HOLD_AFTER: "Researcher:4" });
  const { chat, pageErrors } = suite;
  const screenshot = (page: Page, name: string) => suite.screenshot(page, name);

  const tool = (page: Page, name: string) =>
    page.locator(".tool").filter({ has: page.locator(".tool-name").getByText(name, { exact: true }) });
  // biome-ignore lint/performance/useDomNodeTextContent: what is on screen, not what the DOM holds
  const visibleText = (page: Page) => page.evaluate(() => document.body.innerText);
  const tray = (page: Page) => page.getByRole("complementary", { name: "Background runs" });
  const clearRuns = async (page: Page) => {
    await tray(page).getByRole("button", { name: "Clear runs" }).click();
    await expect.poll(() => page.locator("article.run").count(), { timeout: WAIT_MS }).toBe(0);
  };

  it("a child cancelled by you is not 'started in the background'", async () => {
    const page = await chat.open("cancelled-child", suite.context.pages()[0]);
    await chat.send(page, "research cats");
    const researcher = page.locator('article.run[data-agent-type="Researcher"][data-status="running"]');
    await researcher.waitFor();
    await page.getByRole("button", { name: "Cancel Researcher" }).click();
    await page.locator('article.run[data-agent-type="Researcher"][data-status="aborted"]').waitFor();
    await chat.replyEnded(page);
    expect(await tool(page, "research").locator(".tool-state").textContent()).toBe("cancelled by you");
    expect(await visibleText(page)).not.toContain("in the background");
    await tray(page).getByText("No background runs.").waitFor();
    await screenshot(page, "cancelled-child");
  });

  it("after Clear runs: no raw run id, the background entry reads as its run, 'cancelled by you' stays; after a reload too", async () => {
    const page = suite.context.pages()[0] as Page;
    await chat.send(page, "import data in the background");
    const entry = page.locator("li[data-background-run-id]");
    await entry.locator(".bg-reply").getByText("Update on your background task").waitFor();
    const runId = (await entry.getAttribute("data-background-run-id")) ?? "";
    /** The words of the answer that started the import. */
    const answerText = async () =>
      (await page.locator("li.msg.assistant").last().locator(".text").allInnerTexts()).join(" ");
    expect(runId).toMatch(/^background:/);
    const before = {
      line: (await entry.locator(".bg-line").textContent()) ?? "",
      answer: await answerText(),
    };
    expect(before.line).toContain("Background import");
    expect(before.line).toContain("Imported 500 rows");
    expect(await visibleText(page)).not.toContain(runId);

    await clearRuns(page);
    for (const step of ["cleared", "cleared-reloaded"]) {
      if (step === "cleared-reloaded") {
        await page.reload();
        await entry.locator(".bg-reply").waitFor();
        await chat.replyEnded(page);
      }
      expect(await visibleText(page)).not.toContain(runId);
      expect(await answerText()).toBe(before.answer);
      // The entry still names the run and says how it ended, not the notice's raw words.
      const line = (await entry.locator(".bg-line").textContent()) ?? "";
      expect(line).toContain("Background import");
      expect(line).toContain("completed");
      expect(line).toContain("Imported 500 rows");
      expect(line).not.toContain("Background task");
      await screenshot(page, step);
      // The call this tab cancelled says so while this tab lives (a reload forgets what this tab did).
      if (step === "cleared") {
        expect(await tool(page, "research").locator(".tool-state").textContent()).toBe("cancelled by you");
      }
    }
    expect(pageErrors).toEqual([]);
  });

  it("the usage under an answer, with the Assistant's own share, survives a reload and shows in a tab opened later", async () => {
    const page = await chat.open("usage");
    await chat.send(page, "research cats");
    const researcher = page.locator('article.run[data-agent-type="Researcher"][data-status="running"]');
    await researcher.waitFor();
    await suite.demo.releaseHold((await researcher.getAttribute("data-run-id")) ?? "");
    await chat.replyEnded(page);
    await page.locator("li.msg.assistant").last().getByText("Here is what I found").waitFor();
    // What the server stored with the answer: the turn's whole tree, and the Assistant's own model calls.
    const answer = (await chat.storedOf("usage")).at(-1) as StoredMessage;
    const usage = answer.parts.find((part) => part.type === "data-agent-usage") as { data?: StoredUsage } | undefined;
    const total = usage?.data;
    const own = total?.own;
    expect(total?.runs).toBe(2);
    expect(own).toBeDefined();
    const ownTokens = (own?.inputTokens ?? 0) + (own?.outputTokens ?? 0);
    const totalTokens = (total?.inputTokens ?? 0) + (total?.outputTokens ?? 0);
    expect(ownTokens).toBeGreaterThan(0);
    expect(ownTokens).toBeLessThan(totalTokens);
    const expected = `This answer spent: ${formatTokens(totalTokens)} tokens · 2 runs (the Assistant itself: ${formatTokens(ownTokens)})`;
    const line = (tab: Page) => tab.locator(`li[data-message-id="${answer.id}"] .msg-usage`);
    await expect.poll(() => line(page).textContent(), { timeout: WAIT_MS }).toBe(expected);

    await page.reload();
    await line(page).waitFor();
    expect(await line(page).textContent()).toBe(expected);
    const later = await chat.open("usage");
    await line(later).waitFor();
    expect(await line(later).textContent()).toBe(expected);
    await screenshot(later, "usage-in-a-later-tab");
    await later.close();
  });

  it("a tool called twice in a chat leaves axe's landmark-unique clean", async () => {
    const page = await chat.open("twice");
    for (const topic of ["research cats", "research dogs"]) {
      await chat.send(page, topic);
      const researcher = page.locator('article.run[data-agent-type="Researcher"][data-status="running"]');
      await researcher.waitFor();
      await suite.demo.releaseHold((await researcher.getAttribute("data-run-id")) ?? "");
      await chat.replyEnded(page);
    }
    expect(await tool(page, "research").count()).toBe(2);
    expect((await axeViolations(page)).map((violation) => violation.id)).not.toContain("landmark-unique");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "tool-called-twice");
    await page.close();
  });
});
