"use client";

import { type AgentChatLike, type AgentToolConnection, createAgentChatSync } from "@agent-tools/client";
import {
  type AgentChatSync,
  type AgentChatSyncOptions,
  type AgentChatSyncSnapshot,
  type AgentChatUnsentStorage,
  type AgentToolConnectionPool,
  INITIAL_AGENT_CHAT_SYNC_SNAPSHOT,
} from "@agent-tools/client/internal";
import type { UIMessage } from "ai";
import { useCallback, useEffect, useRef, useSyncExternalStore } from "react";
import { useEventsSource } from "./use-events-source.js";

/** Which parent's conversation, and the chat to keep in step with it. */
export type UseAgentChatSyncOptions<TMessage extends UIMessage = UIMessage> = (
  | { url: string | null | undefined; pool?: AgentToolConnectionPool; connection?: never }
  | { connection: AgentToolConnection | null | undefined; url?: never; pool?: never }
) & {
  /**
   * The chat: the `Chat` instance of `@ai-sdk/react` you also give `useChat({ chat })` (any `AbstractChat` fits).
   * `null` while there is none.
   */
  chat: AgentChatLike<TMessage> | null | undefined;
  /** Read the stored conversation. Default: `GET` the parent's `…/messages` over http(s). */
  loadMessages?: AgentChatSyncOptions<TMessage>["loadMessages"];
  /**
   * Where the tab keeps its messages not sent across reloads. Default: `sessionStorage`, a key per conversation.
   * Read when the sync starts (a new chat, or a new connection).
   */
  unsentStorage?: AgentChatUnsentStorage;
};

export type UseAgentChatSyncResult = AgentChatSyncSnapshot & {
  /** Read the stored conversation again now (and follow a turn in flight). */
  reload(): Promise<void>;
  /**
   * Stop the turn in flight for every tab (`AgentChatSync.stopTurn`): call it with the chat's own `stop()` from a
   * Stop button, since `stop()` alone stops only a turn this tab sent. Resolves whether the server stopped it.
   */
  stopTurn(): Promise<boolean>;
  /**
   * Send a message not sent (one of `unsent`) again, last after the stored conversation (`AgentChatSync.retryUnsent`);
   * resolves whether it was sent again.
   */
  retryUnsent(messageId: string): Promise<boolean>;
  /** Drop a message not sent from the chat and the tab's storage; returns whether it was one. */
  discardUnsent(messageId: string): boolean;
};
const nothing = () => {};

/**
 * Keep an AI SDK chat in step with a parent agent's durable conversation (`createAgentChatSync` of
 * `@agent-tools/client`): the stored conversation at start and after every reconnect, other tabs' messages and turns
 * live, a background run's completion as soon as it is told, the stored answer at each turn's end, a turn cut by
 * a server restart resumed with no error left behind, and the messages this tab sent that the server does not hold
 * (`unsent`, kept across reloads; `retryUnsent`, `discardUnsent`), with `isDisconnected` while the parent is away.
 *
 * It shares the parent's event socket with `useAgentToolEvents` given the same `url`. Call it in the component that
 * calls `useChat({ chat })`: that component re-renders on every change of the chat's status, which is when the sync
 * runs what waited for the chat to be idle. StrictMode-safe: the sync of an unmounted component stops at once.
 *
 * @example
 * const [chat] = useState(() => new Chat({ id, transport: new WebSocketChatTransport({ url: `${base}/chat` }) }));
 * const { messages, status, sendMessage } = useChat({ chat });
 * const conversation = useAgentChatSync({ url: base, chat });
 * if (conversation.status === "loading") return <p>Loading…</p>;
 */
export function useAgentChatSync<TMessage extends UIMessage = UIMessage>(
  options: UseAgentChatSyncOptions<TMessage>,
): UseAgentChatSyncResult {
  const { chat, loadMessages, unsentStorage, ...parent } = options;
  const source = useEventsSource(parent);
  const loadRef = useRef(loadMessages);
  const storageRef = useRef(unsentStorage);
  useEffect(() => {
    loadRef.current = loadMessages;
    storageRef.current = unsentStorage;
  }, [loadMessages, unsentStorage]);

  const current = useRef<AgentChatSync | null>(null);
  const subscribe = useCallback(
    (listener: () => void) => {
      if (!chat) return nothing;
      const held = source.hold((connection) =>
        createAgentChatSync<TMessage>({
          connection,
          chat,
          ...(loadRef.current ? { loadMessages: (signal: AbortSignal) => readWith(loadRef.current, signal) } : {}),
          ...(storageRef.current ? { unsentStorage: storageRef.current } : {}),
        }),
      );
      if (!held) return nothing;
      const sync = held.value;
      current.current = sync;
      const unsubscribe = sync.subscribe(listener);
      listener(); // its first snapshot may differ from the idle one read before
      return () => {
        unsubscribe();
        sync.close();
        if (current.current === sync) current.current = null;
        held.release();
      };
    },
    [source, chat],
  );
  const getSnapshot = useCallback(() => current.current?.getSnapshot() ?? INITIAL_AGENT_CHAT_SYNC_SNAPSHOT, []);
  const snapshot = useSyncExternalStore(subscribe, getSnapshot, getSnapshot);

  // What waits for an idle chat runs when its status changes: this component re-renders then (it calls useChat).
  const status = chat?.status;
  const error = chat?.error;
  // biome-ignore lint/correctness/useExhaustiveDependencies: status and error are the triggers
  useEffect(() => {
    current.current?.chatChanged();
  }, [status, error, snapshot]);

  const reload = useCallback(() => current.current?.reload() ?? Promise.resolve(), []);
  const stopTurn = useCallback(() => current.current?.stopTurn() ?? Promise.resolve(false), []);
  const retryUnsent = useCallback(
    (messageId: string) => current.current?.retryUnsent(messageId) ?? Promise.resolve(false),
    [],
  );
  const discardUnsent = useCallback((messageId: string) => current.current?.discardUnsent(messageId) ?? false, []);
  return { ...snapshot, reload, stopTurn, retryUnsent, discardUnsent };
}

function readWith<TMessage extends UIMessage>(
  load: AgentChatSyncOptions<TMessage>["loadMessages"],
  signal: AbortSignal,
): Promise<TMessage[]> {
  if (!load) return Promise.reject(new Error("useAgentChatSync: no loadMessages"));
  return load(signal);
}
