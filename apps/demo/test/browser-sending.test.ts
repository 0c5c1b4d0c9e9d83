/// <reference lib="dom" />
// Sending, in Chromium (issue 23): a message whose send fails is never silently lost (shown "Not sent" with Retry and
// Discard, also after a reload; Retry delivers it once); Send is disabled with a banner while the connection is down,
// and a tool call's header agrees with its run's card meanwhile; a failed answer gets Retry, the last answer
// Regenerate, both by keyboard and axe-clean.
//
// The page is served through a fixed local origin (browser-harness.ts): `down()` kills the runtime and cuts every
// connection until `up()`, as an outage would.

import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  browserSuite,
  chatPage,
  hasChromium,
  recordAlerts,
  seriousAxeViolations,
  textOf,
  WAIT_MS,
} from "./browser-harness.js";

/** The first answer to a message with this text fails (the demo's `DEMO_FAIL_ONCE_TEXT` knob). */
const FAILING = "research a flaky topic";

describe.skipIf(!hasChromium)("the demo page in Chromium: sending", () => {
  const { demo, context, pageErrors, screenshot } = browserSuite("sending", {
    DEMO_PACE_MS: "15",
    DEMO_FAIL_ONCE_TEXT: FAILING,
    // Test knob: each Researcher holds after its 4th text delta (the first word of its findings) until the test
    // releases it (or it is cancelled): the runtime goes down while it runs, however slow the machine.
    DEMO_HOLD_AFTER: "Researcher:4",
  });

  const { storedOf, open, send, shownIds, replyEnded } = chatPage(
    () => demo,
    () => context,
    pageErrors,
  );
  const pressButton = async (page: Page, button: ReturnType<Page["getByRole"]>) => {
    await button.focus();
    await page.keyboard.press("Enter");
  };
  /** The Researcher of the turn in flight holds (`DEMO_HOLD_AFTER`): let it finish. */
  const releaseResearcher = async (page: Page) => {
    const running = page.locator('article.run[data-agent-type="Researcher"][data-status="running"]');
    await demo.releaseHold((await running.getAttribute("data-run-id")) ?? "");
  };
  /** Whether Send would send `text` now: the button is enabled with text in the box. */
  const canSend = async (page: Page, text: string) => {
    await page.getByRole("textbox", { name: "Message" }).fill(text);
    return (await page.getByRole("button", { name: "Send" }).getAttribute("aria-disabled")) !== "true";
  };
  /**
   * Lose the chat socket's next `toLose` sends (0 at first; the test sets it): the frame never reaches the server and
   * the socket closes, as when the server goes away while the message is on its way. Everything else passes through.
   */
  const loseSends = async (page: Page, chat: string) => {
    const state = { toLose: 0 };
    await page.routeWebSocket(
      (url) => url.pathname === `/agents/assistant/${chat}/chat`,
      (socket) => {
        const server = socket.connectToServer();
        socket.onMessage((message) => {
          if (state.toLose > 0 && (JSON.parse(String(message)) as { type?: string }).type === "send") {
            state.toLose -= 1;
            void socket.close({ code: 1011, reason: "lost" });
            void server.close();
            return;
          }
          server.send(message);
        });
      },
    );
    return state;
  };

  it("a message the connection lost is shown Not sent with Retry, still after a reload; Retry delivers it once", async () => {
    const chat = "lost-send";
    const page = await context.newPage();
    const lose = await loseSends(page, chat);
    await open(chat, page);
    await page.getByText("No messages yet").waitFor();
    lose.toLose = 1;
    await send(page, "research owls");
    const mine = page.locator("li.msg.user", { hasText: "research owls" });
    await mine.getByText("Not sent").waitFor();
    // The server never got it; the page says so, offers Retry and Discard, and sends nothing else meanwhile.
    expect(await storedOf(chat)).toEqual([]);
    await mine.getByRole("button", { name: "Retry" }).waitFor();
    await mine.getByRole("button", { name: "Discard" }).waitFor();
    expect(await canSend(page, "something else")).toBe(false);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "not-sent");
    const shownId = (await shownIds(page)).at(-1);

    await page.reload();
    await mine.getByText("Not sent").waitFor();
    expect((await shownIds(page)).at(-1)).toBe(shownId);
    await screenshot(page, "not-sent-after-reload");

    await pressButton(page, mine.getByRole("button", { name: "Retry" }));
    await releaseResearcher(page);
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await replyEnded(page);
    const stored = await storedOf(chat);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(stored[0]?.id).toBe(shownId);
    expect(textOf(stored[0])).toBe("research owls");
    expect(await mine.getByText("Not sent").count()).toBe(0);
    await expect.poll(() => shownIds(page), { timeout: WAIT_MS }).toEqual(stored.map((message) => message.id));
    await page.close();
  });

  it("Discard drops a message not sent, also from the tab's storage, and gives its text back; Send works again", async () => {
    const chat = "discarded-send";
    const page = await context.newPage();
    const lose = await loseSends(page, chat);
    await open(chat, page);
    await page.getByText("No messages yet").waitFor();
    lose.toLose = 1;
    await send(page, "import data");
    const mine = page.locator("li.msg.user", { hasText: "import data" });
    await mine.getByText("Not sent").waitFor();
    await pressButton(page, mine.getByRole("button", { name: "Discard" }));
    await mine.waitFor({ state: "detached" });
    // Nothing is lost: the text is back in the box, to edit or send again.
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("import data");
    expect(await canSend(page, "research bees")).toBe(true);
    await page.getByRole("textbox", { name: "Message" }).fill("");
    await page.reload();
    await page.getByText("No messages yet").waitFor();
    expect(await page.locator("li.msg").count()).toBe(0);
    expect(await storedOf(chat)).toEqual([]);
    await page.close();
  });

  it("the runtime goes down mid-turn: a banner, Send disabled, the tool header and its card agree; then it recovers", async () => {
    const chat = "outage";
    const page = await open(chat);
    await page.getByText("No messages yet").waitFor();
    await send(page, "research cats");
    const researcher = page.locator('article.run[data-agent-type="Researcher"]');
    await researcher.locator(".t-text").first().waitFor();
    const header = page.getByRole("group", { name: "Tool call: research" }).locator(".tool-state");
    expect(await header.textContent()).toBe("running…");
    const runId = (await researcher.getAttribute("data-run-id")) ?? "";

    const banner = page.getByRole("status").filter({ hasText: "Connection lost" });
    await demo.down();
    try {
      await banner.waitFor();
      await replyEnded(page); // the chat's request failed: it is idle
      expect(await canSend(page, "are you there?")).toBe(false);
      // What the page last heard: the run was running, and so was its call.
      expect(await researcher.getAttribute("data-status")).toBe("running");
      expect(await header.textContent()).toBe("running…");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, "down");
    } finally {
      await demo.up(); // whatever happened: the next tests need the runtime
    }
    // The resumed turn holds again (the restart forgot the releases): let it finish.
    await demo.releaseHold(runId);
    await banner.waitFor({ state: "detached" });
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await replyEnded(page);
    await page.locator('article.run[data-agent-type="Researcher"][data-status="completed"]').waitFor();
    expect(await header.textContent()).toBe("done");
    expect(await canSend(page, "thanks")).toBe(true);
    await page.getByRole("textbox", { name: "Message" }).fill("");
    expect(await page.locator('[role="alert"]').count()).toBe(0);
    await screenshot(page, "recovered");
    await page.close();
  });

  it("a failed answer says so and offers Retry; the last answer offers Regenerate; both by keyboard", async () => {
    const chat = "retry";
    const page = await open(chat);
    await page.getByText("No messages yet").waitFor();
    const alertsShown = await recordAlerts(page);
    await send(page, FAILING);
    const answer = page.locator("li.msg.assistant").last();
    await answer.getByText("This answer failed").waitFor();
    const retry = page.getByRole("button", { name: "Retry the answer" });
    await retry.waitFor();
    expect(await page.getByRole("button", { name: "Regenerate the answer" }).count()).toBe(0);
    // The failure is said once, on the answer: no alert for it at any moment (the chat's socket brings the error
    // before the event socket brings the turn's end; no "Chat error", and the message is never shown "Not sent").
    expect(await alertsShown()).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshot(page, "failed-answer");

    await pressButton(page, retry);
    await releaseResearcher(page);
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await replyEnded(page);
    const afterRetry = await storedOf(chat);
    expect(afterRetry.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(textOf(afterRetry[1])).not.toContain("This answer failed");
    const regenerate = page.getByRole("button", { name: "Regenerate the answer" });
    await regenerate.waitFor();
    expect(await retry.count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await pressButton(page, regenerate);
    await releaseResearcher(page);
    await expect.poll(async () => (await storedOf(chat)).at(-1)?.id, { timeout: WAIT_MS }).not.toBe(afterRetry[1]?.id);
    await expect.poll(async () => (await storedOf(chat)).at(-1)?.role, { timeout: WAIT_MS }).toBe("assistant");
    await replyEnded(page);
    const afterRegenerate = await storedOf(chat);
    expect(afterRegenerate.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(afterRegenerate[0]?.id).toBe(afterRetry[0]?.id);
    await expect.poll(() => shownIds(page), { timeout: WAIT_MS }).toEqual(afterRegenerate.map((message) => message.id));
    await screenshot(page, "regenerated");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
