// A parent with only workflow tools (workerd): no `onChatMessage`, its runs started from its own methods. It runs
// them as any parent does, and answers a chat send with a clear `error` frame, storing nothing.
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type ChatFrame = { type: string; requestId?: string; errorText?: string };

const start = hostWorkerPerTest("agent-tools-workflow-parent-");
const base = "/agents/workflow/w1";
const NO_CONVERSATION = /has no conversation.*onChatMessage/;

describe("a parent without a conversation", () => {
  it("runs children from its own methods", async () => {
    const running = await start();
    const result = await running.fetchJson<{ ok: boolean; summary: string }>(`${base}/test/run?text=hello`, {
      method: "POST",
    });
    expect(result).toMatchObject({ ok: true, summary: "#1 hello" });
  });

  it("answers a chat send with an error frame saying it has no conversation, and stores nothing", async () => {
    const running = await start();
    const chat = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
    chat.send({
      type: "send",
      requestId: "r1",
      id: "chat",
      trigger: "submit-message",
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
    });
    await chat.waitFor((messages) => (messages as ChatFrame[]).some((frame) => frame.requestId === "r1"));
    chat.close();
    const [frame] = (chat.messages as ChatFrame[]).filter((message) => message.requestId === "r1");
    expect(frame).toMatchObject({ type: "error", requestId: "r1", errorText: expect.stringMatching(NO_CONVERSATION) });
    expect(await running.fetchJson(`${base}/messages`)).toEqual([]);
    // From code too.
    const fromCode = await running.fetchJson<{ error?: string }>(`${base}/test/send?text=hi`, { method: "POST" });
    expect(fromCode.error).toMatch(NO_CONVERSATION);
    expect(await running.fetchJson(`${base}/messages`)).toEqual([]);
  });
});
