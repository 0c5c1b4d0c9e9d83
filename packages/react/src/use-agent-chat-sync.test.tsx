// @vitest-environment happy-dom
import { type AgentChatLike, createAgentToolConnectionPool, memoryUnsentStorage } from "@agent-tools/client";
import type { AgentChatStatus } from "@agent-tools/client/internal";
import { fakeWebSockets, ManualClock } from "@agent-tools/client/testing";
import { act, cleanup, render, screen } from "@testing-library/react";
import type { UIMessage } from "ai";
import { StrictMode, useSyncExternalStore } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useAgentChatSync } from "./use-agent-chat-sync.js";
import { useAgentToolEvents } from "./use-agent-tool-events.js";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const PARENT = "wss://example.com/agents/assistant/default";
const user = (id: string, text = id): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });

/** A chat as `useChat({ chat })` sees one: live fields, and a change signal that re-renders its component. */
class FakeChat implements AgentChatLike {
  #messages: UIMessage[] = [];
  #status: AgentChatStatus = "ready";
  error: Error | undefined = undefined;
  resumes = 0;
  regenerated: Array<string | undefined> = [];
  readonly #listeners = new Set<() => void>();

  get messages() {
    return this.#messages;
  }
  set messages(messages: UIMessage[]) {
    this.#messages = messages;
    this.#notify();
  }
  get status() {
    return this.#status;
  }
  set status(status: AgentChatStatus) {
    this.#status = status;
    this.#notify();
  }
  resumeStream(): Promise<void> {
    this.resumes += 1;
    return Promise.resolve();
  }
  regenerate(options: { messageId?: string } = {}): Promise<void> {
    this.regenerated.push(options.messageId);
    return Promise.resolve();
  }
  /** This tab sends `message`, and the connection drops before the server gets it. */
  sendAndLose(message: UIMessage): void {
    this.error = new TypeError("WebSocket chat network connection failed.");
    this.#messages = [...this.#messages, message];
    this.status = "error";
  }
  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  version = 0;
  getVersion = () => this.version;
  #notify() {
    this.version += 1;
    for (const listener of this.#listeners) listener();
  }
}

function setup(stored: UIMessage[]) {
  const sockets = fakeWebSockets();
  const pool = createAgentToolConnectionPool({ WebSocket: sockets.WebSocket, clock: new ManualClock(0), graceMs: 0 });
  const server = { stored, reads: 0 };
  const loadMessages = async () => {
    server.reads += 1;
    return structuredClone(server.stored);
  };
  const tell = (event: unknown) => act(() => sockets.last().send({ type: "agent-chat-event", event }));
  return { sockets, pool, server, loadMessages, tell, storage: memoryUnsentStorage() };
}

type Setup = ReturnType<typeof setup>;

/** A page: the chat's messages (re-rendered on every chat change, as useChat does) and the runs' socket. */
function Conversation({ chat, context }: { chat: FakeChat; context: Setup }) {
  useSyncExternalStore(chat.subscribe, chat.getVersion);
  const conversation = useAgentChatSync({
    url: PARENT,
    pool: context.pool,
    chat,
    loadMessages: context.loadMessages,
    unsentStorage: context.storage,
  });
  const notSent = new Set(conversation.unsent.map((unsent) => unsent.messageId));
  useAgentToolEvents({ url: PARENT, pool: context.pool });
  if (conversation.status === "loading") return <p>Loading</p>;
  return (
    <>
      <ol data-turn={conversation.activeTurn?.turnId ?? ""}>
        {chat.messages.map((message) => (
          <li key={message.id}>
            {message.id}
            {notSent.has(message.id) ? " (not sent)" : ""}
          </li>
        ))}
      </ol>
      {conversation.unsent.map(({ messageId }) => (
        <button key={messageId} type="button" onClick={() => conversation.discardUnsent(messageId)}>
          Discard {messageId}
        </button>
      ))}
      <button type="button" onClick={() => void conversation.stopTurn()}>
        Stop
      </button>
    </>
  );
}

const shown = () => screen.queryAllByRole("listitem").map((item) => item.textContent);

describe("useAgentChatSync", () => {
  it("shows the stored conversation, then what other tabs and the server add, on the runs' socket", async () => {
    const context = setup([user("u1")]);
    const chat = new FakeChat();
    render(<Conversation chat={chat} context={context} />);
    expect(screen.getByText("Loading")).toBeTruthy();
    await act(async () => context.sockets.last().open());
    expect(shown()).toEqual(["u1"]);
    expect(context.sockets.sockets).toHaveLength(1); // one socket for the conversation and the runs
    context.tell({ kind: "message", message: user("from-another-tab") });
    expect(shown()).toEqual(["u1", "from-another-tab"]);
  });

  it("follows a turn that started while the chat was busy once its status says it is idle", async () => {
    const context = setup([]);
    const chat = new FakeChat();
    render(<Conversation chat={chat} context={context} />);
    await act(async () => context.sockets.last().open());
    const asked = chat.resumes;
    act(() => {
      chat.status = "streaming";
    });
    context.tell({ kind: "turn-started", turnId: "t1", origin: "server", resumed: false });
    expect(screen.getByRole("list").getAttribute("data-turn")).toBe("t1");
    expect(chat.resumes).toBe(asked);
    await act(async () => {
      chat.status = "ready";
    });
    expect(chat.resumes).toBe(asked + 1);
  });

  it("under StrictMode, reads and asks as one sync, and stops when unmounted", async () => {
    const context = setup([user("u1")]);
    const chat = new FakeChat();
    const view = render(
      <StrictMode>
        <Conversation chat={chat} context={context} />
      </StrictMode>,
    );
    await act(async () => context.sockets.last().open());
    expect(shown()).toEqual(["u1"]);
    view.unmount();
    const reads = context.server.reads;
    context.sockets.last().send({ type: "agent-chat-event", event: { kind: "message", message: user("late") } });
    expect(chat.messages.map((message) => message.id)).toEqual(["u1"]);
    expect(context.server.reads).toBe(reads);
  });

  it("stops the turn in flight for every tab with a POST to the parent's …/chat/stop/<turnId>", async () => {
    const requests: Array<{ url: string; method: string | undefined }> = [];
    vi.stubGlobal("fetch", async (url: string, init?: RequestInit) => {
      requests.push({ url, method: init?.method });
      return Response.json({ stopped: true });
    });
    const context = setup([]);
    const chat = new FakeChat();
    render(<Conversation chat={chat} context={context} />);
    await act(async () => context.sockets.last().open());
    context.tell({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false });
    await act(async () => screen.getByRole("button", { name: "Stop" }).click());
    expect(requests).toEqual([{ url: "https://example.com/agents/assistant/default/chat/stop/t1", method: "POST" }]);
  });

  it("shows a message whose send was cut as not sent, kept after a reload, until it is discarded", async () => {
    const context = setup([user("u1")]);
    const chat = new FakeChat();
    const view = render(<Conversation chat={chat} context={context} />);
    await act(async () => context.sockets.last().open());
    await act(async () => chat.sendAndLose(user("lost")));
    expect(shown()).toEqual(["u1", "lost (not sent)"]);
    view.unmount();

    const reloaded = new FakeChat();
    render(<Conversation chat={reloaded} context={context} />);
    await act(async () => context.sockets.last().open());
    expect(shown()).toEqual(["u1", "lost (not sent)"]);
    await act(async () => screen.getByRole("button", { name: "Discard lost" }).click());
    expect(shown()).toEqual(["u1"]);
    expect(context.storage.load()).toEqual([]);
  });
});
