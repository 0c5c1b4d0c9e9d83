/// <reference lib="dom" />
// The durable conversation in Chromium (issue 17): two tabs on one chat see the same turn live, a stale tab that
// sends loses nothing already stored, and a restart of the runtime mid-turn leaves the page recovered — no error on
// screen, the question still there after a reload mid-turn, the answer arriving.
//
// The page is served through a fixed local origin (browser-harness.ts), so a restart — a new Miniflare on the same
// storage folder — keeps the page's address, as a deploy would.

import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserSuite, chatPage, hasChromium, type StoredMessage, WAIT_MS } from "./browser-harness.js";

describe.skipIf(!hasChromium)("the demo page in Chromium: a durable conversation", () => {
  // Test knob: each Researcher holds after its 4th text delta (the first word of its findings) until its run is
  // cancelled or the test releases it, so a second tab, a Stop, a reload or a restart lands while the turn runs,
  // however slow the machine. A restart forgets the releases: the resumed turn holds again until released again.
  const { demo, context, pageErrors, screenshot } = browserSuite("durable", {
    DEMO_PACE_MS: "15",
    DEMO_HOLD_AFTER: "Researcher:4",
  });

  const { storedOf, open, send, shownIds, replyEnded } = chatPage(
    () => demo,
    () => context,
    pageErrors,
  );
  /** Nothing on screen says something failed. */
  const errorsShown = (page: Page) =>
    page.evaluate(() => {
      // biome-ignore lint/performance/useDomNodeTextContent: what is on screen, not what the DOM holds
      const shown = document.body.innerText;
      return {
        alerts: [...document.querySelectorAll('[role="alert"]')].map((element) => element.textContent),
        chatError: shown.includes("Chat error"),
        closeCode: shown.includes("1006"),
      };
    });
  const noErrors = { alerts: [], chatError: false, closeCode: false };

  it("two tabs on one chat see the same turn live: the question, the tool call with its child run inline, the answer", async () => {
    const chat = "two-tabs";
    const first = await open(chat, context.pages()[0]);
    const second = await open(chat);
    await first.getByText("No messages yet").waitFor();
    await second.getByText("No messages yet").waitFor();
    await send(first, "research cats");

    // The other tab shows the question and the child run streaming under its tool call, while the turn runs.
    await second.locator("li.msg.user").getByText("research cats").waitFor();
    const running = second
      .getByRole("group", { name: "Tool call: research" })
      .locator('article.run[data-agent-type="Researcher"][data-status="running"]');
    await running.locator(".t-text").first().waitFor();
    expect(await second.getByRole("group", { name: "Tool call: research" }).locator(".tool-state").textContent()).toBe(
      "running…",
    );
    await screenshot(second, "second-tab-live");
    await demo.releaseHold((await running.getAttribute("data-run-id")) ?? "");

    for (const tab of [first, second]) {
      await tab.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
      await replyEnded(tab);
    }
    const stored = await storedOf(chat);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    for (const tab of [first, second]) {
      await expect.poll(() => shownIds(tab), { timeout: WAIT_MS }).toEqual(stored.map((message) => message.id));
    }
    await screenshot(second, "second-tab-done");
  });

  it("Stop in a tab that only follows the turn stops it for both tabs", async () => {
    const chat = "stop-from-second-tab";
    const first = await open(chat);
    const second = await open(chat);
    await first.getByText("No messages yet").waitFor();
    await second.getByText("No messages yet").waitFor();
    await send(first, "research owls");
    const researcherIn = (page: Page) => page.locator('article.run[data-agent-type="Researcher"]').last();
    await expect.poll(() => researcherIn(second).getAttribute("data-status"), { timeout: WAIT_MS }).toBe("running");
    await researcherIn(second).locator(".t-text").first().waitFor();
    await second.getByRole("button", { name: "Stop" }).click();

    for (const tab of [first, second]) {
      await replyEnded(tab);
      await expect.poll(() => researcherIn(tab).getAttribute("data-status"), { timeout: WAIT_MS }).toBe("aborted");
    }
    await researcherIn(second).locator(".run-line").getByText("Stopped by you", { exact: true }).waitFor();
    await researcherIn(first).locator(".run-line").getByText("Stopped", { exact: true }).waitFor();
    await expect.poll(async () => (await storedOf(chat)).at(-1)?.role, { timeout: WAIT_MS }).toBe("assistant");
    await screenshot(first, "stopped-from-second-tab");
    for (const tab of [first, second]) await tab.close();
  });

  it("a stale tab that sends loses nothing already stored, and ends up showing all of it", async () => {
    const chat = "two-tabs";
    const [first] = context.pages();
    if (!first) throw new Error("no first tab");
    // A third tab that goes stale: while it is "away", what it hears of the conversation — the conversation events on
    // its event socket, the stored conversation it reads, the answers to its resumes — stops at the moment it left.
    // What it asked before it left is let through and waited for (`inFlight`), so nothing of the turn to come leaks in.
    const base = `/agents/assistant/${chat}`;
    let heldConversation: StoredMessage[] | null = null;
    let inFlight = 0;
    const stale = await context.newPage();
    await stale.routeWebSocket(
      (url) => url.pathname === base,
      (socket) => {
        const server = socket.connectToServer();
        server.onMessage((message) => {
          if (heldConversation !== null && String(message).includes('"agent-chat-event"')) return;
          socket.send(message);
        });
        socket.onMessage((message) => server.send(message));
      },
    );
    await stale.routeWebSocket(
      (url) => url.pathname === `${base}/chat`,
      (socket) => {
        const server = socket.connectToServer();
        const resumes = new Set<string>();
        socket.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { type?: string; requestId?: string };
          if (frame.type === "resume" && heldConversation !== null) {
            socket.send(JSON.stringify({ type: "no-active", requestId: frame.requestId }));
            return;
          }
          if (frame.type === "resume" && frame.requestId) {
            resumes.add(frame.requestId);
            inFlight += 1;
          }
          server.send(message);
        });
        server.onMessage((message) => {
          const frame = JSON.parse(String(message)) as { type?: string; requestId?: string };
          if (frame.requestId && resumes.delete(frame.requestId)) inFlight -= 1;
          socket.send(message);
        });
      },
    );
    await stale.route(
      (url) => url.pathname === `${base}/messages`,
      async (route) => {
        if (heldConversation !== null) return route.fulfill({ json: heldConversation });
        inFlight += 1;
        try {
          await route.fulfill({ response: await route.fetch() });
        } finally {
          inFlight -= 1;
        }
      },
    );
    await open(chat, stale);
    await stale.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    const conversationWhenLeft = await storedOf(chat);
    await expect.poll(() => inFlight, { timeout: WAIT_MS }).toBe(0);
    heldConversation = conversationWhenLeft; // at once after the check: nothing else is let through

    await send(first, "research rust");
    await first.locator("li.msg.user").getByText("research rust").waitFor();
    // Its Researcher holds: let it finish.
    const researching = first.locator('article.run[data-agent-type="Researcher"][data-status="running"]');
    await demo.releaseHold((await researching.getAttribute("data-run-id")) ?? "");
    await expect.poll(async () => (await storedOf(chat)).length, { timeout: WAIT_MS }).toBe(4);
    await replyEnded(first);
    // It saw nothing of that turn.
    expect(await shownIds(stale)).toEqual(conversationWhenLeft.map((message) => message.id));
    heldConversation = null; // back: it hears everything again, but nothing replays what it missed

    await send(stale, "import data");
    await stale.locator("li.msg.user").getByText("import data").waitFor();
    await expect.poll(async () => (await storedOf(chat)).length, { timeout: WAIT_MS }).toBe(6);
    await replyEnded(stale);
    const stored = await storedOf(chat);
    // Nothing stored was lost or doubled: the first tab's turn, then the stale tab's, each once.
    expect(stored.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(new Set(stored.map((message) => message.id)).size).toBe(6);
    const texts = stored.map((message) => message.parts.map((part) => part.text ?? "").join(""));
    expect(texts[2]).toBe("research rust");
    expect(texts[4]).toBe("import data");
    // Both tabs show what is stored, in its order.
    for (const tab of [stale, first]) {
      await expect.poll(() => shownIds(tab), { timeout: WAIT_MS }).toEqual(stored.map((message) => message.id));
    }
    await screenshot(stale, "stale-tab-caught-up");
    await stale.close();
  });

  it("the runtime restarts mid-turn: the page recovers with no error on screen, and the answer arrives", async () => {
    const chat = "restart";
    const [page] = context.pages();
    if (!page) throw new Error("no tab");
    await open(chat, page);
    await page.getByText("No messages yet").waitFor();
    await send(page, "research cats");
    const researcher = page.locator('article.run[data-agent-type="Researcher"]');
    await researcher.locator(".t-text").first().waitFor();
    expect(await researcher.getAttribute("data-status")).toBe("running");
    const runId = (await researcher.getAttribute("data-run-id")) ?? "";

    await demo.restart();
    // The resumed turn holds again: let it finish.
    await demo.releaseHold(runId);
    await page.locator("li.msg.assistant").getByText("Here is what I found").waitFor();
    await replyEnded(page);
    await page.locator('article.run[data-agent-type="Researcher"][data-status="completed"]').waitFor();
    expect(await errorsShown(page)).toEqual(noErrors);
    expect(await page.getByText("Reconnecting…").count()).toBe(0);
    await page.locator("li.msg.user").getByText("research cats").waitFor();
    const stored = await storedOf(chat);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    await expect.poll(() => shownIds(page), { timeout: WAIT_MS }).toEqual(stored.map((message) => message.id));
    await screenshot(page, "after-restart");
  });

  it("restarted and reloaded mid-turn: the question is there at once, the turn goes on, no error is left", async () => {
    const chat = "restart";
    const [page] = context.pages();
    if (!page) throw new Error("no tab");
    await send(page, "research dogs");
    await page.locator("li.msg.user").getByText("research dogs").waitFor();
    const researcher = page.locator('article.run[data-agent-type="Researcher"]').last();
    await expect.poll(() => researcher.getAttribute("data-status"), { timeout: WAIT_MS }).toBe("running");
    await researcher.locator(".t-text").first().waitFor();
    const runId = (await researcher.getAttribute("data-run-id")) ?? "";

    await demo.restart();
    await page.reload();
    await page.locator("li.msg.user").getByText("research dogs").waitFor();
    // The resumed turn holds again: let it finish.
    await demo.releaseHold(runId);
    await screenshot(page, "reloaded-mid-turn");
    await expect.poll(() => page.locator("li.msg.assistant").count(), { timeout: WAIT_MS }).toBe(2);
    await page.locator("li.msg.assistant").last().getByText("Here is what I found").waitFor();
    await replyEnded(page);
    expect(await errorsShown(page)).toEqual(noErrors);
    const stored = await storedOf(chat);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    await expect.poll(() => shownIds(page), { timeout: WAIT_MS }).toEqual(stored.map((message) => message.id));
    expect(pageErrors).toEqual([]);
  });
});
