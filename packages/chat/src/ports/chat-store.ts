import type { AgentToolUsage } from "@agent-tools/core-runs";
import type { UIMessage, UIMessageChunk } from "ai";

/** Who started a turn: a client's `send` (or a message sent from code), or the server (a background run's news). */
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
  /** How many times the turn was resumed after its host was cut off (counted before the resumed turn writes). */
  resumeAttempts: number;
  /**
   * The turn's own share of its usage so far: its model calls, and (as `runs`) the runs it dispatched itself, written
   * when the model calls' figure changes (`runs` may be behind: a dispatch alone is not written). A turn resumed after
   * a restart goes on from it when its journal holds no usage (what its runs spent, and how many it dispatched, is read
   * again from their rows), so a restart never resets the turn's budget.
   */
  usage?: AgentToolUsage;
};

/**
 * Durable storage for one conversation: its messages in order, the turns in flight, and each turn's chunks so far.
 * Implemented once per host (`InMemoryChatStore`, the Durable Object adapter in `@agent-tools/cloudflare`).
 *
 * Guarantees an implementation must give (checked by `chatStoreContractCases` from `@agent-tools/chat/testing`):
 * - every method is atomic: a method that writes several things writes all of them or none (`beginTurn`,
 *   `rewriteTurnChunks`, `finishTurn`);
 * - any value the engine hands it is stored whole, however large (a host with a row limit splits values across
 *   rows), and read back equal, Unicode included;
 * - `messages()` is in conversation order: a new id goes last, a known id is replaced where it is;
 * - `turns()` lists every stored turn, oldest first by `startedAt` (a crash may leave more than one);
 * - `turnChunks` returns the chunks of every `appendTurnChunks` call in `firstIndex` order; appending at a
 *   `firstIndex` already written replaces that batch.
 */
export interface ChatStore {
  /** The stored conversation, oldest first (a turn in flight contributes its user message, not its answer). */
  messages(): Promise<UIMessage[]>;
  /** True when a message with this id is stored. */
  hasMessage(id: string): Promise<boolean>;
  /** Store a message: a new id goes last; a known id is replaced where it is. Resolves whether it was new. */
  upsertMessage(message: UIMessage): Promise<boolean>;
  /** Keep the conversation up to (not including) the message `fromId`, dropping it and everything after. */
  truncateFrom(fromId: string): Promise<void>;
  /** Every turn stored as in flight, oldest first. */
  turns(): Promise<StoredChatTurn[]>;
  /** Record a turn in flight, with the user message that starts it (stored in the same write). */
  beginTurn(turn: StoredChatTurn, userMessage?: UIMessage): Promise<void>;
  /** Update a stored turn (e.g. its resume attempts). */
  updateTurn(turn: StoredChatTurn): Promise<void>;
  /** Append chunks `firstIndex, firstIndex + 1, …` of a turn's stream. */
  appendTurnChunks(turnId: string, firstIndex: number, chunks: readonly UIMessageChunk[]): Promise<void>;
  /** A turn's chunks, in order. */
  turnChunks(turnId: string): Promise<UIMessageChunk[]>;
  /** Replace a turn's chunks (a turn resumed after a crash keeps only what it can go on from). */
  rewriteTurnChunks(turnId: string, chunks: readonly UIMessageChunk[]): Promise<void>;
  /** The turn ended: store its answer (when it has one) and forget the turn and its chunks, in one write. */
  finishTurn(turnId: string, answer: UIMessage | null): Promise<void>;
}
