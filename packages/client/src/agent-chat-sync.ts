import type { AgentChatEvent, AgentChatTurnStatus, AgentToolUsage } from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import type { AgentToolConnection } from "./agent-tool-connection.js";
import { isAgentChatDisconnect } from "./chat-disconnect.js";
import { createListeners } from "./listeners.js";
import { mergeStoredConversation, upsertChatMessage } from "./merge-chat-messages.js";
import { agentChatMessagesUrl, agentChatStopUrl } from "./parent-chat-urls.js";
import { type AgentChatUnsentStorage, defaultUnsentStorage } from "./ports/unsent-storage.js";
import { type AgentChatUnsentMessage, type ChatActivity, UnsentMessages } from "./unsent-messages.js";

/** The status of an AI SDK chat (`useChat`'s `status`). */
export type AgentChatStatus = "submitted" | "streaming" | "ready" | "error";

/**
 * The part of an AI SDK chat the sync drives: `Chat` of `@ai-sdk/react` (the instance you pass to `useChat({ chat })`)
 * and every other `AbstractChat` fit. Read live: `status` and `messages` must say what holds now, not at the last
 * render.
 */
export type AgentChatLike<TMessage extends UIMessage = UIMessage> = {
  messages: TMessage[];
  readonly status: AgentChatStatus;
  readonly error: Error | undefined;
  /** Follow the turn the server is running (the server replays it from its start), or settle at once if none. */
  resumeStream(): Promise<void>;
  /**
   * Send again from `messageId` (the AI SDK's `regenerate`): for a user message, what follows it is dropped and the
   * conversation up to it is sent. `retryUnsent` sends a message not sent this way.
   */
  regenerate(options?: { messageId?: string }): Promise<void>;
};

/** Options of {@link createAgentChatSync}. */
export type AgentChatSyncOptions<TMessage extends UIMessage = UIMessage> = {
  /** The parent's event connection: its conversation events and its reconnects drive the sync. */
  connection: Pick<AgentToolConnection, "url" | "onChatEvent" | "subscribe" | "getSnapshot">;
  chat: AgentChatLike<TMessage>;
  /**
   * Read the stored conversation. Default: `GET` the parent's `…/messages` route (the connection's URL over http(s)),
   * with the global `fetch`.
   */
  loadMessages?: (signal: AbortSignal) => Promise<TMessage[]>;
  /**
   * Ask the server to stop the turn `turnId` for every tab; resolves whether it stopped it. Default: `POST` the
   * parent's `…/chat/stop/<turnId>` route (the connection's URL over http(s)), with the global `fetch`.
   */
  stopTurn?: (turnId: string) => Promise<boolean>;
  /**
   * Where the tab keeps the messages it sent that the server does not hold, so a reload shows them again as not sent.
   * Default: the tab's `sessionStorage`, under a key per conversation (`webStorageUnsentStorage`); memory where there
   * is none.
   */
  unsentStorage?: AgentChatUnsentStorage;
};

/** The turn the server is running, as its events told. */
export type AgentChatTurn = {
  readonly turnId: string;
  /** `client`: a client's message started it (this one or another tab); `server`: the server did (a background run's completion). */
  readonly origin: "client" | "server";
  /** True for a turn resumed after the server was cut off. */
  readonly resumed: boolean;
};

/** What the sync knows, at a point in time. A new object whenever it changes. */
export type AgentChatSyncSnapshot = {
  /**
   * `loading` until the stored conversation was read once; `error` when that first read failed (it is tried again on
   * every reconnect and `reload()`); `ready` after. Later failed reads leave it `ready` (the next reconnect reads again).
   */
  readonly status: "loading" | "ready" | "error";
  /** Why the first read failed, while `status` is `error`. */
  readonly error: string | null;
  /** The turn the server is running now, as far as this client heard; `null` for none (or none heard of since a reconnect). */
  readonly activeTurn: AgentChatTurn | null;
  /** How the turns this client saw end ended, by the id of their stored answer. */
  readonly endedTurns: Readonly<Record<string, AgentChatTurnStatus>>;
  /** What the turn in flight's tree spent so far (its model and every run below it), as last told; `null`: none heard. */
  readonly activeTurnUsage: AgentToolUsage | null;
  /** What each turn this client saw end spent, by the id of its stored answer. */
  readonly usageByAnswer: Readonly<Record<string, AgentToolUsage>>;
  /**
   * The messages this tab sent that the server does not hold — their send failed (the connection was down or
   * dropped, the server refused it) or ended without the server storing it — in the order they were sent. They stay
   * in the chat, last, and in the tab's storage (a reload shows them again) until `retryUnsent` sends one again or
   * `discardUnsent` drops it. Never sent again by itself.
   */
  readonly unsent: readonly AgentChatUnsentMessage[];
  /**
   * True while the parent cannot be reached: the event socket is reconnecting, or the chat's last request failed with
   * a disconnect and was not recovered yet. A UI disables sending meanwhile (a send would fail).
   */
  readonly isDisconnected: boolean;
};

