import type { ChatStore, StoredChatTurn } from "@agent-tools/chat";
import type { UIMessage, UIMessageChunk } from "ai";

/** The part of `ctx.storage` the chat store uses (a SQLite-backed Durable Object's storage satisfies it). */
export type ChatStoreStorage = {
  readonly sql: Pick<SqlStorage, "exec">;
  transactionSync<T>(closure: () => T): T;
};

/** The tables the chat store owns. */
export const CHAT_STORE_TABLES = {
  messages: "agent_tool_chat_messages",
  turns: "agent_tool_chat_turns",
  turnLog: "agent_tool_chat_turn_log",
  segments: "agent_tool_chat_segments",
} as const;

/**
 * Largest text (in UTF-16 code units) one row holds. workerd caps a row at 2 MB; a code unit is at most 3 bytes of
 * UTF-8, so 600 000 units stay under the cap. A longer value goes into segments of this size.
 */
const SEGMENT_CHARS = 600_000;

/** What a row holds in place of a value stored in segments (a stored value is JSON: it never starts like this). */
const SEGMENTED_PREFIX = "agent-tools:segments:";

/** Whose value a segment is part of: a message (`m`, by id) or a batch of a turn's log (`l`, by turn and index). */
type SegmentOwner = { kind: "m" | "l"; key: string; sub: number };

type TextRow = { text: string };
type MessageRow = { id: string; message: string };
type TurnRow = { turn: string };
type LogRow = { turn_id: string; first_index: number; chunks: string };

/**
 * `ChatStore` over a SQLite-backed Durable Object's storage: the messages in order (one row each, so storing one
 * message never rewrites the others), the turns in flight, and each turn's chunks so far (one row per write, a batch
 * of chunks). A value longer than a row may hold (a big paste, a long answer) is split across rows of a segments
 * table, so no legal value can fail on the row limit. Every method is synchronous SQL, atomic within the object;
 * methods that write several statements run in one transaction. Passes `chatStoreContractCases` inside workerd.
 */
export class DurableObjectChatStore implements ChatStore {
  readonly #storage: ChatStoreStorage;

