import { errorMessage, type JournalEntry, type TurnJournal } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";
import type { ActiveTurn } from "./active-turn.js";
import type { ChatStore } from "./ports/chat-store.js";

/**
 * A conversation turn's journal: its chunks in the chat store (`appendTurnChunks`, bounded writes, a fact at once),
 * sent to the turn's followers as they are written (see `ActiveTurn`). What recovery drops is left out by rewriting
 * the turn's chunks (a conversation turn's chunks have no public sequence).
 * @internal
 */
export class ChatTurnJournal<TPeer> implements TurnJournal {
  readonly #store: ChatStore;
  readonly #active: ActiveTurn<TPeer>;
  /** The turn's answer went over a limit, or a write failed: the turn fails with this text. */
  readonly #onRefused: (errorText: string) => void;
  readonly #limit: number;
  #sequence = 0;

  constructor(options: {
    store: ChatStore;
    active: ActiveTurn<TPeer>;
    maxAnswerBytes: number;
    onRefused(errorText: string): void;
  }) {
    this.#store = options.store;
    this.#active = options.active;
    this.#limit = options.maxAnswerBytes;
    this.#onRefused = options.onRefused;
  }

  async read(): Promise<JournalEntry[]> {
    const chunks = await this.#store.turnChunks(this.#active.stored.turnId);
    return chunks.map((body, index) => ({ sequence: index + 1, body }));
  }

  async keep(entries: readonly JournalEntry[], voided: readonly number[]): Promise<void> {
    const dropped = new Set(voided);
    const kept = entries.filter((entry) => !dropped.has(entry.sequence)).map((entry) => entry.body);
    if (dropped.size > 0) await this.#store.rewriteTurnChunks(this.#active.stored.turnId, kept);
    for (const chunk of kept) this.#active.push(chunk, { write: false });
    this.#active.writer.skip(kept.length);
    this.#sequence = entries.at(-1)?.sequence ?? 0;
  }

  append(chunk: UIMessageChunk): number {
    return this.appendAll([chunk]);
  }

  appendAll(chunks: readonly UIMessageChunk[]): number {
    this.#sequence += chunks.length;
    const { state } = this.#active;
    if (state.phase === "ending" || state.phase === "ended") return this.#sequence;
    const pushed = chunks.length === 1 ? this.#active.push(chunks[0] as UIMessageChunk) : this.#active.pushAll(chunks);
    if (pushed === "over-answer-limit") {
      this.#onRefused(`The answer is too large to store (over ${this.#limit} bytes); it was ended there`);
    } else if (this.#active.writer.hasFailed) {
      this.#onRefused(`The answer could not be saved: ${errorMessage(this.#active.writer.error)}`);
    }
    return this.#sequence;
  }

  /** Journal the turn's usage: written with the next write, sent to nobody. */
  note(chunk: UIMessageChunk): void {
    this.#sequence += 1;
    this.#active.note(chunk);
  }

  durable(): Promise<void> {
    return this.#active.writer.flush();
  }
}
