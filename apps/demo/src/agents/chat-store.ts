import type { UIMessage } from "ai";

/** The part of `ctx.storage` the chat store uses. */
type ChatStorage = { readonly sql: Pick<SqlStorage, "exec"> };

/** The Assistant's persisted chat messages: one row holding the conversation (one chat per Assistant object). */
export class ChatStore {
  readonly #storage: ChatStorage;

  constructor(storage: ChatStorage) {
    this.#storage = storage;
    storage.sql.exec("CREATE TABLE IF NOT EXISTS demo_chat (id INTEGER PRIMARY KEY, messages TEXT NOT NULL)");
  }

  load(): UIMessage[] {
    const row = this.#storage.sql
      .exec<{ messages: string }>("SELECT messages FROM demo_chat WHERE id = 1")
      .toArray()[0];
    return row ? (JSON.parse(row.messages) as UIMessage[]) : [];
  }

  save(messages: UIMessage[]): void {
    this.#storage.sql.exec(
      "INSERT INTO demo_chat (id, messages) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET messages = excluded.messages",
      JSON.stringify(messages),
    );
  }
}
