import type { UIMessage } from "ai";
import { isAgentChatDisconnect } from "./chat-disconnect.js";
import type { AgentChatUnsentReason, AgentChatUnsentRecord, AgentChatUnsentStorage } from "./ports/unsent-storage.js";

/** A message this tab sent that the server does not hold, as a chat sync's snapshot reports it. */
export type AgentChatUnsentMessage = {
  readonly messageId: string;
  readonly reason: AgentChatUnsentReason;
  /** What the server or the connection said (`null` when nothing was said, e.g. a send cut by a reload). */
  readonly error: string | null;
};

/** Where the chat stands, as far as this tab's sends are concerned. */
export type ChatActivity =
  /** The chat sends (a request of its own in flight). */
  | { kind: "sending" }
  /** The chat follows a turn the sync asked for: it sends nothing. */
  | { kind: "following" }
  /** The chat is idle; `error` is why its last request failed, if it did. */
  | { kind: "idle"; error: unknown };

/**
 * - `sending`: its request is in flight;
 * - `ended`: its request ended without an error: the next read of the conversation started after that says whether
 *   the server holds it (a send stopped while it waited for its turn is not stored);
 * - `unsent`: the server does not hold it, and will not unless it is sent again.
 */
type Phase = "sending" | "ended" | "unsent";

type Entry<TMessage extends UIMessage> = {
  message: TMessage;
  phase: Phase;
  reason: AgentChatUnsentReason | null;
  error: string | null;
  /** For `ended`: the number of reads started before it ended (only a later read may decide). */
  readsBefore: number;
};

/**
 * @internal The messages this tab sent that the server is not known to hold, from the moment the chat sends them
 * until the server is known to hold them (a read of the conversation, an event) or the user discards them; kept in
 * the tab's storage all along, so that a reload shows them again. The rules only; `createAgentChatSync` drives it.
 */
export class UnsentMessages<TMessage extends UIMessage> {
  readonly #storage: AgentChatUnsentStorage;
  readonly #entries = new Map<string, Entry<TMessage>>();
  /** Ids the server holds: the last read's, and those events told of since. */
  #known = new Set<string>();
  /** What the storage held when this tab (re)started, until the first read says which the server holds. */
  #restored: AgentChatUnsentRecord[] | null;
  /** Set while a retry of this message runs: its outcome is decided when the retry settles, not on the way. */
  #retrying: string | null = null;
  #snapshot: readonly AgentChatUnsentMessage[] = [];

  constructor(storage: AgentChatUnsentStorage) {
    this.#storage = storage;
    this.#restored = storage.load();
  }

  /** The messages not sent, in the order they were sent (the same array while nothing changes). */
  get unsent(): readonly AgentChatUnsentMessage[] {
    return this.#snapshot;
  }

  get retrying(): string | null {
    return this.#retrying;
  }

  /** True while `messageId` is tracked (sending, waiting for a read, or not sent). */
  has(messageId: string): boolean {
    return this.#entries.has(messageId);
  }

