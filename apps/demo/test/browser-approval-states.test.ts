/// <reference lib="dom" />
// Issue 36 item 5 in Chromium: an approval's every state is told truly. A waiting approval is announced to a screen
// reader (a live region) and said by the card's progress line, its badge (folded too) and Details; a denied write is
// not a green "completed"; Stop and Cancel during an approval do not read "Denied"; the tab whose answer lost a race
// is told; answering while the server is down says so plainly, the buttons waiting for the connection, not forever.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/approval-states/.

import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserSuite, hasChromium, seriousAxeViolations, WAIT_MS } from "./browser-harness.js";

/** The demo's prompt whose grandchild (the Editor's Writer) asks approval to run its `saveFile` tool. */
const PROMPT = "write this: cats sleep sixteen hours a day";

describe.skipIf(!hasChromium)("approval states on the demo page, in Chromium", () => {
  const suite = browserSuite("approval-states", { DEMO_PACE_MS: "15" });
  const { chat, pageErrors } = suite;

  const pending = (page: Page) => page.locator('section.approval[data-status="pending"]');
  const editorCard = (page: Page) => page.locator('article.run[data-agent-type="Editor"]').last();
  /** Ask, and wait for the approval in `page`; resolves its id. */
  const ask = async (page: Page) => {
    await chat.send(page, PROMPT);
    await pending(page).waitFor();
    return (await pending(page).getAttribute("data-approval-id")) ?? "";
  };
  const approval = (page: Page, approvalId: string) =>
    page.locator(`section.approval[data-approval-id="${approvalId}"]`);

  it("announces a waiting approval; the card's progress, its badge (folded too) and Details say it waits", async () => {
    const page = await chat.open("waiting", suite.context.pages()[0]);
    // The live region is on the page before anything is to be announced (a screen reader follows it from then on).
    const announcer = page.locator('[aria-live="polite"].announcer');
    expect(await announcer.count()).toBe(1);
    expect(await announcer.textContent()).toBe("");
    await ask(page);
    await expect
      .poll(() => announcer.textContent(), { timeout: WAIT_MS })
      .toBe("Editor › Writer is waiting for your approval to run saveFile.");
    const card = editorCard(page);
    expect(await card.locator(".progress-text").textContent()).toBe("Waiting for your approval: saveFile");
    expect(await card.locator(".badge").textContent()).toBe("waiting for approval");
    // Folded: the badge stays, the approval panel too.
    await card.getByRole("button", { name: "Editor", exact: true }).click();
    expect(await card.getByRole("button", { name: "Editor", exact: true }).getAttribute("aria-expanded")).toBe("false");
    expect(await card.locator(".badge").textContent()).toBe("waiting for approval");
    expect(await pending(page).isVisible()).toBe(true);
    // Details says so too.
    await card.getByRole("button", { name: "Details of Editor: its own conversation" }).click();
    const dialog = page.getByRole("dialog", { name: "Editor — its own conversation" });
    await dialog.waitFor();
    expect(await dialog.locator(".badge").textContent()).toBe("waiting for approval");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await suite.screenshot(page, "waiting-details");
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("a denied write is not a green 'completed': the card and its tool call say the write was denied", async () => {
    const page = suite.context.pages()[0] as Page;
    await pending(page).getByRole("button", { name: "Deny" }).click();
    await page.locator('article.run[data-agent-type="Editor"][data-status="completed"]').waitFor();
    await chat.replyEnded(page);
    const card = editorCard(page);
    // Folded to one line: the mark is not the green tick, and the words say what happened.
    expect(await card.locator(".status-mark").textContent()).toBe("⊘completed, saveFile denied:");
    expect(await card.locator(".status-mark").getAttribute("class")).not.toContain("r-completed");
    const tool = page.locator("li.msg.assistant").last().locator("section.tool");
    expect(await tool.locator(".tool-state").textContent()).toBe("done, saveFile denied");
    expect(await tool.locator(".tool-state").getAttribute("class")).not.toContain("t-done");
    await suite.screenshot(page, "denied");
  });

  it("Cancel and Stop during an approval do not read 'Denied': the approval was not answered", async () => {
    const page = suite.context.pages()[0] as Page;
    const cancelled = await ask(page);
    await editorCard(page).getByRole("button", { name: "Cancel Editor" }).click();
    await approval(page, cancelled).locator(".approval-outcome").waitFor();
    await chat.replyEnded(page);
    expect(await approval(page, cancelled).locator(".approval-outcome").textContent()).toBe(
      "Not answered: cancelled by you",
    );
    expect(await page.locator("li.msg.assistant").last().locator("section.tool").textContent()).not.toContain(
      "background",
    );

    const stopped = await ask(page);
    await page.getByRole("button", { name: "Stop" }).click();
    await approval(page, stopped).locator(".approval-outcome").waitFor();
    await chat.replyEnded(page);
    expect(await approval(page, stopped).locator(".approval-outcome").textContent()).toBe(
      "Not answered: stopped by you",
    );
    expect(await seriousAxeViolations(page)).toEqual([]);
    await suite.screenshot(page, "cancelled-and-stopped");
  });

  it("the tab whose answer lost a race is told, after the other tab's answer arrived", async () => {
    const tabA = await chat.open("race");
    const tabB = await chat.open("race");
    const approvalId = await ask(tabA);
    await approval(tabB, approvalId).and(pending(tabB)).waitFor();
    // Tab B's Approve is held on its way; tab A denies meanwhile; then B's request goes on to the server.
    let held: Route | undefined;
    let onHeld = () => {};
    const isHeld = new Promise<void>((resolve) => {
      onHeld = resolve;
    });
    await tabB.route("**/approve/**", (route) => {
      held = route;
      onHeld();
    });
    await approval(tabB, approvalId).getByRole("button", { name: "Approve" }).click();
    await isHeld;
    await approval(tabA, approvalId).getByRole("button", { name: "Deny" }).click();
    await approval(tabB, approvalId).and(tabB.locator('[data-status="denied"]')).waitFor();
    await held?.continue();
    await expect
      .poll(() => approval(tabB, approvalId).locator(".approval-outcome").textContent(), { timeout: WAIT_MS })
      .toBe("Denied (your Approve came too late: it was already answered)");
    expect(await approval(tabA, approvalId).locator(".approval-outcome").textContent()).toBe("Denied");
    await tabB.unroute("**/approve/**");
    await chat.replyEnded(tabA);
    await suite.screenshot(tabB, "lost-race");
    await tabA.close();
    await tabB.close();
  });

  it("answering while the server cannot be reached says so plainly; the buttons wait for the connection, then work", async () => {
    const page = await chat.open("offline");
    const approvalId = await ask(page);
    const panel = approval(page, approvalId);
    const approve = panel.getByRole("button", { name: "Approve" });

    // A request that never reaches the server: said in plain words, and the buttons stay usable.
    await page.route("**/approve/**", (route) => route.abort("internetdisconnected"));
    await approve.click();
    await expect
      .poll(() => panel.locator(".approval-note").textContent(), { timeout: WAIT_MS })
      .toBe("Could not reach the server: your answer was not sent. Try again.");
    expect(await approve.getAttribute("aria-disabled")).toBe("false");
    await page.unroute("**/approve/**");

    // The server down: the buttons wait for the connection and say why; nothing is sent meanwhile.
    await suite.demo.down();
    await page.getByText("Connection lost.").waitFor();
    await expect.poll(() => approve.getAttribute("aria-disabled"), { timeout: WAIT_MS }).toBe("true");
    expect(await panel.locator(".approval-note").textContent()).toBe(
      "The connection is lost: you can answer once it is back.",
    );
    await suite.screenshot(page, "offline");
    await suite.demo.up();
    await expect.poll(() => approve.getAttribute("aria-disabled"), { timeout: WAIT_MS }).toBe("false");
    expect(await panel.locator(".approval-note").textContent()).toBe("");
    await approve.click();
    await approval(page, approvalId).and(page.locator('[data-status="approved"]')).waitFor();
    await chat.replyEnded(page);
    expect(pageErrors).toEqual([]);
  });
});
