/// <reference lib="dom" />
// Issue 36 items 4 and 7 in Chromium: the composer and what sits over the conversation. A 3 MB paste is refused at the
// composer — nothing sent, nothing huge put on the page, the text kept — and a message the server refused as too
// large offers no Retry that would be refused again, while Discard gives the text back; Send never turns into Stop
// under your fingers when a background run completes; the connection banner and the composer's hints cover nothing
// of the conversation; the tray's folded cards keep their outcome readable on a phone.
//
// The page's freeze is measured by what it does, not by time: the largest text it puts into the page (a 3 MB text in
// a bubble is what froze it), the bytes its chat socket sends, and what it writes to the tab's storage.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/composer/.

import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserSuite, hasChromium, seriousAxeViolations } from "./browser-harness.js";

/** About 3 MB of words, as a paste of a long document would be. */
const PASTE = "All work and no play makes a long paste. ".repeat(75_000);

/**
 * Installed in every document: the length of the longest text node the page ever holds, and of what it writes to its
 * session storage (`window.pageWeights()`).
 */
function recordPageWeights(): void {
  const weights = { longestText: 0, longestStored: 0 };
  (window as unknown as { pageWeights: () => typeof weights }).pageWeights = () => weights;
  const measure = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      weights.longestText = Math.max(weights.longestText, node.textContent?.length ?? 0);
      return;
    }
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
      weights.longestText = Math.max(weights.longestText, text.textContent?.length ?? 0);
    }
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "characterData") measure(record.target);
      for (const node of record.addedNodes) measure(node);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
    weights.longestStored = Math.max(weights.longestStored, value.length);
    setItem.call(this, key, value);
  };
}