  /**
   * A read of the conversation (the `readsBefore`-th read started) found `storedIds`: what it holds is sent; a send
   * that ended before this read started and is not there was dropped; at the first read, what the storage held comes
   * back as not sent. Returns whether anything changed.
   */
  stored(storedIds: ReadonlySet<string>, readNumber: number): boolean {
    this.#known = new Set(storedIds);
    let changed = false;
    for (const record of this.#restored ?? []) {
      if (storedIds.has(record.message.id) || this.#entries.has(record.message.id)) continue;
      this.#entries.set(record.message.id, {
        message: record.message as TMessage,
        phase: "unsent",
        reason: record.reason ?? "disconnected",
        error: record.error,
        readsBefore: 0,
      });
      changed = true;
    }
    const restored = this.#restored !== null;
    this.#restored = null;
    for (const [id, entry] of this.#entries) {
      if (storedIds.has(id)) {
        this.#entries.delete(id);
        changed = true;
      } else if (entry.phase === "ended" && readNumber > entry.readsBefore) {
        Object.assign(entry, { phase: "unsent", reason: "dropped", error: null });
        changed = true;
      }
    }
    return this.#changed(changed || restored);
  }

  /** An event told that the server stored `messageId`. */
  heard(messageId: string): boolean {
    this.#known.add(messageId);
    return this.#changed(this.#entries.delete(messageId));
  }

  /**
   * The chat changed: a user message it holds that the server is not known to hold is this tab's send. Nothing is
   * decided before the first read (`isReady`), since until then nothing is known to be stored. `readsStarted` counts
   * the reads started so far. Returns whether a send ended (a read then tells whether the server holds it).
   */
  observe(messages: readonly TMessage[], activity: ChatActivity, readsStarted: number): { ended: boolean } {
    if (this.#restored !== null || activity.kind === "following") return { ended: false };
    let changed = false;
    let ended = false;
    for (const message of messages) {
      if (message.role !== "user" || this.#known.has(message.id) || this.#entries.has(message.id)) continue;
      this.#entries.set(message.id, { message, phase: "sending", reason: null, error: null, readsBefore: 0 });
      changed = true;
    }
    if (activity.kind === "idle") {
      for (const [id, entry] of this.#entries) {
        if (entry.phase !== "sending" || id === this.#retrying) continue;
        // An answer to it began streaming: the server took the send, and what failed is the answer (a read, or the
        // server's event, soon says it holds the message). Reported refused, it showed "Not sent" until then.
        const error = isAnsweredIn(messages, id) ? undefined : activity.error;
        this.#end(entry, error, readsStarted);
        changed = true;
        ended = true;
      }
    }
    this.#changed(changed);
    return { ended };
  }

  /** Start sending `messageId` again; returns its message, or `null` when it is not a message not sent. */
  beginRetry(messageId: string): TMessage | null {
    const entry = this.#entries.get(messageId);
    if (entry?.phase !== "unsent" || this.#retrying !== null) return null;
    Object.assign(entry, { phase: "sending", reason: null, error: null });
    this.#retrying = messageId;
    this.#changed(true);
    return entry.message;
  }

  /** The retry settled: the chat is idle, failed with `error` or not. */
  endRetry(error: unknown, readsStarted: number): void {
    const entry = this.#retrying === null ? undefined : this.#entries.get(this.#retrying);
    this.#retrying = null;
    if (entry?.phase === "sending") this.#end(entry, error, readsStarted);
    this.#changed(true);
  }

  /** Forget a message not sent; returns whether it was one. */
  discard(messageId: string): boolean {
    if (this.#entries.get(messageId)?.phase !== "unsent") return false;
    this.#entries.delete(messageId);
    return this.#changed(true);
  }

  /**
   * `messages` with the messages not sent last, in the order they were sent (those the chat lost meanwhile put back):
   * so that the next send, or a retry, sends the conversation as the server holds it, then one message. Returns
   * `messages` itself when nothing moves.
   */
  arrange(messages: readonly TMessage[]): readonly TMessage[] {
    const unsent = [...this.#entries.values()].filter((entry) => entry.phase === "unsent");
    if (unsent.length === 0) return messages;
    const ids = new Set(unsent.map((entry) => entry.message.id));
    const byId = new Map(messages.map((message) => [message.id, message]));
    const arranged = [
      ...messages.filter((message) => !ids.has(message.id)),
      ...unsent.map((entry) => byId.get(entry.message.id) ?? entry.message),
    ];
    return arranged.every((message, index) => message === messages[index]) && arranged.length === messages.length
      ? messages
      : arranged;
  }

  #end(entry: Entry<TMessage>, error: unknown, readsStarted: number): void {
    if (error === undefined || error === null) {
      Object.assign(entry, { phase: "ended", readsBefore: readsStarted });
      return;
    }
    Object.assign(entry, {
      phase: "unsent",
      reason: isAgentChatDisconnect(error) ? "disconnected" : "refused",
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** After a change: keep the storage and the snapshot in step. Returns `changed`. */
  #changed(changed: boolean): boolean {
    if (!changed) return false;
    const entries = [...this.#entries.values()];
    this.#storage.save(
      entries.map(({ message, phase, reason, error }) => ({
        message,
        reason: phase === "unsent" ? reason : null,
        error: phase === "unsent" ? error : null,
      })),
    );
    const next = entries.flatMap((entry) =>
      entry.phase === "unsent" && entry.reason !== null
        ? [{ messageId: entry.message.id, reason: entry.reason, error: entry.error }]
        : [],
    );
    const same =
      next.length === this.#snapshot.length &&
      next.every((unsent, index) => {
        const previous = this.#snapshot[index];
        return (
          previous?.messageId === unsent.messageId &&
          previous.reason === unsent.reason &&
          previous.error === unsent.error
        );
      });
    if (!same) this.#snapshot = next;
    return !same;
  }
}

/** True when an assistant message follows the user message `messageId` in `messages`: its answer began. */
function isAnsweredIn(messages: readonly UIMessage[], messageId: string): boolean {
  const index = messages.findIndex((message) => message.id === messageId);
  return index !== -1 && messages.slice(index + 1).some((message) => message.role === "assistant");
}
