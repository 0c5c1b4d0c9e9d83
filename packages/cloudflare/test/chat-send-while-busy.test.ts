// A `send` that arrives while a turn is in flight waits for it, and is then decided against the conversation as it
// is when its own turn starts, not as it was when it arrived: a regenerate replaces the answer that was streaming
// (one answer, not two), and the same message sent twice while it waited is stored and answered once.
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type Message = { id: string; role: string; parts: Array<{ type: string; text?: string }> };
type ChatFrame = { type: string; requestId?: string };

// The Echo child says two words, then holds until the test releases it (`POST /test/echo-release`): the first turn is
// in flight until the other sends have arrived, however slow the machine; from then on no child holds.
const startHost = hostWorkerPerTest("agent-tools-cloudflare-busy-");
const start = () =>
  startHost({ AGENT_TOOLS_RUN_TOKEN_SECRET: "test-secret-of-at-least-16-characters", ECHO_HOLD_AFTER: "2" });

const chatUrl = (running: MiniflareHost, base: string) => wsUrl(running, `${base}/chat`);
const userMessage = (id: string, text: string): Message => ({ id, role: "user", parts: [{ type: "text", text }] });
const send = (
  requestId: string,
  messages: Message[],
  trigger: "submit-message" | "regenerate-message" = "submit-message",
) => ({ type: "send", requestId, id: "chat", trigger, messageId: undefined, messages, headers: {}, body: {} });
const frames = (socket: RecordingSocket) => socket.messages as ChatFrame[];
const hasChunk = (requestId: string) => (messages: unknown[]) =>
  (messages as ChatFrame[]).some((frame) => frame.type === "chunk" && frame.requestId === requestId);
const endOf = (requestId: string) => (messages: unknown[]) =>
  (messages as ChatFrame[]).find(
    (frame) => frame.requestId === requestId && (frame.type === "end" || frame.type === "error"),
  );
/** A send is told `start` once it is admitted (a send that waits for the turn in flight, at once). */
const hasStarted =
  (...requestIds: string[]) =>
  (messages: unknown[]) =>
    requestIds.every((requestId) =>
      (messages as ChatFrame[]).some((frame) => frame.type === "start" && frame.requestId === requestId),
    );
const hasEnded = (requestId: string) => (messages: unknown[]) => endOf(requestId)(messages) !== undefined;
const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("");

describe("a send while a turn is in flight", () => {
  it("a regenerate replaces the answer that was streaming: one answer, not a second beside it", async () => {
    const running = await start();
    const base = "/agents/parent/regenerate-busy";
    const tabA = await RecordingSocket.open(chatUrl(running, base));
    const tabB = await RecordingSocket.open(chatUrl(running, base));
    const u1 = userMessage("u1", "one two three four five");
    tabA.send(send("a-1", [u1]));
    await tabA.waitFor(hasChunk("a-1"));
    // Tab B drops the answer it sees streaming and asks for it again.
    tabB.send(send("b-1", [u1], "regenerate-message"));
    await tabB.waitFor(hasStarted("b-1"));
    await running.fetchJson("/test/echo-release", { method: "POST" });
    await tabA.waitFor(hasEnded("a-1"));
    await tabB.waitFor(hasEnded("b-1"));
    expect(endOf("b-1")(frames(tabB))).toMatchObject({ type: "end" });
    tabA.close();
    tabB.close();

    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(textOf(stored[1])).toContain("one two three four five");
  });

  it("the same message sent twice while it waited is stored and answered once", async () => {
    const running = await start();
    const base = "/agents/parent/resend-busy";
    const tabA = await RecordingSocket.open(chatUrl(running, base));
    const tabB = await RecordingSocket.open(chatUrl(running, base));
    const u1 = userMessage("u1", "one two three four five");
    const u2 = userMessage("u2", "six seven");
    tabA.send(send("a-1", [u1]));
    await tabA.waitFor(hasChunk("a-1"));
    // Tab B's send of u2 waits for the turn in flight; its retry (the same message id) comes before that turn ends.
    tabB.send(send("b-1", [u1, u2]));
    tabB.send(send("b-2", [u1, u2]));
    await tabB.waitFor(hasStarted("b-1", "b-2"));
    await running.fetchJson("/test/echo-release", { method: "POST" });
    await tabB.waitFor(hasEnded("b-1"));
    await tabB.waitFor(hasEnded("b-2"));
    tabA.close();
    tabB.close();

    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored.map((message) => `${message.role}:${message.role === "user" ? message.id : ""}`)).toEqual([
      "user:u1",
      "assistant:",
      "user:u2",
      "assistant:",
    ]);
  });
});
