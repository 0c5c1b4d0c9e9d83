import { isJournalFact, type RunBudget, type TurnRecord } from "@agent-tools/core-runs";
import type { UIMessageChunk, WebSocketChatTransportResponse } from "ai";
import { type ChatLimits, checkSize } from "./chat-limits.js";
import type { StoredChatTurn } from "./ports/chat-store.js";
import { approximateChunkBytes, isPreliminaryOutput, isToolOutcome } from "./turn-chunks.js";
import type { TurnLogWriter } from "./turn-log-writer.js";
import { nextTurnState, type TurnEvent, type TurnState } from "./turn-machine.js";
import type { TurnUsageRecord } from "./turn-usage-record.js";

/** A peer following the turn: the request id it knows the turn by, and the sequence of its next chunk. */
export type Following = {
  requestId: string;
  next: number;
  /** True for a peer that resumed the turn (it follows it), false for the one whose `send` started it. */
  resumed: boolean;
};

/** What a pushed chunk did: it was taken, or it would take the answer over `maxAnswerBytes` (it was not taken). */
export type PushResult = "taken" | "over-answer-limit";

/**
 * The turn in flight, in memory: its state (the turn machine), its chunks in order (preliminary tool outputs aside:
 * only the latest of each call is kept, and never written), the peers following it (each numbers its own chunks from
 * 0), its log writer (its journal's storage: facts are written at once), and the turn engine's record of it.
 * @internal
 */
export class ActiveTurn<TPeer> {
  readonly stored: StoredChatTurn;
  /** What the turn's tree spent, within the turn's budget. */
  readonly budget: RunBudget;
  /** The turn's own usage, kept on its stored turn. */
  readonly usage: TurnUsageRecord;
  readonly chunks: UIMessageChunk[] = [];
  readonly preliminary = new Map<string, UIMessageChunk>();
  readonly followers = new Map<TPeer, Following>();
  readonly controller = new AbortController();
  readonly writer: TurnLogWriter;
  state: TurnState;
  /** The turn engine's record of the turn (what it journaled, and the tools waiting for it), once it runs. */
  record: TurnRecord | null = null;
  readonly #send: (peer: TPeer, frame: WebSocketChatTransportResponse) => void;
  readonly #limits: ChatLimits;
  #hasStart = false;
  #answerBytes = 0;
  /** While `pushAll` runs: the chunks it writes together. */
  #together: { written: UIMessageChunk[]; sent: UIMessageChunk[] } | null = null;

  constructor(options: {
    budget: RunBudget;
    usage: TurnUsageRecord;
    stored: StoredChatTurn;
    state: TurnState;
    writer: TurnLogWriter;
    limits: ChatLimits;
    send: (peer: TPeer, frame: WebSocketChatTransportResponse) => void;
  }) {
    this.stored = options.stored;
    this.budget = options.budget;
    this.usage = options.usage;
    this.state = options.state;
    this.writer = options.writer;
    this.#limits = options.limits;
    this.#send = options.send;
  }

  /** Apply an event of the turn machine; resolves whether it changed anything. */
  apply(event: TurnEvent): boolean {
    const next = nextTurnState(this.state, event);
    if (next === this.state) return false;
    this.state = next;
    return true;
  }

  /** Follow the turn: the chunks so far (from 0), then the live ones. */
  follow(peer: TPeer, requestId: string, resumed: boolean): void {
    const following: Following = { requestId, next: 0, resumed };
    this.followers.set(peer, following);
    for (const chunk of [...this.chunks, ...this.preliminary.values()]) this.#deliver(peer, following, chunk);
  }

