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
} as const;

/** Who started a turn: a client's `send`, or the server (a background run's completion told to the chat). */
export type ChatTurnOrigin = "client" | "server";

/**
 * A turn in flight, as stored: it exists from the moment its user message is stored until its answer is, so a turn
 * cut by a crash is found at start-up (and resumed or closed).
 */
export type StoredChatTurn = {
  turnId: string;
  origin: ChatTurnOrigin;
  /** The id of the assistant message the turn streams. */
  assistantMessageId: string;
  /** The user message that started it (client turns). */
  userMessageId?: string;
  startedAt: number;
  /** How many times the turn was resumed after its host was cut off. */
  resumeAttempts: number;
};

type MessageRow = { message: string };
type TurnRow = { turn: string };
type LogRow = { chunks: string };

/**
 * A parent's durable conversation in its Durable Object's SQLite storage: the messages in order (one row each, so
 * storing one message never rewrites the others), the turn in flight, and that turn's chunks so far (one row per
 * write, a batch of chunks). Every method is synchronous SQL, atomic within the object; methods that write several
 * statements run in one transaction.
 */
export class DurableObjectChatStore {
  readonly #storage: ChatStoreStorage;

  constructor(storage: ChatStoreStorage) {
    this.#storage = storage;
    const { sql } = storage;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.messages} (
        position INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        message TEXT NOT NULL
      )`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.turns} (turn_id TEXT NOT NULL PRIMARY KEY, turn TEXT NOT NULL) WITHOUT ROWID`,
    );
    sql.exec(
      `CREATE TABLE IF NOT EXISTS ${CHAT_STORE_TABLES.turnLog} (
        turn_id TEXT NOT NULL,
        first_index INTEGER NOT NULL,
        chunks TEXT NOT NULL,
        PRIMARY KEY (turn_id, first_index)
      ) WITHOUT ROWID`,
    );
  }

  /** The stored conversation, oldest first (a turn in flight contributes its user message, not its answer). */
  messages(): UIMessage[] {
    return this.#storage.sql
      .exec<MessageRow>(`SELECT message FROM ${CHAT_STORE_TABLES.messages} ORDER BY position`)
      .toArray()
      .map((row) => JSON.parse(row.message) as UIMessage);
  }

  /** True when a message with this id is stored. */
  hasMessage(id: string): boolean {
    return this.#storage.sql.exec(`SELECT 1 FROM ${CHAT_STORE_TABLES.messages} WHERE id = ?`, id).toArray().length > 0;
  }

  /** Store a message: a new id goes last; a known id is replaced where it is. Returns whether it was new. */
  upsertMessage(message: UIMessage): boolean {
    const isNew = !this.hasMessage(message.id);
    this.#storage.sql.exec(
      `INSERT INTO ${CHAT_STORE_TABLES.messages} (id, message) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET message = excluded.message`,
      message.id,
      JSON.stringify(message),
    );
    return isNew;
  }

  /** Keep the conversation up to (not including) the message `fromId`, dropping it and everything after. */
  truncateFrom(fromId: string): void {
    const sql = this.#storage.sql;
    const row = sql
      .exec<{ position: number }>(`SELECT position FROM ${CHAT_STORE_TABLES.messages} WHERE id = ?`, fromId)
      .toArray()[0];
    if (row === undefined) return;
    sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.messages} WHERE position >= ?`, row.position);
  }

  /** The turn in flight, if any. */
  activeTurn(): StoredChatTurn | null {
    const row = this.#storage.sql.exec<TurnRow>(`SELECT turn FROM ${CHAT_STORE_TABLES.turns} LIMIT 1`).toArray()[0];
    return row === undefined ? null : (JSON.parse(row.turn) as StoredChatTurn);
  }

  /** Record a turn in flight, with the user message that starts it (stored at once, in the same transaction). */
  beginTurn(turn: StoredChatTurn, userMessage?: UIMessage): void {
    this.#storage.transactionSync(() => {
      if (userMessage) this.upsertMessage(userMessage);
      this.#writeTurn(turn);
    });
  }

  /** Update the stored turn (e.g. its resume attempts). */
  updateTurn(turn: StoredChatTurn): void {
    this.#writeTurn(turn);
  }

  /** Append chunks `firstIndex, firstIndex + 1, …` of a turn's stream (one row). */
  appendTurnChunks(turnId: string, firstIndex: number, chunks: readonly UIMessageChunk[]): void {
    if (chunks.length === 0) return;
    this.#storage.sql.exec(
      `INSERT OR REPLACE INTO ${CHAT_STORE_TABLES.turnLog} (turn_id, first_index, chunks) VALUES (?, ?, ?)`,
      turnId,
      firstIndex,
      JSON.stringify(chunks),
    );
  }

  /** A turn's chunks, in order. */
  turnChunks(turnId: string): UIMessageChunk[] {
    return this.#storage.sql
      .exec<LogRow>(`SELECT chunks FROM ${CHAT_STORE_TABLES.turnLog} WHERE turn_id = ? ORDER BY first_index`, turnId)
      .toArray()
      .flatMap((row) => JSON.parse(row.chunks) as UIMessageChunk[]);
  }

  /** Replace a turn's chunks (a turn resumed after a crash keeps only what it can go on from). */
  rewriteTurnChunks(turnId: string, chunks: readonly UIMessageChunk[]): void {
    this.#storage.transactionSync(() => {
      this.#storage.sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.turnLog} WHERE turn_id = ?`, turnId);
      this.appendTurnChunks(turnId, 0, chunks);
    });
  }

  /** The turn ended: store its answer (when it has one) and forget the turn and its chunks, in one transaction. */
  finishTurn(turnId: string, answer: UIMessage | null): void {
    this.#storage.transactionSync(() => {
      if (answer) this.upsertMessage(answer);
      this.#storage.sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.turnLog} WHERE turn_id = ?`, turnId);
      this.#storage.sql.exec(`DELETE FROM ${CHAT_STORE_TABLES.turns} WHERE turn_id = ?`, turnId);
    });
  }

  #writeTurn(turn: StoredChatTurn): void {
    this.#storage.sql.exec(
      `INSERT INTO ${CHAT_STORE_TABLES.turns} (turn_id, turn) VALUES (?, ?)
       ON CONFLICT (turn_id) DO UPDATE SET turn = excluded.turn`,
      turn.turnId,
      JSON.stringify(turn),
    );
  }
}
