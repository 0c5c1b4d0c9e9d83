/// <reference lib="dom" />
// Background runs on the demo page in Chromium: the tray (beside the chat, or behind the header's badge on a phone),
// a background run's completion told to the chat as one entry without the raw run id, and a background run cancelled
// from the tray saying who cancelled it.

import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { browserSuite, hasChromium, type StoredMessage, seriousAxeViolations, WAIT_MS } from "./browser-harness.js";

type BackgroundRun = { runId: string; status: string };

describe.skipIf(!hasChromium)("the demo page in Chromium: background runs", () => {
  // Test knob: each Importer holds in its first batch (its second text delta) until its run is cancelled or the test
  // releases it: the tray shows it running, and Cancel lands, however slow the machine.
  const { demo, context, pageErrors, screenshot } = browserSuite("background", {
    DEMO_PACE_MS: "15",
    DEMO_HOLD_AFTER: "Importer:2",
  });
  let page: Page;

  const base = (chat: string) => `/agents/assistant/${chat}`;
  const open = async (chat: string) => {
    await page.goto(new URL(`/?chat=${chat}`, demo.url).toString());
    await page.getByText("No messages yet").waitFor();
  };
  const send = async (text: string) => {
    await page.getByRole("textbox", { name: "Message" }).fill(text);
    await page.keyboard.press("Enter");
  };
  const tray = () => page.getByRole("complementary", { name: "Background runs" });
  // biome-ignore lint/performance/useDomNodeTextContent: what is on screen, not what the DOM holds
  const visibleText = () => page.evaluate(() => document.body.innerText);
  /** The chat's items: messages and background entries (an entry's own parts are not items). */
  const items = () =>
    page
      .locator("ol.messages > li")
      .evaluateAll((elements) =>
        elements.map((element) => element.getAttribute("data-background-run-id") ?? element.getAttribute("data-role")),
      );

  beforeAll(async () => {
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
  });

  it("a background import runs in the tray; its completion adds one chat entry, without the raw run id", async () => {
    const chat = "background-done";
    await open(chat);
    await send("import data in the background");
    const trayCard = tray().locator('article.run[data-agent-type="Importer"]');
    await tray().locator('article.run[data-agent-type="Importer"][data-status="running"]').waitFor();
    const runId = (await trayCard.getAttribute("data-run-id")) ?? "";
    expect(runId).toMatch(/^background:/);
    await tray().getByText("1 running · 1 in all").waitFor();
    // The header's badge counts it (it opens the tray on a narrow screen; hidden beside a tray always shown).
    expect(await page.locator("button.tray-badge").evaluate((button) => button.textContent)).toBe(
      "Background1: 1 running, 1 in all",
    );
    // The tool call says where the run went, not its id.
    await page
      .getByRole("group", { name: "Tool call: startBackgroundImport" })
      .getByText("Started “Background import”")
      .waitFor();
    await screenshot(page, "background-running");

    await demo.releaseHold(runId);
    await tray().locator(`article.run[data-run-id="${runId}"][data-status="completed"]`).waitFor();
    // The server tells the chat (a milestone, the completion) and the model answers it: one entry for all of it.
    await expect
      .poll(
        async () =>
          (await demo.fetchJson<StoredMessage[]>(`${base(chat)}/messages`)).map(
            (message) => message.metadata?.source ?? message.role,
          ),
        { timeout: WAIT_MS },
      )
      .toEqual(["user", "assistant", "agent-tool:detached", "background-import", "assistant:server-turn"]);
    const entry = page.locator(`li[data-background-run-id="${runId}"]`);
    await entry.getByText("Update on your background task").waitFor();
    expect(await items()).toEqual(["user", "assistant", runId]);
    expect(await entry.locator(".bg-line").textContent()).toContain("Background import");
    expect(await entry.locator(".bg-line").textContent()).toContain("Imported 500 rows");
    expect(await entry.locator(".bg-milestones li").count()).toBe(1);
    expect(await visibleText()).not.toContain(runId);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "background-done");
  });

  it("Cancel in the tray: the run ends cancelled by you, focus on its Details, told once in the chat", async () => {
    const chat = "background-cancel";
    await open(chat);
    await send("start a background import");
    const running = tray().locator('article.run[data-agent-type="Importer"][data-status="running"]');
    await running.waitFor();
    const runId = (await running.getAttribute("data-run-id")) ?? "";
    const trayCard = tray().locator(`article.run[data-run-id="${runId}"]`);
    await trayCard.getByRole("button", { name: "Cancel Background import" }).click();
    await tray().locator(`article.run[data-run-id="${runId}"][data-status="aborted"]`).waitFor();
    await tray().getByText("0 running · 1 in all").waitFor();
    await trayCard.locator(".run-line").getByText("Cancelled by you").waitFor();
    await expect
      .poll(
        () =>
          trayCard
            .getByRole("button", { name: "Details of Background import: its own conversation" })
            .evaluate((element) => element === element.ownerDocument.activeElement),
        { timeout: WAIT_MS },
      )
      .toBe(true);
    // The detached delivery tells the chat once, and the model answers it: one entry, saying who cancelled.
    const completionId = `agent-tool:detached:${runId}:aborted`;
    await expect
      .poll(
        async () => {
          const messages = await demo.fetchJson<StoredMessage[]>(`${base(chat)}/messages`);
          const at = messages.findIndex((message) => message.id === completionId);
          return at < 0 ? [] : messages.slice(at).map((message) => message.role);
        },
        { timeout: WAIT_MS },
      )
      .toEqual(["user", "assistant"]);
    const entry = page.locator(`li[data-background-run-id="${runId}"]`);
    await entry.locator(".bg-reply").waitFor();
    await entry.locator(".bg-line").getByText("Cancelled by you").waitFor();
    expect((await items()).filter((item) => item === runId)).toHaveLength(1);
    expect(await visibleText()).not.toContain(runId);
    const background = await demo.fetchJson<BackgroundRun[]>(`${base(chat)}/background`);
    expect(background).toEqual([expect.objectContaining({ runId, status: "aborted" })]);
    await screenshot(page, "background-cancelled");
    expect(pageErrors).toEqual([]);
  });
});
