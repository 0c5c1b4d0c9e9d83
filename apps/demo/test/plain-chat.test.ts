import {
  createPersistDirectory,
  type MiniflareHost,
  type PersistDirectory,
} from "@agent-tools/workerd-harness/miniflare-host";
import type { UIMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AiSdkChat } from "./harness/ai-sdk-chat.js";
import { demoWsUrl, releaseHold, startDemoHost } from "./harness/demo.js";

// The PlainChatAssistant (`/agents/plain/<name>`): its agent tools stream each child's answer into the tool call's
// part as preliminary results, so the AI SDK's own chat — what stock `useChat` runs — shows the children working
// with no event socket, and the stored conversation (a reload) shows the same. The page built on it is checked in
// Chromium (browser-plain.test.ts).

type ChildOutput = { runId: string; status: string; message: UIMessage | null; result?: unknown };
type ToolPart = { type: string; state: string; preliminary?: boolean; output?: ChildOutput };

let persist: PersistDirectory;
let host: MiniflareHost;

beforeAll(async () => {
  persist = await createPersistDirectory("agent-tools-plain-");
  // The Researcher holds after its 4th text delta (the first word of its findings) and again after its 6th, each time
  // until the test releases it: its answer grows in steps the test sees, however the machine's load batches its chunks.
  host = await startDemoHost(persist, { DEMO_PACE_MS: "0", DEMO_HOLD_AFTER: "Researcher:4,6" });
});

afterAll(async () => {
  await host?.dispose();
  await persist?.remove();
});

const toolParts = (message: UIMessage | undefined) =>
  (message?.parts ?? []).filter((part) => part.type.startsWith("tool-")) as unknown as ToolPart[];
const textOf = (message: UIMessage | null | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

describe("a chat with the PlainChatAssistant, as stock useChat sees it", () => {
  it("shows each child's answer growing inside its tool part, then its whole answer, also after a reload", async () => {
    const chatId = "plain-1";
    const url = () => demoWsUrl(host, `/agents/plain/${chatId}/chat`);
    /** What the page would have rendered of the Researcher's tool part, state by state. */
    const researcherTexts: string[] = [];
    let researcherRunId = "";
    /** Called on each of those states (set while the test waits for one). */
    let onResearcherText: () => void = () => undefined;
    const chat = new AiSdkChat(url, chatId, {
      onChange: (messages) => {
        const part = toolParts(messages.at(-1)).find((candidate) => candidate.type === "tool-research");
        if (part?.preliminary !== true) return;
        researcherRunId = part.output?.runId ?? researcherRunId;
        researcherTexts.push(textOf(part.output?.message));
        onResearcherText();
      },
    });
    /** Resolves once a state of the Researcher's part shows a text that `isShown` accepts. */
    const researcherShows = (isShown: (text: string) => boolean) =>
      new Promise<string>((resolve) => {
        const check = () => {
          const text = researcherTexts.find(isShown);
          if (text !== undefined) resolve(text);
        };
        onResearcherText = check;
        check();
      });
    const sending = chat.sendMessage({ text: "research cats" });
    // The Researcher holds at the first word of its findings: the part shows it, then, released, a longer text
    // (it holds again two words on), then the whole answer.
    const held = await researcherShows((text) => text.includes("Findings"));
    await releaseHold(host, researcherRunId);
    await researcherShows((text) => text.length > held.length);
    await releaseHold(host, researcherRunId);
    await sending;
    expect(chat.status).toBe("ready");

    const answer = chat.messages.at(-1);
    const parts = toolParts(answer);
    expect(parts.map((part) => part.type).sort()).toEqual(["tool-research", "tool-summarize"]);
    for (const part of parts) {
      expect(part.state).toBe("output-available");
      expect(part.preliminary).not.toBe(true);
      expect(part.output?.status).toBe("completed");
      expect(textOf(part.output?.message)).not.toBe("");
    }
    const research = parts.find((part) => part.type === "tool-research");
    // The model got the summary (the answer quotes it); the part keeps the child's own message too.
    expect(typeof research?.output?.result).toBe("string");
    expect(textOf(answer)).toContain(String(research?.output?.result).slice(0, 20));
    // It grew while the child worked: several partial texts, each a prefix of the whole answer.
    const whole = textOf(research?.output?.message);
    const partial = [...new Set(researcherTexts)].filter((text) => text !== "" && text !== whole);
    expect(partial.length).toBeGreaterThan(1);
    for (const text of partial) expect(whole.startsWith(text.trimEnd())).toBe(true);
    chat.close();

    // A reload: the stored conversation holds the same parts, with the children's whole answers.
    const stored = await host.fetchJson<UIMessage[]>(`/agents/plain/${chatId}/messages`);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(toolParts(stored.at(-1)).map((part) => [part.type, textOf(part.output?.message)])).toEqual(
      parts.map((part) => [part.type, textOf(part.output?.message)]),
    );
  });
});
