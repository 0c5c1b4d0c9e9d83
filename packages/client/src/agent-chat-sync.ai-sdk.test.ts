// createAgentChatSync driving the AI SDK's own chat (AbstractChat), as `useChat({ chat })` holds it: a turn another
// tab started is followed live through the transport's resume, and ends as the server stored it.
import { ManualClock } from "@agent-tools/core-runs/testing";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  type ChatTransport,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import { createAgentChatSync } from "./agent-chat-sync.js";
import { createAgentToolConnection } from "./agent-tool-connection.js";
import { memoryUnsentStorage } from "./ports/unsent-storage.js";
import { fakeWebSockets, textChunks } from "./test-support.test-utils.js";

class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((each, at) => (at === index ? structuredClone(message) : each));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PlainChat extends AbstractChat<UIMessage> {}

/** A transport whose resume gets the turn the test is streaming now (a replay from its start), or `null`. */
class TurnTransport implements ChatTransport<UIMessage> {
  readonly resumeStreamIsReplay = true;
  resumes = 0;
  active: ReadableStreamDefaultController<UIMessageChunk> | null = null;
  sent: UIMessageChunk[] = [];

  /** A turn begins on the server with these chunks so far. */
  begin(chunks: UIMessageChunk[]): void {
    this.sent = chunks;
    this.active = null;
  }

  push(chunk: UIMessageChunk): void {
    this.sent.push(chunk);
    this.active?.enqueue(chunk);
  }

  end(): void {
    this.active?.close();
    this.active = null;
    this.sent = [];
  }

  /** The sends the chat made (trigger and the ids of the messages it sent); what each gets is `answerSend`'s. */
  sends: Array<{ trigger: string; ids: string[] }> = [];
  answerSend: () => Promise<ReadableStream<UIMessageChunk>> = () => Promise.reject(new Error("no send expected"));

  sendMessages(options: { trigger: string; messages: UIMessage[] }): Promise<ReadableStream<UIMessageChunk>> {
    this.sends.push({ trigger: options.trigger, ids: options.messages.map((message) => message.id) });
    return this.answerSend();
  }

  async reconnectToStream(): Promise<ReadableStream<UIMessageChunk> | null> {
    this.resumes += 1;
    if (this.sent.length === 0) return null;
    const replay = [...this.sent];
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        for (const chunk of replay) controller.enqueue(chunk);
        this.active = controller;
      },
    });
  }
}

const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

/** The AI SDK's chat over a `TurnTransport`, kept in step by a sync whose reads return `stored()`. */
function setup(stored: () => UIMessage[]) {
  const sockets = fakeWebSockets();
  const connection = createAgentToolConnection({
    url: "wss://example.com/agents/assistant/default",
    WebSocket: sockets.WebSocket,
    clock: new ManualClock(0),
  });
  sockets.last().open();
  const transport = new TurnTransport();
  const chat = new PlainChat({ id: "default", transport, state: new PlainChatState() });
  const sync = createAgentChatSync({
    connection,
    chat,
    loadMessages: async () => structuredClone(stored()),
    unsentStorage: memoryUnsentStorage(),
  });
  const tell = (event: unknown) => sockets.last().send({ type: "agent-chat-event", event });
  return { transport, chat, sync, tell };
}

describe("createAgentChatSync with the AI SDK's chat", () => {
  it("follows another tab's turn live and ends with the stored answer, once", async () => {
    const question: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "research cats" }] };
    let stored: UIMessage[] = [];
    const { transport, chat, sync, tell } = setup(() => stored);
    await expect.poll(() => transport.resumes).toBe(1); // asked at start: nothing in flight
    await expect.poll(() => chat.status).toBe("ready");

    // Another tab sends: the server stores its message, starts the turn, streams.
    stored = [question];
    tell({ kind: "message", message: question });
    transport.begin([{ type: "start", messageId: "a1" }, { type: "start-step" }]);
    tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    await expect.poll(() => transport.resumes).toBe(2);
    const [start, ...deltas] = textChunks("t", "Cats sleep sixteen hours.");
    transport.push(start as UIMessageChunk);
    for (const chunk of deltas.slice(0, 2)) transport.push(chunk);
    await expect.poll(() => textOf(chat.messages[1])).toBe("Cats sleep ");
    expect(chat.status).toBe("streaming");
    expect(chat.messages.map((message) => message.id)).toEqual(["u1", "a1"]);

    for (const chunk of deltas.slice(2)) transport.push(chunk);
    transport.push({ type: "finish-step" });
    transport.push({ type: "finish" });
    const answer: UIMessage = {
      id: "a1",
      role: "assistant",
      parts: [{ type: "step-start" }, { type: "text", text: "Cats sleep sixteen hours.", state: "done" }],
    };
    stored = [question, answer];
    transport.end();
    tell({ kind: "turn-ended", turnId: "t1", status: "completed", message: answer });
    await expect.poll(() => chat.status).toBe("ready");
    sync.chatChanged(); // (useAgentChatSync does this on every status change)
    await expect.poll(() => chat.messages).toEqual([question, answer]);
    expect(transport.resumes).toBe(2);
    sync.close();
  });

  it("a send cut by a disconnect stays, not sent, through the recovery; Retry sends it once, last", async () => {
    const stored: UIMessage[] = [{ id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] }];
    const { transport, chat, sync } = setup(() => stored);
    await expect.poll(() => chat.messages.map((message) => message.id)).toEqual(["u1"]);
    await expect.poll(() => chat.status).toBe("ready");

    transport.answerSend = () => Promise.reject(new TypeError("WebSocket chat network connection failed."));
    await chat.sendMessage({ id: "lost", role: "user", parts: [{ type: "text", text: "research cats" }] });
    expect(chat.status).toBe("error");
    sync.chatChanged(); // (useAgentChatSync does this on every status change)
    await expect.poll(() => sync.getSnapshot().unsent.map((unsent) => unsent.messageId)).toEqual(["lost"]);
    // Recovered: the sync read the conversation and asked for a turn in flight (none); the message is still there.
    await expect.poll(() => chat.status).toBe("ready");
    sync.chatChanged();
    expect(chat.messages.map((message) => message.id)).toEqual(["u1", "lost"]);

    transport.answerSend = async () => {
      // The server stores the message and, once the turn ends, its answer.
      stored.push(chat.messages.at(-1) as UIMessage, {
        id: "a1",
        role: "assistant",
        parts: [{ type: "text", text: "Cats.", state: "done" }],
      });
      return new ReadableStream<UIMessageChunk>({
        start(controller) {
          for (const chunk of [{ type: "start", messageId: "a1" }, ...textChunks("t", "Cats."), { type: "finish" }]) {
            controller.enqueue(chunk as UIMessageChunk);
          }
          controller.close();
        },
      });
    };
    expect(await sync.retryUnsent("lost")).toBe(true);
    expect(transport.sends.at(-1)).toEqual({ trigger: "regenerate-message", ids: ["u1", "lost"] });
    await expect.poll(() => sync.getSnapshot().unsent).toEqual([]);
    expect(chat.messages.map((message) => message.id)).toEqual(["u1", "lost", "a1"]);
    expect(transport.sends).toHaveLength(2);
    sync.close();
  });
});
