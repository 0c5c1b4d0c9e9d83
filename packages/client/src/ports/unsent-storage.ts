import type { UIMessage } from "ai";

/** Why a message this tab sent is not in the server's conversation. */
export type AgentChatUnsentReason =
  /** The connection was down, or dropped before the server stored the message. */
  | "disconnected"
  /** The server answered the send with an error (a full queue, a message too large, a stale conversation). */
  | "refused"
  /** The send ended, yet the server does not hold the message (e.g. it was stopped while waiting for its turn). */
  | "dropped";

/** A message this tab sent that the server is not known to hold, as a tab keeps it across reloads. */
export type AgentChatUnsentRecord = {
  readonly message: UIMessage;
  /** Why it is not sent; `null` while its send was still in flight (a reload cut it). */
  readonly reason: AgentChatUnsentReason | null;
  /** What the server or the connection said, when it said something. */
  readonly error: string | null;
};

/**
 * Where a tab keeps the messages it sent that the server is not known to hold, so that a reload shows them again as
 * not sent (never silently lost). Synchronous, like the browser's Web Storage. `save` with an empty list forgets all.
 * A `load` that finds nothing readable returns `[]`; a `save` that fails (a full storage) must not throw.
 */
export type AgentChatUnsentStorage = {
  load(): AgentChatUnsentRecord[];
  save(records: readonly AgentChatUnsentRecord[]): void;
};

/** The part of the Web Storage API (`sessionStorage`, `localStorage`) the storage below needs. */
export type WebStorageLike = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/**
 * Unsent messages kept under `key` in a Web Storage: `sessionStorage` keeps them for the tab (a reload, not another
 * tab), `localStorage` for every tab of the origin. An entry that is not what this wrote is ignored.
 */
export function webStorageUnsentStorage(storage: WebStorageLike, key: string): AgentChatUnsentStorage {
  return {
    load() {
      try {
        const value: unknown = JSON.parse(storage.getItem(key) ?? "[]");
        return Array.isArray(value) ? value.filter(isRecord) : [];
      } catch {
        return [];
      }
    },
    save(records) {
      try {
        if (records.length === 0) storage.removeItem(key);
        else storage.setItem(key, JSON.stringify(records));
      } catch {
        // A full (or blocked) storage: the messages stay shown as not sent in this page; only a reload loses them.
      }
    },
  };
}

/** Unsent messages kept in memory only (a reload forgets them): where there is no Web Storage, and in tests. */
export function memoryUnsentStorage(): AgentChatUnsentStorage {
  let kept: AgentChatUnsentRecord[] = [];
  return {
    load: () => structuredClone(kept),
    save(records) {
      kept = structuredClone([...records]);
    },
  };
}

/**
 * The storage a chat sync uses by default: the tab's `sessionStorage` under a key per conversation (its URL without
 * the query), or memory where there is none (or it is blocked).
 */
export function defaultUnsentStorage(conversationUrl: string): AgentChatUnsentStorage {
  try {
    const storage = (globalThis as { sessionStorage?: WebStorageLike }).sessionStorage;
    if (storage) return webStorageUnsentStorage(storage, `agent-tools:unsent:${conversationUrl.split(/[?#]/)[0]}`);
  } catch {
    // a sandboxed frame may not touch its storage
  }
  return memoryUnsentStorage();
}

const REASONS: ReadonlySet<unknown> = new Set(["disconnected", "refused", "dropped", null]);

function isRecord(value: unknown): value is AgentChatUnsentRecord {
  if (typeof value !== "object" || value === null) return false;
  const { message, reason, error } = value as Record<string, unknown>;
  const isMessage =
    typeof message === "object" &&
    message !== null &&
    typeof (message as UIMessage).id === "string" &&
    (message as UIMessage).role === "user" &&
    Array.isArray((message as UIMessage).parts);
  return isMessage && REASONS.has(reason) && (error === null || typeof error === "string");
}
