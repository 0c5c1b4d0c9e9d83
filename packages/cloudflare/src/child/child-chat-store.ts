import type { UIMessage } from "ai";

/** The part of `ctx.storage` the child's chat store uses. */
export type ChildChatStorage = { readonly sql: Pick<SqlStorage, "exec"> };

const TABLE = "agent_tool_child_chat";

/**
 * What a direct-chat run takes as input: the conversation it belongs to and the user's message; `continues` names the
 * agent-tool run whose conversation it goes on (its messages come first).
 */
export type ChildChatInput = { kind: "agent-tools:chat"; conversation: string; message: UIMessage; continues?: string };

/** The conversation that goes on from agent-tool run `runId` (talking to a child through its parent). */
export function runConversation(runId: string): string {
  return `run:${runId}`;
}

/** True for the input of a direct-chat run (not an agent-tool run). */
export function isChildChatInput(input: unknown): input is ChildChatInput {
  const value = input as Partial<ChildChatInput> | null;
  return (
    typeof value === "object" &&
    value !== null &&
    value.kind === "agent-tools:chat" &&
    typeof value.conversation === "string" &&
    typeof value.message === "object"
  );
}

/** The runId of a direct-chat message: unique per conversation and message, so a resend never runs twice. */
export function childChatRunId(conversation: string, messageId: string): string {
  return `chat:${conversation}:${messageId}`;
}

/**
 * A child's direct conversations (the seed's `subAgent(Child, name).chat()`), in its own SQLite storage: the
 * messages of each named conversation, in order. Each answer is a run of the child's runner (a durable, resumable
 * log); its user message and assistant message are stored here once the run ends.
 * @internal
 */
export class ChildChatStore {
  readonly #storage: ChildChatStorage;

  constructor(storage: ChildChatStorage) {
    this.#storage = storage;
    storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (
        conversation TEXT NOT NULL,
        position INTEGER NOT NULL,
        id TEXT NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (conversation, position)
      ) WITHOUT ROWID`,
    );
  }

  messages(conversation: string): UIMessage[] {
    return this.#storage.sql
      .exec<{ message: string }>(`SELECT message FROM ${TABLE} WHERE conversation = ? ORDER BY position`, conversation)
      .toArray()
      .map((row) => JSON.parse(row.message) as UIMessage);
  }

  /** Append messages to a conversation, skipping ids it holds already (idempotent). */
  append(conversation: string, messages: readonly UIMessage[]): void {
    const sql = this.#storage.sql;
    const known = new Set(this.messages(conversation).map((message) => message.id));
    let position =
      sql
        .exec<{ next: number | null }>(
          `SELECT MAX(position) + 1 AS next FROM ${TABLE} WHERE conversation = ?`,
          conversation,
        )
        .toArray()[0]?.next ?? 0;
    for (const message of messages) {
      if (known.has(message.id)) continue;
      sql.exec(
        `INSERT INTO ${TABLE} (conversation, position, id, message) VALUES (?, ?, ?, ?)`,
        conversation,
        position,
        message.id,
        JSON.stringify(message),
      );
      known.add(message.id);
      position += 1;
    }
  }
}
