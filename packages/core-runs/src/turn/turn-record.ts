import type { UIMessageChunk } from "ai";
import { toolStartedChunk } from "../protocol/index.js";
import { foldEntry, foldJournal, type JournalEntry, type JournalFold } from "./journal-fold.js";
import type { ToolJournalGate } from "./journaled-tools.js";
import type { TurnHost } from "./turn-host.js";

/**
 * A turn in progress, in memory: what it journaled (its chunks, and their fold), the calls whose decision is being
 * written, and the tools waiting for it.
 */
export class TurnRecord {
  readonly fold: JournalFold;
  /** The turn's chunks, journaled (kept from before, then this turn's), in order. */
  readonly chunks: UIMessageChunk[];
  /** How many chunks this turn journaled itself. */
  appended = 0;
  readonly #host: TurnHost;
  /** By toolCallId: resolves once the call's decision is durable. */
  readonly #decided = new Map<string, Promise<void>>();
  readonly #waiters = new Map<string, Array<(decided: Promise<void>) => void>>();
  /** True while the turn reads its model's stream (the calls it decides come through it). */
  #isConsuming = false;

  constructor(host: TurnHost, kept: readonly JournalEntry[]) {
    this.#host = host;
    this.fold = foldJournal(kept);
    this.chunks = kept.map((entry) => entry.body);
  }

  /**
   * Journal a chunk and fold it in. A decided call's write starts at once (it is a fact) and releases the tool
   * waiting for it once durable; an approval asked is followed by the host's chunk for it.
   */
  append(chunk: UIMessageChunk): void {
    // An approval asked goes into the journal with the host's chunk for it, in one write.
    const follow = chunk.type === "tool-approval-request" ? this.#approvalChunk(chunk) : null;
    const chunks = follow ? [chunk, follow] : [chunk];
    const last = follow ? this.#host.journal.appendAll(chunks) : this.#host.journal.append(chunk);
    chunks.forEach((body, index) => {
      foldEntry(this.fold, { sequence: last - chunks.length + 1 + index, body });
      this.chunks.push(body);
      this.appended += 1;
    });
    if (chunk.type === "tool-input-available") {
      const decided = this.#host.journal.durable();
      decided.catch(() => undefined);
      this.#decided.set(chunk.toolCallId, decided);
      for (const resolve of this.#waiters.get(chunk.toolCallId) ?? []) resolve(decided);
      this.#waiters.delete(chunk.toolCallId);
    }
  }

  /** The host's chunk for an approval asked (a child's `data-agent-approval`, pending), if it has one. */
  #approvalChunk(request: Extract<UIMessageChunk, { type: "tool-approval-request" }>): UIMessageChunk | null {
    const call = this.fold.calls.get(request.toolCallId);
    return (
      this.#host.approvalAsked?.({
        approvalId: request.approvalId,
        toolCallId: request.toolCallId,
        toolName: call?.toolName ?? "tool",
        input: call?.input,
      }) ?? null
    );
  }

  /** What the turn's journaled tools wait for. */
  readonly gate: ToolJournalGate = {
    whenDecided: (toolCallId) => {
      const decided = this.#decided.get(toolCallId);
      if (decided !== undefined) return decided;
      // A call the journal held before this turn (an approved call the AI SDK runs now) is durable already.
      if (this.fold.calls.get(toolCallId)?.decided) return Promise.resolve();
      if (!this.#isConsuming) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiting = this.#waiters.get(toolCallId) ?? [];
        waiting.push((promise) => void promise.then(resolve, reject));
        this.#waiters.set(toolCallId, waiting);
      });
    },
    started: async (toolCallId) => {
      this.append(toolStartedChunk(toolCallId));
      await this.#host.journal.durable();
    },
  };

  /** The turn reads its model's stream from now on. */
  startConsuming(): void {
    this.#isConsuming = true;
  }

  /** The turn no longer reads its model: every tool still waiting is released (its call will not be journaled now). */
  stopConsuming(): void {
    this.#isConsuming = false;
    for (const waiting of this.#waiters.values()) for (const resolve of waiting) resolve(Promise.resolve());
    this.#waiters.clear();
  }

  /** Whether a tool's call is decided and durable (resolves at once for a call unknown to a turn not streaming). */
  whenDecided(toolCallId: string): Promise<void> {
    return this.gate.whenDecided(toolCallId);
  }
}
