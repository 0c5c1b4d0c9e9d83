// What the tests of createAgentChatSync share: a chat the test drives, and a sync on fake sockets over it.

import type { UIMessage } from "ai";
import { type AgentChatLike, type AgentChatStatus, createAgentChatSync } from "./agent-chat-sync.js";
import { createAgentToolConnection } from "./agent-tool-connection.js";
import { type AgentChatUnsentStorage, memoryUnsentStorage } from "./ports/unsent-storage.js";
import { fakeWebSockets } from "./test-support.test-utils.js";
import { ManualClock } from "./testing/index.js";

export const PARENT = "wss://example.com/agents/assistant/default";

export const user = (id: string, text = id): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
export const assistant = (id: string, text = id): UIMessage => ({
  id,
  role: "assistant",
  parts: [{ type: "text", text }],
});

/** The errors the AI SDK's WebSocket chat transport ends a request with. */
export const disconnectError = () => new TypeError("WebSocket chat network connection closed (code 1006).");
export const refusedError = () => new Error("Too many messages are waiting for an answer (8)");

/** A chat the test drives: its resumes and regenerations wait until the test settles them. */
export class FakeChat implements AgentChatLike {
  messages: UIMessage[] = [];
  status: AgentChatStatus = "ready";
  error: Error | undefined = undefined;
  /** The resumes in flight: each settles as the AI SDK's does (ready, or the error it failed with). */
  readonly resumes: Array<(error?: Error) => void> = [];
  /** The message ids `regenerate` was called with, and how to settle each. */
  readonly regenerations: Array<{ messageId: string | undefined; settle(error?: Error): void }> = [];

  resumeStream(): Promise<void> {
    return new Promise((resolve) => {
      this.resumes.push((error) => {
        this.status = error ? "error" : "ready";
        this.error = error;
        resolve();
      });
    });
  }

  /** As the AI SDK's chat: drops what follows the message (an assistant message goes too), then sends again. */
  regenerate(options: { messageId?: string } = {}): Promise<void> {
    const index =
      options.messageId === undefined
        ? this.messages.length - 1
        : this.messages.findIndex((message) => message.id === options.messageId);
    const kept = this.messages[index]?.role === "assistant" ? index : index + 1;
    this.messages = this.messages.slice(0, kept);
    this.status = "submitted";
    this.error = undefined;
    return new Promise((resolve) => {
      this.regenerations.push({
        messageId: options.messageId,
        settle: (error) => {
          this.status = error ? "error" : "ready";
          this.error = error;
          resolve();
        },
      });
    });
  }

  /** This tab sends `message` (the chat's `sendMessage`): it shows at once, and the request is in flight. */
  send(message: UIMessage): void {
    this.messages = [...this.messages, message];
    this.status = "submitted";
    this.error = undefined;
  }

  /** The request in flight ended with `error` (the chat keeps its messages, as the AI SDK's does). */
  fail(error: Error): void {
    this.status = "error";
    this.error = error;
  }

  /** The request in flight ended well, with `reply` streamed. */
  finish(reply?: UIMessage): void {
    if (reply) this.messages = [...this.messages, reply];
    this.status = "ready";
  }

  /** The last resume failed (as the AI SDK's chat does: the promise resolves, the chat holds the error). */
  async failResume(error: Error): Promise<void> {
    this.resumes.shift()?.(error);
    await flush();
  }

  /** The server answered the last resume (`no-active`, or the followed turn ended). */
  async settleResume(): Promise<void> {
    this.resumes.shift()?.();
    await flush();
  }

  ids(): string[] {
    return this.messages.map((message) => message.id);
  }
}

/** Resolve pending promise callbacks (the sync's reads and resumes). */
export const flush = async () => {
  for (let round = 0; round < 10; round += 1) await Promise.resolve();
};

/**
 * A sync on fake sockets, a fake chat and a stored conversation the test sets; reads resolve at once. `storage` is
 * the tab's storage of unsent messages (a new sync on the same storage is a reload of the tab).
 */
export function setupChatSync(
  options: { stored?: UIMessage[]; open?: boolean; failWith?: Error; storage?: AgentChatUnsentStorage } = {},
) {
  const sockets = fakeWebSockets();
  const clock = new ManualClock(0);
  const connection = createAgentToolConnection({
    url: PARENT,
    WebSocket: sockets.WebSocket,
    clock,
    random: () => 0,
  });
  if (options.open !== false) sockets.last().open();
  const chat = new FakeChat();
  const server = { stored: options.stored ?? [], reads: 0, failWith: options.failWith ?? (null as Error | null) };
  const stops: string[] = [];
  const storage = options.storage ?? memoryUnsentStorage();
  const sync = createAgentChatSync({
    connection,
    chat,
    unsentStorage: storage,
    stopTurn: async (turnId) => {
      stops.push(turnId);
      return true;
    },
    loadMessages: async () => {
      server.reads += 1;
      if (server.failWith) throw server.failWith;
      return structuredClone(server.stored);
    },
  });
  const tell = (event: unknown) => sockets.last().send({ type: "agent-chat-event", event });
  /** The event socket drops; the connection reopens after its back-off (500 ms here) and the server accepts. */
  const reconnect = async () => {
    sockets.last().drop();
    await clock.advanceBy(500);
    sockets.last().open();
  };
  return { connection, sockets, clock, chat, server, sync, tell, reconnect, stops, storage };
}
