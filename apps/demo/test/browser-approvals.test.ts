/// <reference lib="dom" />
// Issue 25.1 in Chromium: a tool that needs approval in a grandchild shows on its agent-tool card — which tool, its
// input, which child asks (the path as agent types), Approve and Deny (with an optional reason) — in every tab, keyboard
// reachable and labelled (axe clean); an answer in flight turns the buttons off without moving anything, a failed one
// says why; approving from another tab, after a restart of the runtime, lets the same run go on, and every tab shows
// the answered approval as its status. The plain page (stock `useChat`) shows the same panel from the tool part's
// preliminary output. The panel's wording helpers are checked first, without a browser.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/approvals/.

import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { approvalAsker, approvalInputText, approvalOutcome } from "../web/src/approval-format.js";
import { browserSuite, chatPage, hasChromium, seriousAxeViolations, WAIT_MS } from "./browser-harness.js";

/** The demo's prompt whose grandchild (the Editor's Writer) asks approval to run its `saveFile` tool. */
const PROMPT = "write this: cats sleep sixteen hours a day";
const TOOL = "saveFile";
/** Who asks, from the Assistant's card: the Editor run, then its Writer. */
const ASKER = "Editor › Writer";
const CHAT = "browser-approvals";

describe("the approval panel's wording", () => {
  it("shows the input as pretty JSON, cut with what was left out counted; the asker as a path of agent types", () => {
    expect(approvalInputText({ path: "notes.md", lines: 2 })).toBe('{\n  "path": "notes.md",\n  "lines": 2\n}');
    expect(approvalInputText("plain text")).toBe("plain text");
    expect(approvalInputText(undefined)).toBe("(no input)");
    const long = approvalInputText({ text: "x".repeat(5_000) });
    expect(long.length).toBeLessThan(1_300);
    expect(long).toMatch(/\n… \(\d+ more characters\)$/);
    const many = approvalInputText(Array.from({ length: 100 }, (_, index) => index));
    expect(many.split("\n")).toHaveLength(25);
    expect(approvalAsker("Planner", { path: [{ agentType: "Writer", runId: "w1" }] })).toBe("Planner › Writer");
    expect(approvalAsker("Writer", { path: [] })).toBe("Writer");
    expect(approvalOutcome({ status: "denied", reason: "Not that file" })).toBe("Denied: Not that file");
    expect(approvalOutcome({ status: "approved" })).toBe("Approved");
  });
});