/** A running sync: read its snapshot, reload the conversation, tell it the chat changed, close it. */
export type AgentChatSync = {
  /** Call `listener` after every change of the snapshot; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  getSnapshot(): AgentChatSyncSnapshot;
  /** Read the stored conversation now, merge it into the chat and follow a turn in flight. */
  reload(): Promise<void>;
  /**
   * Tell the sync the chat's `status` (or `error`) changed. Work that waits for the chat to be idle — following a turn
   * another tab or the server started while this chat was busy, reading the conversation after a turn — runs then.
   */
  chatChanged(): void;
  /**
   * Stop the turn the server is running (`activeTurn`) for every tab, whoever started it; resolves whether the server
   * stopped it (`false` when no turn is known to run, or it had ended). The chat's own `stop()` stops only a turn this
   * tab sent; for a turn it follows (another tab's, the server's), the server takes the abort as "stop following".
   */
  stopTurn(): Promise<boolean>;
  /**
   * Send a message not sent again (one of `unsent`), with the chat's `regenerate`: it goes last, after the
   * conversation as the server holds it (other messages not sent wait aside), and the server stores it once — also
   * when it had it after all. Resolves `false` at once when it is not a message not sent, or the chat is busy; else
   * `true` once the send settled (if it failed again, the message is in `unsent` again, with the new reason).
   */
  retryUnsent(messageId: string): Promise<boolean>;
  /** Drop a message not sent from the chat and the tab's storage; returns whether it was one. */
  discardUnsent(messageId: string): boolean;
  /** Stop: no more reads, merges or resumes (a stream already followed goes on). */
  close(): void;
};

/** The snapshot before anything was read. */
export const INITIAL_AGENT_CHAT_SYNC_SNAPSHOT: AgentChatSyncSnapshot = Object.freeze({
  status: "loading",
  error: null,
  activeTurn: null,
  endedTurns: {},
  activeTurnUsage: null,
  usageByAnswer: {},
  unsent: [],
  isDisconnected: false,
});

/**
 * Keep an AI SDK chat in step with a parent agent's durable conversation, for every tab that shows it:
 * - at start, and after every reconnect of the event socket (a network drop, a server restart), the stored
 *   conversation is read and merged into the chat — the server's order wins; a reply still streaming and an unsent
 *   message stay — and a turn in flight is followed (`resumeStream()`: the server replays it, then streams it live);
 * - a message stored by another tab or by the server (a background run's completion) appears at once;
 * - a turn another tab or the server starts is followed live, once the chat is idle, at most once per turn;
 * - a turn's stored answer replaces what streamed, and the conversation is read again once the chat is idle (so a tab
 *   that missed messages, e.g. one that sent from a stale copy, ends up showing what the server stored);
 * - a rewritten history (an edit, a regenerate) is read again;
 * - a chat that failed because the connection dropped is resumed once the event socket is open again (at most once
 *   per reconnect), so a restart leaves no error behind;
 * - a message this tab sent that the server does not hold (its send failed, or ended without the server storing it)
 *   is never dropped: it stays in the chat, last, is reported in `unsent` with the reason, and is kept in the tab's
 *   storage so a reload shows it again, until `retryUnsent` or `discardUnsent`.
 *
 * It never sends a message by itself, and never starts a second resume while one of its own is in flight (the chat
 * would abort the first). `stopTurn()` stops the turn in flight for every tab.
 *
 * @example
 * const connection = createAgentToolConnection({ url: "wss://host/agents/assistant/default" });
 * const chat = new Chat({ transport: new WebSocketChatTransport({ url: "wss://host/agents/assistant/default/chat" }) });
 * const sync = createAgentChatSync({ connection, chat });
 */