  /**
   * Add a chunk to the turn: the turn's single `start` names its assistant message (a later `start`, as a resumed
   * turn's stream sends, only carries metadata); it is sent to every follower and (unless `write` is false, for
   * chunks already stored) written. A decided tool call is written at once and releases the tool waiting for it.
   */
  push(raw: UIMessageChunk, options: { write?: boolean } = {}): PushResult {
    let chunk: UIMessageChunk | null = raw;
    if (raw.type === "start") {
      chunk = this.#hasStart
        ? raw.messageMetadata !== undefined
          ? { type: "message-metadata", messageMetadata: raw.messageMetadata }
          : null
        : { ...raw, messageId: this.stored.assistantMessageId };
      this.#hasStart = true;
    } else if (!this.#hasStart) {
      this.push({ type: "start" }, options);
    }
    if (chunk === null) return "taken";
    if (isPreliminaryOutput(chunk)) {
      this.preliminary.set(chunk.toolCallId, chunk);
    } else {
      chunk = this.#withinToolOutputLimit(chunk);
      if (options.write !== false) {
        this.#answerBytes += approximateChunkBytes(chunk);
        if (this.#answerBytes > this.#limits.maxAnswerBytes) return "over-answer-limit";
      }
      if (isToolOutcome(chunk)) this.preliminary.delete(chunk.toolCallId);
      this.chunks.push(chunk);
      if (options.write !== false) this.#write(chunk);
    }
    if (this.#together) this.#together.sent.push(chunk);
    else for (const [peer, following] of this.followers) this.#deliver(peer, following, chunk);
    return "taken";
  }

  /**
   * Write a chunk the journal keeps that no follower is sent (the turn's usage as it changes): it goes with the next
   * write (and takes no waiting `finish-step` along: see `ridesAlong`).
   */
  note(chunk: UIMessageChunk): void {
    this.chunks.push(chunk);
    this.writer.add(chunk);
  }

  /** Send a frame to every follower (the `end` or `error` that closes their stream). */
  sendToFollowers(frame: (requestId: string) => WebSocketChatTransportResponse): void {
    for (const [peer, { requestId }] of this.followers) this.#send(peer, frame(requestId));
  }

  #deliver(peer: TPeer, following: Following, chunk: UIMessageChunk): void {
    this.#send(peer, { type: "chunk", requestId: following.requestId, sequence: following.next, chunk });
    following.next += 1;
  }

  /**
   * Add chunks that go in the same write (a fact and the host's chunk that goes with it); the first result that is
   * not `taken`, if any.
   */
  pushAll(chunks: readonly UIMessageChunk[]): PushResult {
    const together = { written: [] as UIMessageChunk[], sent: [] as UIMessageChunk[] };
    this.#together = together;
    let result: PushResult = "taken";
    try {
      for (const chunk of chunks) if (result === "taken") result = this.push(chunk);
    } finally {
      this.#together = null;
    }
    this.writer.addAll(together.written);
    // Ordering invariant, as for one chunk: a fact's write is issued before it is sent.
    if (together.written.some(isJournalFact)) this.writer.flush().catch(() => undefined);
    for (const chunk of together.sent) {
      for (const [peer, following] of this.followers) this.#deliver(peer, following, chunk);
    }
    return result;
  }

  #write(chunk: UIMessageChunk): void {
    if (this.#together) {
      this.#together.written.push(chunk);
      return;
    }
    this.writer.add(chunk);
    // A fact of the journal (a call decided, its execution started, its result, an approval, the stream's end) is
    // written at once. Ordering invariant: its write is issued before it is sent to any follower (a Durable Object
    // holds what it sends until the writes issued before are durable).
    if (isJournalFact(chunk)) this.writer.flush().catch(() => undefined);
  }

  /** A final tool output over `maxToolOutputBytes` (a tool the guard did not wrap) becomes the call's error. */
  #withinToolOutputLimit(chunk: UIMessageChunk): UIMessageChunk {
    if (chunk.type !== "tool-output-available") return chunk;
    const tooLarge = checkSize("maxToolOutputBytes", chunk.output, this.#limits, "The tool's output");
    return tooLarge ? { type: "tool-output-error", toolCallId: chunk.toolCallId, errorText: tooLarge.message } : chunk;
  }
}
