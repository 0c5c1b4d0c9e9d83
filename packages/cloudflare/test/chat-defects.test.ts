// The conversation's defects found from outside (issue 23), each in workerd: Stop while a child run works no longer
// breaks the chat; a message or a turn that does not fit in a row is refused or stored in pieces, never lost without
// a trace; sends queue up to a cap, and the queued sends of a socket that closed do not run.
import type { AgentChatEventFrame, AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type Part = { type: string; text?: string; state?: string; errorText?: string; toolCallId?: string };
type Message = { id: string; role: string; parts: Part[] };
type ChatFrame = { type: string; requestId?: string; errorText?: string };
type RunInfo = { runId: string; status: string };

const startHost = hostWorkerPerTest("agent-tools-chat-defects-");

const userMessage = (id: string, text: string): Message => ({ id, role: "user", parts: [{ type: "text", text }] });
const send = (requestId: string, messages: Message[]) => ({
  type: "send",
  requestId,
  id: "chat",
  trigger: "submit-message",
  messageId: undefined,
  messages,
  headers: {},
  body: {},
});
const chatEvents = (messages: unknown[]) =>
  (messages as AgentChatEventFrame[]).filter((frame) => frame.type === "agent-chat-event").map((frame) => frame.event);
const endedTurns = (messages: unknown[]) => chatEvents(messages).filter((event) => event.kind === "turn-ended");
const framesOf = (messages: unknown[], requestId: string) =>
  (messages as ChatFrame[]).filter((frame) => frame.requestId === requestId);
const isOver = (requestId: string) => (messages: unknown[]) =>
  framesOf(messages, requestId).some((frame) => frame.type === "end" || frame.type === "error");
const runStarted = (messages: unknown[]) =>
  (messages as AgentToolEventFrame[]).some(
    (frame) => frame.type === "agent-tool-event" && frame.event.kind === "chunk",
  );
const textOf = (message: Message | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("");

async function open(running: MiniflareHost, base: string) {
  const events = await RecordingSocket.open(wsUrl(running, base));
  const chat = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
  return { events, chat };
}

describe("Stop while child runs work", () => {
  it("closes the tool call as stopped by the user, and the next send works, also after a restart", async () => {
    // The child says two words, then holds until its run is cancelled: it is working when the turn is stopped.
    const running = await startHost({ ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/stop-with-children";
    const { events, chat } = await open(running, base);
    chat.send(send("r1", [userMessage("u1", "one two three four five six seven eight nine ten")]));
    // The child streams: its run is working when the turn is stopped.
    await events.waitFor(runStarted);
    const turnId = chatEvents(events.messages).find((event) => event.kind === "turn-started")?.turnId as string;
    expect(await running.fetchJson(`${base}/chat/stop/${turnId}`, { method: "POST" })).toEqual({ stopped: true });
    await events.waitFor((messages) => endedTurns(messages).length === 1);
    expect(endedTurns(events.messages)[0]).toMatchObject({ status: "aborted" });

    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    const toolPart = stored.at(-1)?.parts.find((part) => part.type === "tool-echo");
    expect(toolPart).toMatchObject({
      state: "output-error",
      errorText: "Stopped by the user",
    });

    // The next answers' children do not hold (the knob is off across the restart below too).
    await running.fetchJson("/test/echo-release", { method: "POST" });
    chat.send(send("r2", [userMessage("u2", "again please")]));
    await chat.waitFor(isOver("r2"));
    expect(framesOf(chat.messages, "r2").at(-1)?.type).toBe("end");
    await events.waitFor((messages) => endedTurns(messages).length === 2);
    expect(endedTurns(events.messages)[1]).toMatchObject({ status: "completed" });
    events.close();
    chat.close();

    // After a restart the stored conversation still answers.
    await running.restart({});
    const again = await open(running, base);
    again.chat.send(send("r3", [userMessage("u3", "and once more")]));
    await again.chat.waitFor(isOver("r3"));
    expect(framesOf(again.chat.messages, "r3").at(-1)?.type).toBe("end");
    const after = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(textOf(after.at(-1))).toBe("The echo said: #1 and once more");
    again.events.close();
    again.chat.close();
  });
});

describe("messages and turns bigger than a row", () => {
  it("refuses a 2.5 MB message with a clear error before anything is stored", async () => {
    const running = await startHost();
    const base = "/agents/parent/big-message";
    const { events, chat } = await open(running, base);
    chat.send(send("r1", [userMessage("u1", "x".repeat(2_500_000))]));
    await chat.waitFor(isOver("r1"));
    expect(framesOf(chat.messages, "r1")).toEqual([
      {
        type: "error",
        requestId: "r1",
        errorText: expect.stringMatching(/^The message is too large \(2\.5 MB; the limit is 1\.0 MB\)/),
      },
    ]);
    expect(await running.fetchJson<Message[]>(`${base}/messages`)).toEqual([]);
    expect(chatEvents(events.messages)).toEqual([]);
    events.close();
    chat.close();
  });

  it("stores a legal turn of several MB (a 900 kB message through a tool and back) and ends it for the client", async () => {
    const running = await startHost();
    const base = "/agents/parent/big-turn";
    const { events, chat } = await open(running, base);
    const text = "y".repeat(900_000);
    chat.send(send("r1", [userMessage("u1", text)]));
    await chat.waitFor(isOver("r1"), 60_000);
    expect(framesOf(chat.messages, "r1").at(-1)?.type).toBe("end");
    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(textOf(stored[1])).toBe(`The echo said: #1 ${text}`);
    events.close();
    chat.close();
  });
});

describe("the send queue", () => {
  it("runs the turn in flight and at most maxQueuedSends more; refuses the rest with a clear error", async () => {
    // The first turn's child says one word, then holds until released: every send arrives while it is in flight.
    const running = await startHost({ ECHO_HOLD_AFTER: "1" });
    const base = "/agents/parent/many-sends";
    const { events, chat } = await open(running, base);
    for (let index = 1; index <= 30; index++) chat.send(send(`r${index}`, [userMessage(`u${index}`, `m ${index}`)]));
    // The last send is refused as it arrives (the queue is full): all 30 came while the first turn was in flight.
    await chat.waitFor(isOver("r30"));
    await running.fetchJson("/test/echo-release", { method: "POST" });
    await chat.waitFor(
      (messages) => Array.from({ length: 30 }, (_, index) => `r${index + 1}`).every((id) => isOver(id)(messages)),
      60_000,
    );
    const refused = Array.from({ length: 30 }, (_, index) => `r${index + 1}`).filter(
      (id) => framesOf(chat.messages, id).at(-1)?.type === "error",
    );
    expect(refused).toHaveLength(21);
    expect(framesOf(chat.messages, "r30").at(-1)?.errorText).toMatch(
      /Too many messages are waiting for an answer \(8\)/,
    );
    const runs = await running.fetchJson<RunInfo[]>(`${base}/runs`);
    expect(runs).toHaveLength(9);
    events.close();
    chat.close();
  });

  it("does not run the queued sends of a socket that closed; they are not stored", async () => {
    // The first turn's child says two words, then holds until released: the socket closes while the turn is in flight.
    const running = await startHost({ ECHO_HOLD_AFTER: "2" });
    const base = "/agents/parent/closed-socket";
    const { events, chat } = await open(running, base);
    for (let index = 1; index <= 4; index++)
      chat.send(send(`r${index}`, [userMessage(`u${index}`, `message ${index}`)]));
    // Each send is told `start` once admitted: r1 runs, the others wait behind it.
    await chat.waitFor((messages) =>
      ["r1", "r2", "r3", "r4"].every((id) => framesOf(messages, id).some((frame) => frame.type === "start")),
    );
    await events.waitFor(runStarted);
    chat.close();
    // The parent has handled the close; only then may the turn in flight complete.
    await running.fetchJson(`${base}/test/socket-closed`);
    await running.fetchJson("/test/echo-release", { method: "POST" });
    await events.waitFor((messages) => endedTurns(messages).length >= 1);
    // The turn in flight completes and is stored; what was queued behind it is dropped with the socket.
    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored.filter((message) => message.role === "user").map((message) => message.id)).toEqual(["u1"]);
    expect(await running.fetchJson<RunInfo[]>(`${base}/runs`)).toHaveLength(1);
    events.close();
  });
});

describe("start-up recovery of stored turns", () => {
  const turn = (turnId: string, userMessageId: string, startedAt: number) => ({
    turnId,
    origin: "client",
    assistantMessageId: `answer-${turnId}`,
    userMessageId,
    startedAt,
    resumeAttempts: 0,
  });
  const cutLog = (text: string) =>
    JSON.stringify([
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
    ]);

  it("never lets an older turn row hide the newest: the old one is closed visibly, the newest resumed", async () => {
    const running = await startHost();
    const base = "/agents/parent/two-turn-rows";
    await running.fetchJson(`${base}/test/seed-turns`, {
      body: [
        { turn: turn("a-dead", "u1", 1_000), user: userMessage("u1", "old question"), log: [cutLog("old")] },
        { turn: turn("b-live", "u2", 2_000), user: userMessage("u2", "new question"), log: [cutLog("half")] },
      ],
    });
    await running.restart();
    await expect
      .poll(async () => (await running.fetchJson<Message[]>(`${base}/messages`)).map((message) => message.id), {
        timeout: 30_000,
      })
      .toEqual(["u1", "u2", "answer-a-dead", "answer-b-live"]);
    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(textOf(stored[2])).toBe("This answer could not be saved.");
    expect(textOf(stored[3])).toBe("The echo said: #1 new question");
  });

  it("closes a cut turn it cannot go on with as failed, visibly, instead of failing at every start-up", async () => {
    const running = await startHost();
    const base = "/agents/parent/unreadable-turn";
    await running.fetchJson(`${base}/test/seed-turns`, {
      body: [{ turn: turn("broken", "u1", 1_000), user: userMessage("u1", "hello"), log: ["not json"] }],
    });
    await running.restart();
    await expect
      .poll(async () => (await running.fetchJson<Message[]>(`${base}/messages`)).length, { timeout: 30_000 })
      .toBe(2);
    const stored = await running.fetchJson<Message[]>(`${base}/messages`);
    expect(stored[1]).toMatchObject({ id: "answer-broken", role: "assistant" });
    expect(textOf(stored[1])).toMatch(/^This answer failed: /);
    // The conversation goes on.
    const chat = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
    chat.send(send("r1", [userMessage("u2", "still there?")]));
    await chat.waitFor(isOver("r1"));
    expect(framesOf(chat.messages, "r1").at(-1)?.type).toBe("end");
    chat.close();
  });
});