export function createAgentChatSync<TMessage extends UIMessage = UIMessage>(
  options: AgentChatSyncOptions<TMessage>,
): AgentChatSync {
  const { connection, chat } = options;
  const loadMessages = options.loadMessages ?? defaultLoader<TMessage>(agentChatMessagesUrl(connection.url));
  const stopTurn = options.stopTurn ?? ((turnId: string) => postStop(agentChatStopUrl(connection.url, turnId)));
  const listeners = createListeners();
  const unsent = new UnsentMessages<TMessage>(options.unsentStorage ?? defaultUnsentStorage(connection.url));
  let snapshot = INITIAL_AGENT_CHAT_SYNC_SNAPSHOT;
  let closed = false;
  /** Reloads in flight: only the newest one applies. */
  let loading: AbortController | null = null;
  /** A resume this sync started and that has not settled: no second one meanwhile. */
  let isResuming = false;
  /** Turns this sync already followed: each at most once, so a stale `activeTurn` cannot loop. */
  const followedTurns = new Set<string>();
  let reloadWhenIdle = false;
  /** Counts the event socket's opens; a chat cut by a disconnect is recovered at most once per open. */
  let openCount = 0;
  let recoveredAtOpen = -1;
  let connectionStatus = connection.getSnapshot().status;
  /** Reads of the conversation started so far: a send that ended is decided by a read started after it. */
  let readsStarted = 0;

  const publish = (next: Partial<AgentChatSyncSnapshot>) => {
    snapshot = { ...snapshot, ...next };
    listeners.notify();
  };
  const isBusy = () => chat.status === "submitted" || chat.status === "streaming";
  /** Change the chat's messages; while it is idle, with the messages not sent last (see `UnsentMessages.arrange`). */
  const setMessages = (next: readonly TMessage[]) => {
    const arranged = isBusy() || unsent.retrying !== null ? next : unsent.arrange(next);
    if (arranged !== chat.messages) chat.messages = [...arranged];
  };
  const isDisconnected = () =>
    connectionStatus === "reconnecting" || (chat.status === "error" && isAgentChatDisconnect(chat.error));
  /** Publish what changed of the messages not sent and of the connection. */
  const publishState = () => {
    const next = { unsent: unsent.unsent, isDisconnected: isDisconnected() };
    if (next.unsent !== snapshot.unsent || next.isDisconnected !== snapshot.isDisconnected) publish(next);
  };
  const activity = (): ChatActivity =>
    isResuming
      ? { kind: "following" }
      : isBusy()
        ? { kind: "sending" }
        : { kind: "idle", error: chat.status === "error" ? chat.error : undefined };

  /** Note this tab's sends: a send that ended is decided by the next read; one that failed is not sent. */
  function observeChat(): void {
    if (unsent.observe(chat.messages, activity(), readsStarted).ended) reloadWhenIdle = true;
    publishState();
  }

  function resume(turnId: string | null): void {
    if (closed || isResuming || isBusy()) return;
    if (turnId !== null) followedTurns.add(turnId);
    isResuming = true;
    chat
      .resumeStream()
      .catch(() => undefined) // the chat shows its own error
      .finally(() => {
        isResuming = false;
        settle();
      });
  }

  /** Follow the active turn if this chat does not yet. */
  function followActiveTurn(): void {
    const turn = snapshot.activeTurn;
    if (turn !== null && !followedTurns.has(turn.turnId)) resume(turn.turnId);
  }

  /** What waits for an idle chat. */
  function settle(): void {
    if (closed) return;
    observeChat();
    if (isBusy() || isResuming || unsent.retrying !== null) return;
    setMessages(chat.messages);
    if (chat.status === "error" && isAgentChatDisconnect(chat.error) && isOpen() && recoveredAtOpen !== openCount) {
      // Once per open of the event socket: a chat that cannot reach the server fails again, and waits for a reconnect.
      recoveredAtOpen = openCount;
      reloadWhenIdle = false;
      void read({ probe: true });
      return;
    }
    if (reloadWhenIdle) {
      reloadWhenIdle = false;
      void read({ probe: false });
      return;
    }
    followActiveTurn();
  }

  const isOpen = () => connectionStatus === "open";

  /**
   * Read the stored conversation and merge it; then follow the turn heard of, or with `probe` (after a start, a
   * reconnect or a disconnect, when turn events may have been missed) ask the server whether one is in flight.
   */
  async function read({ probe }: { probe: boolean }): Promise<void> {
    if (closed) return;
    loading?.abort();
    const controller = new AbortController();
    loading = controller;
    readsStarted += 1;
    const readNumber = readsStarted;
    let stored: TMessage[];
    try {
      stored = await loadMessages(controller.signal);
    } catch (error) {
      if (controller.signal.aborted || closed) return;
      loading = null;
      if (snapshot.status !== "ready") publish({ status: "error", error: errorText(error) });
      return;
    }
    if (controller.signal.aborted || closed) return;
    loading = null;
    unsent.stored(new Set(stored.map((message) => message.id)), readNumber);
    const keepUnsent = isBusy() || chat.status === "error";
    setMessages(mergeStoredConversation(stored, chat.messages, { keepUnsent, keep: (id) => unsent.has(id) }));
    publishState();
    if (snapshot.status !== "ready") publish({ status: "ready", error: null });
    // Whether a turn is in flight is not in the stored conversation: ask (the server answers `no-active` if none).
    if (snapshot.activeTurn !== null) followActiveTurn();
    else if (probe) resume(null);
  }

  function onEvent(event: AgentChatEvent): void {
    if (closed) return;
    switch (event.kind) {
      case "message":
        unsent.heard(event.message.id);
        setMessages(upsertChatMessage(chat.messages, event.message as TMessage));
        publishState();
        return;
      case "turn-started":
        publish({
          activeTurn: { turnId: event.turnId, origin: event.origin, resumed: event.resumed },
          activeTurnUsage: null,
        });
        // A busy chat (its own send, a resume in flight) may be streaming this very turn: once idle, it follows the
        // turn if it is still running (the server answers `no-active` to a resume of a turn that just ended).
        settle();
        return;
      case "turn-ended": {
        const answer = event.message as TMessage | undefined;
        const activeTurn = snapshot.activeTurn?.turnId === event.turnId ? null : snapshot.activeTurn;
        publish({
          activeTurn,
          ...(activeTurn === null ? { activeTurnUsage: null } : {}),
          ...(answer ? { endedTurns: { ...snapshot.endedTurns, [answer.id]: event.status } } : {}),
          ...(answer && event.usage ? { usageByAnswer: { ...snapshot.usageByAnswer, [answer.id]: event.usage } } : {}),
        });
        // The reply this chat is streaming goes on to the same end: replacing it mid-stream would only flicker.
        const isStreamingIt = isBusy() && answer !== undefined && chat.messages.at(-1)?.id === answer.id;
        if (answer && !isStreamingIt) setMessages(upsertChatMessage(chat.messages, answer));
        reloadWhenIdle = true;
        settle();
        return;
      }
      case "turn-usage":
        if (snapshot.activeTurn === null || snapshot.activeTurn.turnId === event.turnId) {
          publish({ activeTurnUsage: event.usage });
        }
        return;
      case "history":
        void read({ probe: false });
        return;
    }
  }

  const unsubscribeEvents = connection.onChatEvent(onEvent);
  const unsubscribeConnection = connection.subscribe(() => {
    const status = connection.getSnapshot().status;
    if (status === connectionStatus) return;
    connectionStatus = status;
    publishState();
    if (status !== "open") return;
    // Events may have been missed while the socket was away: forget the turn heard of, read again.
    openCount += 1;
    if (snapshot.activeTurn !== null) publish({ activeTurn: null });
    void read({ probe: true });
  });
  if (isOpen()) openCount = 1;
  void read({ probe: true });

  return {
    subscribe: listeners.subscribe,
    getSnapshot: () => snapshot,
    reload: () => read({ probe: true }),
    chatChanged: settle,
    stopTurn() {
      const turn = snapshot.activeTurn;
      return turn === null || closed ? Promise.resolve(false) : stopTurn(turn.turnId);
    },
    async retryUnsent(messageId) {
      if (closed || isBusy() || isResuming) return false;
      const message = unsent.beginRetry(messageId);
      if (message === null) return false;
      publishState();
      // The conversation as the server holds it (as far as this tab knows), then the message: what a send carries.
      chat.messages = [...chat.messages.filter((each) => !unsent.has(each.id)), message];
      try {
        await chat.regenerate({ messageId });
      } finally {
        unsent.endRetry(chat.status === "error" ? (chat.error ?? "The send failed") : undefined, readsStarted);
        reloadWhenIdle = true;
        publishState();
        settle();
      }
      return true;
    },
    discardUnsent(messageId) {
      if (closed || !unsent.discard(messageId)) return false;
      setMessages(chat.messages.filter((message) => message.id !== messageId));
      publishState();
      return true;
    },
    close() {
      closed = true;
      loading?.abort();
      unsubscribeEvents();
      unsubscribeConnection();
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function defaultLoader<TMessage extends UIMessage>(url: string): (signal: AbortSignal) => Promise<TMessage[]> {
  return async (signal) => {
    const response = await fetch(url, { signal, headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`Reading the conversation failed: HTTP ${response.status}`);
    const body: unknown = await response.json();
    if (!Array.isArray(body)) throw new Error("Reading the conversation failed: not a list of messages");
    return body as TMessage[];
  };
}

async function postStop(url: string): Promise<boolean> {
  const response = await fetch(url, { method: "POST", headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`Stopping the turn failed: HTTP ${response.status}`);
  const body = (await response.json()) as { stopped?: unknown };
  return body.stopped === true;
}
