import { errorMessage, getDefaultRunEventHub, type RunEventSink } from "@agent-tools/core-runs";
import type { UIMessage } from "ai";
import type { ActiveTurn } from "./active-turn.js";
import type { ChatEngineOptions, ChatFollower } from "./chat-engine-options.js";
import { type ChatLimits, resolveChatLimits } from "./chat-limits.js";
import { ConversationCache } from "./conversation-cache.js";

/**
 * What the chat engine's parts share: its options and limits, the conversation it holds, the turn in flight, and how
 * it writes, reports and ends a follower's stream.
 * @internal
 */
export class ChatRuntime<TPeer> {
  readonly options: ChatEngineOptions<TPeer>;
  readonly limits: ChatLimits;
  /** The stored conversation, read once and kept in step with the engine's writes. */
  readonly conversation: ConversationCache;
  active: ActiveTurn<TPeer> | null = null;
  readonly #sink: RunEventSink;

  constructor(options: ChatEngineOptions<TPeer>) {
    this.options = options;
    this.limits = resolveChatLimits(options.limits);
    this.#sink = options.sink ?? getDefaultRunEventHub();
    this.conversation = new ConversationCache(options.store);
  }

  /** A write that changes the conversation; when it fails, what the engine holds is read from the store again. */
  async write<TResult>(write: () => Promise<TResult>): Promise<TResult> {
    try {
      return await write();
    } catch (error) {
      this.conversation.forget();
      throw error;
    }
  }

  /** End a follower's stream: `end`, or `error` with `errorText`. */
  endFollower(follower: ChatFollower<TPeer> | null, errorText: string | undefined): void {
    if (!follower) return;
    const { peer, requestId } = follower;
    this.options.send(
      peer,
      errorText === undefined ? { type: "end", requestId } : { type: "error", requestId, errorText },
    );
  }

  storeFailed(turnId: string, operation: "begin" | "finish" | "read" | "usage", error: unknown): void {
    this.emit({
      type: "agent_tool:chat:store:error",
      turnId,
      operation,
      errorName: error instanceof Error ? error.name : typeof error,
      message: errorMessage(error),
    });
  }

  emit(event: { type: `agent_tool:chat:${string}`; [field: string]: unknown }): void {
    try {
      this.#sink.emit({ ...event, at: this.options.clock.now() });
    } catch {
      // a broken sink never breaks the conversation
    }
  }

  /** Store a message the engine made (a turn's answer, a closed turn's notice), keeping the conversation held in step. */
  held(message: UIMessage): void {
    this.conversation.stored(message);
  }
}