  constructor(storage: ChatStoreStorage) {
    this.#storage = storage;
    // One statement: a new object's tables are made in one call (idempotent on the next wake-up).
    storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.messages} (
        position INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        message TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.turns} (turn_id TEXT NOT NULL PRIMARY KEY, turn TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.turnLog} (
        turn_id TEXT NOT NULL,
        first_index INTEGER NOT NULL,
        chunks TEXT NOT NULL,
        PRIMARY KEY (turn_id, first_index)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.segments} (
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        sub INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (kind, key, sub, seq)
      ) WITHOUT ROWID`,
    );
  }

  async messages(): Promise<UIMessage[]> {
    return this.#storage.sql
      .exec<MessageRow>(`SELECT id, message FROM ${CHAT_STORE_TABLES.messages} ORDER BY position`)
      .toArray()
      .map((row) => JSON.parse(this.#readValue({ kind: "m", key: row.id, sub: 0 }, row.message)) as UIMessage);
  }

  async hasMessage(id: string): Promise<boolean> {
    return this.#hasMessage(id);
  }

  async upsertMessage(message: UIMessage): Promise<boolean> {
    return this.#storage.transactionSync(() => this.#upsert(message));
  }

  async truncateFrom(fromId: string): Promise<void> {
    const sql = this.#storage.sql;
    const row = sql
      .exec<{ position: number }>(`SELECT position FROM ${CHAT_STORE_TABLES.messages} WHERE id = ?`, fromId)
      .toArray()[0];
    if (row === undefined) return;
    this.#storage.transactionSync(() => {
      sql.exec(
        `DELETE FROM ${CHAT_STORE_TABLES.segments} WHERE kind = 'm' AND key IN (SELECT id FROM ${CHAT_STORE_TABLES.messages} WHERE position >= ?)`,
        row.position,
      );
      sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.messages} WHERE position >= ?`, row.position);
    });
  }

  async turns(): Promise<StoredChatTurn[]> {
    return this.#storage.sql
      .exec<TurnRow>(`SELECT turn FROM ${CHAT_STORE_TABLES.turns}`)
      .toArray()
      .map((row) => JSON.parse(row.turn) as StoredChatTurn)
      .sort((left, right) => left.startedAt - right.startedAt);
  }

  async beginTurn(turn: StoredChatTurn, userMessage?: UIMessage): Promise<void> {
    this.#storage.transactionSync(() => {
      if (userMessage) this.#upsert(userMessage);
      this.#writeTurn(turn);
    });
  }

  async updateTurn(turn: StoredChatTurn): Promise<void> {
    this.#writeTurn(turn);
  }

  async appendTurnChunks(turnId: string, firstIndex: number, chunks: readonly UIMessageChunk[]): Promise<void> {
    if (chunks.length === 0) return;
    this.#storage.transactionSync(() => this.#appendChunks(turnId, firstIndex, chunks));
  }

  async turnChunks(turnId: string): Promise<UIMessageChunk[]> {
    return this.#storage.sql
      .exec<LogRow>(
        `SELECT turn_id, first_index, chunks FROM ${CHAT_STORE_TABLES.turnLog} WHERE turn_id = ? ORDER BY first_index`,
        turnId,
      )
      .toArray()
      .flatMap(
        (row) =>
          JSON.parse(this.#readValue({ kind: "l", key: turnId, sub: row.first_index }, row.chunks)) as UIMessageChunk[],
      );
  }

  async rewriteTurnChunks(turnId: string, chunks: readonly UIMessageChunk[]): Promise<void> {
    this.#storage.transactionSync(() => {
      this.#deleteLog(turnId);
      if (chunks.length > 0) this.#appendChunks(turnId, 0, chunks);
    });
  }

  async finishTurn(turnId: string, answer: UIMessage | null): Promise<void> {
    this.#storage.transactionSync(() => {
      if (answer) this.#upsert(answer);
      this.#deleteLog(turnId);
      this.#storage.sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.turns} WHERE turn_id = ?`, turnId);
    });
  }

  #hasMessage(id: string): boolean {
    return this.#storage.sql.exec(`SELECT 1 FROM ${CHAT_STORE_TABLES.messages} WHERE id = ?`, id).toArray().length > 0;
  }

  #upsert(message: UIMessage): boolean {
    const isNew = !this.#hasMessage(message.id);
    const text = this.#writeValue({ kind: "m", key: message.id, sub: 0 }, JSON.stringify(message));
    this.#storage.sql.exec(
      `INSERT INTO ${CHAT_STORE_TABLES.messages} (id, message) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET message = excluded.message`,
      message.id,
      text,
    );
    return isNew;
  }

  #appendChunks(turnId: string, firstIndex: number, chunks: readonly UIMessageChunk[]): void {
    const text = this.#writeValue({ kind: "l", key: turnId, sub: firstIndex }, JSON.stringify(chunks));
    this.#storage.sql.exec(
      `INSERT OR REPLACE INTO ${CHAT_STORE_TABLES.turnLog} (turn_id, first_index, chunks) VALUES (?, ?, ?)`,
      turnId,
      firstIndex,
      text,
    );
  }

  #deleteLog(turnId: string): void {
    const sql = this.#storage.sql;
    sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.turnLog} WHERE turn_id = ?`, turnId);
    sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.segments} WHERE kind = 'l' AND key = ?`, turnId);
  }

  #writeTurn(turn: StoredChatTurn): void {
    this.#storage.sql.exec(
      `INSERT INTO ${CHAT_STORE_TABLES.turns} (turn_id, turn) VALUES (?, ?)
       ON CONFLICT (turn_id) DO UPDATE SET turn = excluded.turn`,
      turn.turnId,
      JSON.stringify(turn),
    );
  }

  /**
   * What the owner's row holds for `text`: the text itself when it fits in a row, else a pointer to the segments it
   * was split into (the owner's earlier segments are replaced). Call inside a transaction.
   */
  #writeValue(owner: SegmentOwner, text: string): string {
    const sql = this.#storage.sql;
    sql.exec(
      `DELETE FROM ${CHAT_STORE_TABLES.segments} WHERE kind = ? AND key = ? AND sub = ?`,
      owner.kind,
      owner.key,
      owner.sub,
    );
    if (text.length <= SEGMENT_CHARS) return text;
    const segments = splitText(text, SEGMENT_CHARS);
    segments.forEach((segment, seq) => {
      sql.exec(
        `INSERT INTO ${CHAT_STORE_TABLES.segments} (kind, key, sub, seq, text) VALUES (?, ?, ?, ?, ?)`,
        owner.kind,
        owner.key,
        owner.sub,
        seq,
        segment,
      );
    });
    return `${SEGMENTED_PREFIX}${segments.length}`;
  }

  /** The value a row holds, read back from its segments when it was split. */
  #readValue(owner: SegmentOwner, stored: string): string {
    if (!stored.startsWith(SEGMENTED_PREFIX)) return stored;
    return this.#storage.sql
      .exec<TextRow>(
        `SELECT text FROM ${CHAT_STORE_TABLES.segments} WHERE kind = ? AND key = ? AND sub = ? ORDER BY seq`,
        owner.kind,
        owner.key,
        owner.sub,
      )
      .toArray()
      .map((row) => row.text)
      .join("");
  }
}

/** Split `text` into pieces of at most `size` code units, never between the two halves of a surrogate pair. */
function splitText(text: string, size: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}
