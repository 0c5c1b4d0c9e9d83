/// <reference lib="dom" />
// Issue 18.3 in Chromium: a page built on stock `useChat` alone (web/plain.html: `@ai-sdk/react` over the AI SDK's
// WebSocket chat transport, no event socket, nothing of ours in the page) shows each child's text inside its tool
// card while the child works — the PlainChatAssistant's agent tools stream it as preliminary tool results — and,
// after a reload, the same text from the stored conversation. Issue 36 item 8: a child's structured output reads as
// fields also while it streams (never raw JSON); a reload mid-turn shows the answer streaming on and a Stop at once,
// and that Stop stops the turn; a tool called twice leaves axe's landmark-unique clean.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/plain/.

import { STOPPED_TOOL_CALL_TEXT } from "@agent-tools/react";
import type { Page, WebSocket as PlaywrightWebSocket } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  axeViolations,
  browserSuite,
  hasChromium,
  type StoredMessage,
  seriousAxeViolations,
  WAIT_MS,
} from "./browser-harness.js";

const CHAT = "browser-plain";
const BASE = `/agents/plain/${CHAT}`;

type ChildOutput = { status?: string; message?: StoredMessage | null; result?: unknown };

describe.skipIf(!hasChromium)("a page on stock useChat alone, in Chromium", () => {
  // Test knob: the Researcher holds after its 4th text delta (the first word of its findings) and again after its
  // 6th, the Summarizer after its 6th (its JSON half written), each time until the test releases it: the test sees
  // their text grow inside the cards while they work, however slow the machine.
  const { demo, context, pageErrors, screenshot } = browserSuite("plain", {
    DEMO_PACE_MS: "15",
    DEMO_HOLD_AFTER: "Researcher:4,6;Summarizer:6",
  });
  let page: Page;
  const sockets: string[] = [];

  const card = (name: string) => page.getByRole("group", { name: `Tool call: ${name}` });
  const childText = async (name: string) => ((await card(name).locator(".child-text").textContent()) ?? "").trim();
  const shot = (name: string) => screenshot(page, name);
  /** Let the newest run of `agentType` (held: `DEMO_HOLD_AFTER`) past its hold. */
  const release = async (agentType: string) => {
    const runs = await demo.fetchJson<Array<{ runId: string; agentType: string }>>(`${BASE}/runs`);
    await demo.releaseHold(runs.filter((run) => run.agentType === agentType).at(-1)?.runId ?? "");
  };
  const releaseResearcher = () => release("Researcher");

  beforeAll(async () => {
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("websocket", (socket: PlaywrightWebSocket) => sockets.push(new URL(socket.url()).pathname));
  });

  it("shows the Researcher's text growing inside its tool card, then its whole answer", async () => {
    await page.goto(new URL(`/plain.html?chat=${CHAT}`, demo.url).toString());
    await page.getByRole("heading", { level: 1, name: "Plain useChat" }).waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("research cats");
    await page.keyboard.press("Enter");

    // The child's text appears in the card and grows while the tool is still working: it holds at the first word of
    // its findings; released, it streams on and holds again two words later.
    await card("research").locator(".child-text").waitFor();
    await expect.poll(() => childText("research"), { timeout: WAIT_MS }).toContain("Findings");
    const first = await childText("research");
    expect(await card("research").getAttribute("data-state")).toBe("working…");
    await releaseResearcher();
    await expect
      .poll(async () => (await childText("research")).length, { timeout: WAIT_MS })
      .toBeGreaterThan(first.length);
    const growing = await childText("research");
    expect(growing.startsWith(first)).toBe(true);
    expect(await card("research").getAttribute("data-state")).toBe("working…");
    // The Summarizer holds with its JSON half written: its card shows fields, not the JSON.
    const summary = card("summarize");
    await summary.locator(".struct-title").waitFor();
    expect(await summary.getAttribute("data-state")).toBe("working…");
    expect(await summary.textContent()).not.toContain('{"');
    await shot("child-streaming-in-card");
    await releaseResearcher();
    await release("Summarizer");

    // The turn ends: the card holds the child's whole answer, as stored.
    await page.getByRole("button", { name: "Send" }).and(page.locator(":enabled")).waitFor();
    await expect.poll(() => card("research").getAttribute("data-state"), { timeout: WAIT_MS }).toBe("completed");
    const stored = await demo.fetchJson<StoredMessage[]>(`${BASE}/messages`);
    const toolPart = stored.at(-1)?.parts.find((part) => part.type === "tool-research");
    const storedText = ((toolPart?.output as ChildOutput | undefined)?.message?.parts ?? [])
      .map((part) => (part.type === "text" ? (part.text ?? "") : ""))
      .join("")
      .trim();
    expect(storedText.startsWith(growing)).toBe(true);
    expect(await childText("research")).toBe(storedText);
    expect(await card("summarize").locator(".structured dt").allTextContents()).toEqual(["title", "bullets"]);
    // Stock useChat alone: the only socket the page opened is the chat's.
    expect([...new Set(sockets)]).toEqual([`${BASE}/chat`]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await shot("finished");
  });

  it("shows the same text after a reload, from the stored conversation", async () => {
    const before = await childText("research");
    await page.reload();
    await card("research").locator(".child-text").waitFor();
    expect(await childText("research")).toBe(before);
    expect(await card("research").getAttribute("data-state")).toBe("completed");
    expect(pageErrors).toEqual([]);
    await shot("reloaded");
  });

  it("reloaded mid-turn: the answer streams on with a Stop at once, and that Stop stops the turn for good", async () => {
    const send = page.getByRole("button", { name: "Send" });
    const stop = page.getByRole("button", { name: "Stop" });
    await page.getByRole("textbox", { name: "Message" }).fill("research dogs");
    await page.keyboard.press("Enter");
    const latest = (name: string) => card(name).last();
    await expect
      .poll(() => latest("research").locator(".child-text").textContent(), { timeout: WAIT_MS })
      .toContain("Findings");
    await page.reload();
    // Without a second reload: the turn's answer is there, streaming on from the server, and Stop is on.
    await expect.poll(() => card("research").count(), { timeout: WAIT_MS }).toBe(2);
    await expect
      .poll(() => latest("research").locator(".child-text").textContent(), { timeout: WAIT_MS })
      .toContain("Findings");
    expect(await latest("research").getAttribute("data-state")).toBe("working…");
    await stop.and(page.locator(":enabled")).waitFor();
    expect(await send.isDisabled()).toBe(true);
    await shot("reloaded-mid-turn");

    await stop.click();
    await send.and(page.locator(":enabled")).waitFor();
    await expect.poll(() => latest("research").getAttribute("data-state"), { timeout: WAIT_MS }).toBe("stopped");
    // Stopped on the server, not only in this tab: the stored answer closes the call as stopped, and no run goes on.
    await expect
      .poll(
        async () => {
          const stored = await demo.fetchJson<StoredMessage[]>(`${BASE}/messages`);
          const call = stored.at(-1)?.parts.find((part) => part.type === "tool-research") as
            | { state?: string; errorText?: string }
            | undefined;
          return [stored.at(-1)?.role, call?.state, call?.errorText];
        },
        { timeout: WAIT_MS },
      )
      .toEqual(["assistant", "output-error", STOPPED_TOOL_CALL_TEXT]);
    const runs = await demo.fetchJson<Array<{ status: string }>>(`${BASE}/runs`);
    expect(runs.filter((run) => run.status === "running" || run.status === "starting")).toEqual([]);
    // A tool called twice in one chat: no two landmarks of one name.
    expect((await axeViolations(page)).map((violation) => violation.id)).not.toContain("landmark-unique");
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(pageErrors).toEqual([]);
    await shot("stopped-after-reload");
  });
});