describe.skipIf(!hasChromium)("the demo page's composer and what covers the conversation, in Chromium", () => {
  // Test knob: each Importer holds in its first batch until released, so a background import ends when the test says.
  const suite = browserSuite("composer", { DEMO_PACE_MS: "15", DEMO_HOLD_AFTER: "Importer:2" });
  const { chat, pageErrors } = suite;

  const box = (page: Page) => page.getByRole("textbox", { name: "Message" });
  const weights = (page: Page) =>
    page.evaluate(() =>
      (window as unknown as { pageWeights: () => { longestText: number; longestStored: number } }).pageWeights(),
    );
  /** The largest frame the page sent on its chat socket, recorded from now on. */
  const recordChatFrames = (page: Page) => {
    const sent = { largest: 0 };
    page.on("websocket", (socket) => {
      if (!new URL(socket.url()).pathname.endsWith("/chat")) return;
      socket.on("framesent", (frame) => {
        sent.largest = Math.max(sent.largest, String(frame.payload).length);
      });
    });
    return sent;
  };
  /**
   * Whether an element, scrolled into view, is what the page shows where it is, across its width: nothing is over it
   * (hit-testing every element, also those that let clicks through, as a banner over the page may).
   */
  const isUncovered = (locator: Locator) =>
    locator.evaluate((element) => {
      element.scrollIntoView({ block: "nearest" });
      const hitAll = document.createElement("style");
      hitAll.textContent = "* { pointer-events: auto !important; }";
      document.head.append(hitAll);
      try {
        const box = element.getBoundingClientRect();
        return [0.1, 0.5, 0.9].every((at) => {
          const hit = document.elementFromPoint(box.left + box.width * at, box.top + box.height / 2);
          return hit !== null && element.contains(hit);
        });
      } finally {
        hitAll.remove();
      }
    });

  it("refuses a 3 MB paste at the composer: nothing sent, nothing huge on the page, the text kept", async () => {
    await suite.context.addInitScript(recordPageWeights);
    const page = await chat.open("paste", suite.context.pages()[0]);
    const frames = recordChatFrames(page);
    await page.getByText("No messages yet").waitFor();
    await box(page).fill(PASTE);
    await page.keyboard.press("Enter");
    const refusal = page.locator("form.composer").getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(
      "Too long to send: 3.1 MB; the limit is 1.0 MB. Shorten it and send again.",
    );
    // In the composer, in view. (Measured from the boxes: hit-testing restyles the page, which a 3 MB box makes slow.)
    const [said, composer] = await Promise.all([refusal.boundingBox(), page.locator("form.composer").boundingBox()]);
    const viewport = page.viewportSize()?.height ?? 0;
    expect(said !== null && composer !== null && said.y >= composer.y && said.y + said.height <= viewport).toBe(true);
    // Nothing sent, nothing stored, no bubble; the text is still in the box.
    expect(await page.locator("li.msg").count()).toBe(0);
    expect(await chat.storedOf("paste")).toEqual([]);
    expect((await box(page).inputValue()).length).toBe(PASTE.length);
    expect(frames.largest).toBeLessThan(10_000);
    const weight = await weights(page);
    expect(weight.longestText).toBeLessThan(10_000);
    expect(weight.longestStored).toBeLessThan(10_000);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Shortened, it goes.
    await box(page).fill("import data");
    await refusal.waitFor({ state: "detached" });
    await page.keyboard.press("Enter");
    await page.locator("li.msg.user").getByText("import data").waitFor();
    await page.locator('article.run[data-agent-type="Importer"][data-status="running"]').waitFor();
    const importer = page.locator('article.run[data-agent-type="Importer"]');
    await suite.demo.releaseHold((await importer.getAttribute("data-run-id")) ?? "");
    await chat.replyEnded(page);
    // A 3 MB payload crosses the test's protocol a few times: more room than a test that moves words.
  }, 120_000);

  it("a message the server refused as too large: no Retry that would be refused again; Discard gives the text back", async () => {
    const page = suite.context.pages()[0] as Page;
    // A message this tab sent earlier, which the server refused (kept in the tab's storage, as the page keeps it).
    const key = `agent-tools:unsent:${new URL("/agents/assistant/paste", suite.demo.url.toString().replace(/^http/, "ws"))}`;
    const record = {
      message: { id: "refused-1", role: "user", parts: [{ type: "text", text: PASTE }] },
      reason: "refused",
      error: "The message is too large (3.1 MB; the limit is 1.0 MB)",
    };
    await page.evaluate(([storageKey, value]) => sessionStorage.setItem(storageKey, value), [
      key,
      JSON.stringify([record]),
    ] as const);
    await page.reload();
    const mine = page.locator('li.msg[data-message-id="refused-1"]');
    await mine.getByText("Not sent").waitFor();
    // The bubble shows the start of it, and says how much is not shown: not a 600 000 px bubble.
    expect((await mine.boundingBox())?.height ?? Infinity).toBeLessThan(900);
    expect(await mine.locator(".text-clipped").textContent()).toMatch(/^… and \d[\d,]* more characters not shown$/);
    expect((await weights(page)).longestText).toBeLessThan(10_000);
    // It cannot be sent as it is: no Retry; the note says why and what to do.
    expect(await mine.getByRole("button", { name: "Retry" }).count()).toBe(0);
    expect(await mine.locator(".unsent-note").textContent()).toContain(
      "It is too long to send as it is: Discard puts it back in the message box, to shorten it.",
    );
    expect(await isUncovered(mine.getByRole("button", { name: "Discard" }))).toBe(true);
    await suite.screenshot(page, "refused-too-large");
    await mine.getByRole("button", { name: "Discard" }).click();
    await mine.waitFor({ state: "detached" });
    expect((await box(page).inputValue()).length).toBe(PASTE.length);
    expect(await page.evaluate((storageKey) => sessionStorage.getItem(storageKey), key)).toBeNull();
    await box(page).fill("");
  });

  it("Send stays Send while you type when a background run completes (no Send → Stop → Send)", async () => {
    const page = await chat.open("typing");
    await page.getByText("No messages yet").waitFor();
    await chat.send(page, "import data in the background");
    const tray = page.getByRole("complementary", { name: "Background runs" });
    const running = tray.locator('article.run[data-agent-type="Importer"][data-status="running"]');
    await running.waitFor();
    const runId = (await running.getAttribute("data-run-id")) ?? "";
    await chat.replyEnded(page);
    // Typing; the composer's buttons watched from now on.
    await box(page).fill("and then research cats");
    await page.evaluate(() => {
      const form = document.querySelector("form.composer") as HTMLFormElement;
      const labels: string[] = [];
      (window as unknown as { composerLabels: string[] }).composerLabels = labels;
      const note = () => {
        const label = [...form.querySelectorAll("button")]
          .map((button) => `${button.textContent}:${button.getAttribute("aria-disabled") ?? "enabled"}`)
          .join(" ");
        if (labels.at(-1) !== label) labels.push(label);
      };
      note();
      new MutationObserver(note).observe(form, { subtree: true, childList: true, attributes: true });
    });
    await suite.demo.releaseHold(runId);
    await page
      .locator(`li[data-background-run-id="${runId}"] .bg-reply`)
      .getByText("Update on your background task")
      .waitFor();
    await chat.replyEnded(page);
    const labels = await page.evaluate(() => (window as unknown as { composerLabels: string[] }).composerLabels);
    // The Send button never became something else, and never went away.
    for (const label of labels) expect(label.split(" ")[0]?.startsWith("Send:")).toBe(true);
    expect(await box(page).inputValue()).toBe("and then research cats");
    await box(page).fill("");
    await page.close();
  });

  it("neither the connection banner nor the composer's hint covers the conversation; the tray's outcomes read whole on a phone", async () => {
    const page = await chat.open("covers");
    const importTo = async (prompt: string) => {
      await chat.send(page, prompt);
      const importer = page.locator('article.run[data-agent-type="Importer"][data-status="running"]');
      await importer.waitFor();
      await suite.demo.releaseHold((await importer.getAttribute("data-run-id")) ?? "");
      await page.locator('article.run[data-agent-type="Importer"][data-status="completed"]').last().waitFor();
      await chat.replyEnded(page);
    };
    // The last item: an answer with its usage line.
    await importTo("import data");
    await page.locator("li.msg.assistant .msg-usage").last().waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await suite.demo.down();
    try {
      await page.getByText("Connection lost.").waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await isUncovered(page.locator("li.msg .text").first())).toBe(true);
      // Scrolled to the end: what the page says about sending is inside the composer, and the conversation, its
      // last usage line included, ends above the composer (the room it keeps is the composer's whole height).
      const layout = await page.evaluate(() => {
        window.scrollTo(0, document.documentElement.scrollHeight);
        const composer = (document.querySelector("form.composer") as HTMLElement).getBoundingClientRect();
        const said = [...document.querySelectorAll(".connection-banner p, .composer-hint")].map((element) =>
          element.getBoundingClientRect(),
        );
        const usage = [...document.querySelectorAll("li.msg.assistant .msg-usage")].at(-1)?.getBoundingClientRect();
        const conversation = (document.querySelector("ol.messages") as HTMLElement).getBoundingClientRect();
        return {
          said: said.length,
          saidInComposer: said.every((box) => box.top >= composer.top - 0.5 && box.bottom <= composer.bottom + 0.5),
          usageInView: usage !== undefined && usage.top >= 0 && usage.bottom <= composer.top + 0.5,
          conversationAboveComposer: conversation.bottom <= composer.top + 0.5,
        };
      });
      expect(layout).toEqual({ said: 1, saidInComposer: true, usageInView: true, conversationAboveComposer: true });
      // The composer, banner and both buttons, fits the phone's width.
      const outside = await page
        .locator("form.composer button, form.composer .connection-banner p")
        .evaluateAll(
          (elements) => elements.filter((element) => element.getBoundingClientRect().right > window.innerWidth).length,
        );
      expect(outside).toBe(0);
      await suite.screenshot(page, "down");
    } finally {
      await suite.demo.up();
    }
    await page.getByText("Connection lost.").waitFor({ state: "detached" });

    // A background run that completed, in the tray (beside the chat on a wide screen, behind its badge on a phone).
    await page.setViewportSize({ width: 1280, height: 900 });
    await importTo("import data in the background");
    await page.locator("li[data-background-run-id] .bg-reply").waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: /^Background/ }).click();
    const tray = page.getByRole("complementary", { name: "Background runs" });
    await tray.waitFor({ state: "visible" });
    const lines = tray.locator("article.run .run-line");
    expect(await lines.count()).toBeGreaterThan(0);
    for (const clipped of await lines.evaluateAll((elements) =>
      elements.map((element) => element.scrollWidth > element.clientWidth + 1),
    )) {
      expect(clipped).toBe(false);
    }
    expect(await tray.locator("article.run .run-line").first().textContent()).toBe("Imported 500 rows");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await suite.screenshot(page, "phone-tray");
    expect(pageErrors).toEqual([]);
  });
});