describe.skipIf(!hasChromium)("approvals at any depth on the demo page, in Chromium", () => {
  const { demo, context, pageErrors, screenshot } = browserSuite("approvals", { DEMO_PACE_MS: "15" });
  let tabA: Page;
  let tabB: Page;
  const chat = chatPage(
    () => demo,
    () => context,
    pageErrors,
  );

  const pending = (page: Page) => page.locator('section.approval[data-status="pending"]');
  const approvalIn = (page: Page, approvalId: string) =>
    page.locator(`section.approval[data-approval-id="${approvalId}"]`);
  const isFocused = (locator: Locator) =>
    locator.evaluate((element) => element === element.ownerDocument.activeElement);
  const heightOf = async (locator: Locator) => (await locator.boundingBox())?.height ?? -1;

  beforeAll(async () => {
    tabA = await chat.open(CHAT, context.pages()[0]);
    tabB = await chat.open(CHAT);
  });

  it("shows the grandchild's request on its card in every tab: tool, input, who asks, labelled buttons; axe clean", async () => {
    await chat.send(tabA, PROMPT);
    for (const page of [tabA, tabB]) {
      const panel = pending(page);
      await panel.waitFor();
      expect(await panel.getByRole("heading").textContent()).toBe(`Approval needed: ${TOOL}`);
      // A grandchild asks: the card's run (the Editor), then the child that asks (its Writer).
      expect(await panel.locator(".approval-asker").textContent()).toBe(`Asked by ${ASKER}`);
      const card = panel.locator("xpath=ancestor::article[contains(@class, 'run')]");
      expect(await card.getAttribute("data-agent-type")).toBe("Editor");
      expect(await card.locator(".badge").textContent()).toBe("waiting for approval");
      // The input, as pretty JSON, in a labelled region.
      const input = panel.getByRole("region", { name: `Input of ${TOOL}, asked by ${ASKER}` });
      expect(JSON.parse((await input.textContent()) ?? "")).toEqual({
        path: "notes.md",
        content: expect.stringContaining("cats sleep sixteen hours a day"),
      });
      expect(await panel.getByRole("button", { name: "Approve" }).getAttribute("aria-disabled")).toBe("false");
      expect(await panel.getByRole("button", { name: "Deny" }).getAttribute("aria-disabled")).toBe("false");
    }
    // Keyboard: the input region, the reason, Deny, Approve — in that order.
    const panel = pending(tabA);
    await panel.getByRole("region").focus();
    await tabA.keyboard.press("Tab");
    expect(await isFocused(panel.getByRole("textbox", { name: "Reason for denying (optional)" }))).toBe(true);
    await tabA.keyboard.press("Tab");
    expect(await isFocused(panel.getByRole("button", { name: "Deny" }))).toBe(true);
    await tabA.keyboard.press("Tab");
    expect(await isFocused(panel.getByRole("button", { name: "Approve" }))).toBe(true);
    expect(await seriousAxeViolations(tabA)).toEqual([]);
    await screenshot(tabA, "pending");
  });

  it("says why an answer failed and leaves the buttons on; while one is in flight they are off and nothing moves", async () => {
    const panel = pending(tabA);
    const approve = panel.getByRole("button", { name: /^Approv/ });
    // The server fails: the panel says so, the buttons stay usable.
    await tabA.route("**/approve/**", (route) => route.fulfill({ status: 500, body: "the parent is busy" }));
    const before = await heightOf(panel);
    await approve.click();
    await expect
      .poll(() => panel.locator(".approval-note").textContent(), { timeout: WAIT_MS })
      .toBe("Could not answer: Answering the approval failed: HTTP 500 — the parent is busy");
    expect(await approve.getAttribute("aria-disabled")).toBe("false");
    expect(await heightOf(panel)).toBe(before);
    await tabA.unroute("**/approve/**");

    // An answer held in flight: both buttons off, the label says so, the panel keeps its size.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await tabA.route("**/approve/**", async (route) => {
      await held;
      await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ answered: false }) });
    });
    await approve.click();
    await expect.poll(() => approve.textContent(), { timeout: WAIT_MS }).toBe("Approving…");
    expect(await approve.getAttribute("aria-disabled")).toBe("true");
    expect(await panel.getByRole("button", { name: "Deny" }).getAttribute("aria-disabled")).toBe("true");
    expect(await heightOf(panel)).toBe(before);
    await screenshot(tabA, "in-flight");
    release();
    // Not taken (the stand-in said so): the panel says it, and the approval is still pending.
    await expect
      .poll(() => panel.locator(".approval-note").textContent(), { timeout: WAIT_MS })
      .toBe("It was already answered (in another tab, or it expired).");
    await tabA.unroute("**/approve/**");
    expect(await pending(tabA).count()).toBe(1);
  });

  it("shows the request again after a restart, and approving it from the other tab lets the run go on in every tab", async () => {
    const approvalId = (await pending(tabA).getAttribute("data-approval-id")) ?? "";
    expect(approvalId).not.toBe("");
    await demo.restart();
    // A fresh load of the page after the restart: the request comes back from the run's durable log.
    await tabA.reload();
    await approvalIn(tabA, approvalId).and(pending(tabA)).waitFor();
    await approvalIn(tabB, approvalId).and(pending(tabB)).waitFor();

    // Tab B answers, by keyboard.
    const panelB = approvalIn(tabB, approvalId);
    await panelB.getByRole("button", { name: "Approve" }).focus();
    await tabB.keyboard.press("Enter");
    for (const page of [tabA, tabB]) {
      await approvalIn(page, approvalId).and(page.locator('[data-status="approved"]')).waitFor();
      expect(await approvalIn(page, approvalId).locator(".approval-outcome").textContent()).toBe("Approved");
    }
    // Focus was on Approve, which is gone: it is on the outcome now, not lost.
    expect(await isFocused(panelB.locator(".approval-outcome"))).toBe(true);
    // The run goes on from where it was, and the reply ends in both tabs.
    await chat.replyEnded(tabA);
    await chat.replyEnded(tabB);
    expect(await pending(tabA).count()).toBe(0);
    // What the tree spent: on the Editor's card (its Writer included), and under the answer (the whole turn).
    for (const page of [tabA, tabB]) {
      const card = approvalIn(page, approvalId).locator("xpath=ancestor::article[1]");
      expect(await card.locator(".usage").textContent()).toMatch(/^Spent: [\d.]+k? tokens · 1 run$/);
      const answerUsage = page.locator('li[data-role="assistant"] .msg-usage').last();
      expect(await answerUsage.textContent()).toMatch(
        /^This answer spent: [\d.]+k? tokens · 2 runs \(the Assistant itself: [\d.]+k?\)$/,
      );
    }
    expect(await seriousAxeViolations(tabB)).toEqual([]);
    expect(pageErrors).toEqual([]);
    await screenshot(tabB, "approved");
  });

  it("denies with a reason typed and sent from the keyboard; the card shows it", async () => {
    await chat.send(tabA, PROMPT);
    const panel = pending(tabA);
    await panel.waitFor();
    const approvalId = (await panel.getAttribute("data-approval-id")) ?? "";
    await panel.getByRole("textbox", { name: "Reason for denying (optional)" }).fill("Not that file");
    await tabA.keyboard.press("Enter");
    for (const page of [tabA, tabB]) {
      const answered = approvalIn(page, approvalId);
      await answered.and(page.locator('[data-status="denied"]')).waitFor();
      expect(await answered.locator(".approval-outcome").textContent()).toBe("Denied: Not that file");
    }
    await chat.replyEnded(tabA);
    expect(await seriousAxeViolations(tabA)).toEqual([]);
    await screenshot(tabA, "denied");
  });

  it("on the plain page (stock useChat), shows the request from the tool's preliminary output and answers it", async () => {
    const plain = await context.newPage();
    plain.on("pageerror", (error) => pageErrors.push(error.message));
    await plain.goto(new URL(`/plain.html?chat=${CHAT}`, demo.url).toString());
    await plain.getByRole("heading", { level: 1, name: "Plain useChat" }).waitFor();
    await plain.getByRole("textbox", { name: "Message" }).fill(PROMPT);
    await plain.keyboard.press("Enter");
    const panel = pending(plain);
    await panel.waitFor();
    expect(await panel.getByRole("heading").textContent()).toBe(`Approval needed: ${TOOL}`);
    expect(await panel.locator(".approval-asker").textContent()).toBe(`Asked by ${ASKER}`);
    expect(await seriousAxeViolations(plain)).toEqual([]);
    await screenshot(plain, "plain-pending");
    const approvalId = (await panel.getAttribute("data-approval-id")) ?? "";
    await panel.getByRole("button", { name: "Approve" }).click();
    await approvalIn(plain, approvalId).and(plain.locator('[data-status="approved"]')).waitFor();
    await plain.getByRole("button", { name: "Send" }).and(plain.locator(":enabled")).waitFor();
    expect(pageErrors).toEqual([]);
    await screenshot(plain, "plain-approved");
  });
});
