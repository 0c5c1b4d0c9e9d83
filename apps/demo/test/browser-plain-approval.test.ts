/// <reference lib="dom" />
// Issue 32 in Chromium, on /plain.html (stock `useChat` alone): a reload while the Writer's save waits for approval
// shows the waiting approval again (the page resumes the turn in flight, whose agent tool streams the child's state as
// preliminary results), in every tab; answered there, the turn ends and the next message is answered — never left
// waiting behind a turn nobody can see. The same after the runtime is killed while the approval waits: the request
// appears once in the top run's log, and answering it after the restart saves the file once.
//
// Skipped only when /usr/bin/chromium is missing (CI installs it in .ci/run). Screenshots in
// apps/demo/test-results/screenshots/plain-approval/.

import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import { readApprovalChunk } from "@agent-tools/core-runs/protocol";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserDemo,
  hasChromium,
  launchBrowser,
  type StoredMessage,
  screenshotFolder,
  startBrowserDemo,
  WAIT_MS,
} from "./browser-harness.js";
import { agentFrames, demoWsUrl } from "./harness/demo.js";

const PROMPT = "write this down: buy milk";

describe.skipIf(!hasChromium)("a reload of /plain.html while an approval waits, in Chromium", () => {
  let demo: BrowserDemo;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let screenshot: (page: Page, name: string) => Promise<void>;
  const pageErrors: string[] = [];

  const open = async (chat: string, page?: Page) => {
    const tab = page ?? (await browser.context.newPage());
    tab.on("pageerror", (error) => pageErrors.push(error.message));
    await tab.goto(new URL(`/plain.html?chat=${chat}`, demo.url).toString());
    await tab.getByRole("heading", { level: 1, name: "Plain useChat" }).waitFor();
    return tab;
  };
  const send = async (tab: Page, text: string) => {
    await tab.getByRole("textbox", { name: "Message" }).fill(text);
    await tab.keyboard.press("Enter");
  };
  const pending = (tab: Page) => tab.locator('section.approval[data-status="pending"]');
  const storedOf = (chat: string) => demo.fetchJson<StoredMessage[]>(`/agents/plain/${chat}/messages`);
  /** The approval chunks the top-level runs' logs hold, as a fresh client replays them (to the run's end). */
  const approvalChunks = async (chat: string) => {
    const events = await RecordingSocket.open(demoWsUrl(demo.host, `/agents/plain/${chat}`));
    try {
      await events.waitFor((messages) => agentFrames(messages).some((frame) => frame.event.kind === "finished"));
      return agentFrames(events.messages).flatMap((frame: AgentToolEventFrame) => {
        const approval = frame.event.kind === "chunk" ? readApprovalChunk(frame.event.body) : null;
        return approval ? [approval.approvalId] : [];
      });
    } finally {
      events.close();
    }
  };

  /** Answer the waiting approval on `tab`, then wait for the turn's end (Send enabled again). */
  const approveAndFinish = async (tab: Page) => {
    await pending(tab).getByRole("button", { name: "Approve" }).click();
    await tab.locator('section.approval[data-status="approved"]').waitFor({ timeout: WAIT_MS });
    await tab.getByRole("button", { name: "Send" }).and(tab.locator(":enabled")).waitFor({ timeout: WAIT_MS });
  };

  /** The next message is answered (a second assistant message is stored, and shown). */
  const expectNextAnswered = async (chat: string, tab: Page) => {
    await send(tab, "research cats");
    await expect.poll(async () => (await storedOf(chat)).length, { timeout: WAIT_MS }).toBe(4);
    await tab.getByRole("button", { name: "Send" }).and(tab.locator(":enabled")).waitFor({ timeout: WAIT_MS });
    expect(await tab.locator("li.message.assistant").count()).toBe(2);
  };

  beforeAll(async () => {
    screenshot = await screenshotFolder("plain-approval");
    demo = await startBrowserDemo({ DEMO_PACE_MS: "15" });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.dispose();
  });

  it("shows the waiting approval again after a reload, in every tab; answered, the turn ends and the next message is answered", async () => {
    const chat = "plain-reload";
    const tab = await open(chat, browser.context.pages()[0]);
    await send(tab, PROMPT);
    await pending(tab).waitFor({ timeout: WAIT_MS });
    await tab.reload();
    await tab.getByRole("heading", { level: 1, name: "Plain useChat" }).waitFor();
    await pending(tab).waitFor({ timeout: WAIT_MS });
    // A tab opened now shows it too.
    const other = await open(chat);
    await pending(other).waitFor({ timeout: WAIT_MS });
    await screenshot(tab, "reloaded-pending");
    await approveAndFinish(tab);
    await expectNextAnswered(chat, tab);
    expect(pageErrors).toEqual([]);
    await other.close();
  });

  it("after a kill while it waits: the request appears once, a reload shows it, and approving it saves once", async () => {
    const chat = "plain-kill";
    const tab = await open(chat);
    await send(tab, PROMPT);
    await pending(tab).waitFor({ timeout: WAIT_MS });
    await demo.down();
    await demo.up();
    await tab.reload();
    await tab.getByRole("heading", { level: 1, name: "Plain useChat" }).waitFor();
    await pending(tab).waitFor({ timeout: WAIT_MS });
    await screenshot(tab, "killed-pending");
    await approveAndFinish(tab);
    // Asked once, answered once, in the top-level run's log (a replay sends both in their latest state).
    const chunks = await approvalChunks(chat);
    expect(chunks).toHaveLength(2);
    expect(new Set(chunks).size).toBe(1);
    const answer = (await storedOf(chat))[1];
    expect(JSON.stringify(answer)).toContain("Saved notes.md");
    await expectNextAnswered(chat, tab);
  });
});
