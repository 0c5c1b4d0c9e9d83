import { decideQueueAdmission, nextTurnState, QUEUED_TURN, type TurnState } from "@agent-tools/chat/internal";
import type { AgentToolChildRunner, AgentToolTailItem, Clock } from "@agent-tools/core-runs";
import type { RunEventSink } from "@agent-tools/core-runs/internal";
import { isTerminalStatus } from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";
import type { AgentToolRunChatOptions, AgentToolRunChatResult } from "../adapters/durable-object-child-transport.js";
import { toNdjson } from "../adapters/ndjson.js";
import {
  type ChildChatInput,
  ChildChatStore,
  childChatRunId,
  isChildChatInput,
  runConversation,
} from "./child-chat-store.js";

/** A message waiting for its conversation's turn: its state in the chat package's turn machine (queued, or dropped). */
type WaitingMessage = { conversation: string; runId: string; messageId: string; state: TurnState };

/**
 * A child's direct chat, outside any tool call: each message of a named conversation (or of a finished run's
 * conversation) is answered as a run of its own — durable and resumable like any run — after the conversation's
 * earlier messages, one at a time per conversation; the message and its answer are stored once the run ends.
 *
 * The messages waiting for their turn follow the parent chat's queue rules (`@agent-tools/chat`): with
 * `maxQueuedSends`, one more is refused (`decideQueueAdmission`); one withdrawn before its turn (its client went away)
 * is dropped when its turn comes — it never runs and nothing of it is stored.
 * @internal
 */
export class DirectChat {
  readonly #ctx: DurableObjectState;
  readonly #runner: () => AgentToolChildRunner;
  readonly #start: (runId: string, input: ChildChatInput) => Promise<unknown>;
  readonly #sink: RunEventSink;
  readonly #clock: Clock;
  #store: ChildChatStore | undefined;
  /** Per conversation, the answer in flight: a conversation's messages are answered one at a time. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Per conversation, the messages waiting for their turn (not the one answered). */
  readonly #waiting = new Map<string, Set<WaitingMessage>>();
  /** The waiting messages a caller named (`requestId`), so that it can withdraw them. */
  readonly #byRequest = new Map<string, WaitingMessage>();

  constructor(options: {
    ctx: DurableObjectState;
    runner: () => AgentToolChildRunner;
    start: (runId: string, input: ChildChatInput) => Promise<unknown>;
    sink: RunEventSink;
    clock: Clock;
  }) {
    this.#ctx = options.ctx;
    this.#runner = options.runner;
    this.#start = options.start;
    this.#sink = options.sink;
    this.#clock = options.clock;
  }

  /** Whether a run's input is a direct-chat message (its turn then gets the conversation before it). */
  static isInput = isChildChatInput;

  /** One message of the named conversation; its answer as NDJSON `UIMessageChunk`s. */
  async send(conversation: string, message: UIMessage): Promise<ReadableStream<Uint8Array>> {
    const input = { kind: "agent-tools:chat", conversation, message } as const;
    const waiting = this.#enqueue(input, undefined);
    this.#emit("queued", waiting);
    // Only a message withdrawn by its `requestId` is dropped, and this one has none.
    return (await this.#answer(input, waiting, undefined)) ?? new ReadableStream();
  }

  /** A named conversation so far. */
  messages(conversation: string): UIMessage[] {
    return this.#chatStore().messages(conversation);
  }

  /**
   * One message into finished run `runId`'s conversation (its messages, then what was said since), or why not: the
   * run is unknown or still running, its conversation has `maxQueuedSends` messages waiting already, or the message
   * was withdrawn (`withdraw(requestId)`) before its turn came.
   */
  async sendToRun(
    runId: string,
    message: UIMessage,
    options: AgentToolRunChatOptions = {},
  ): Promise<AgentToolRunChatResult> {
    const input = {
      kind: "agent-tools:chat",
      conversation: runConversation(runId),
      message,
      continues: runId,
    } as const;
    const { maxQueuedSends, requestId } = options;
    const queued = this.#waiting.get(input.conversation)?.size ?? 0;
    const admission =
      maxQueuedSends === undefined
        ? { kind: "queue" as const }
        : decideQueueAdmission({ queuedSends: queued, maxQueuedSends });
    if (admission.kind === "refuse") {
      const refused = { conversation: input.conversation, runId: childChatRunId(input.conversation, message.id) };
      this.#emit("refused", { ...refused, messageId: message.id }, { limit: "maxQueuedSends" });
      return { ok: false, refusal: "queue-full", error: admission.error };
    }
    // Ordering invariant: in the queue before anything is awaited, so a withdraw that follows this call finds it.
    const waiting = this.#enqueue(input, requestId);
    const run = await this.#runner().inspect(runId);
    if (!run || !isTerminalStatus(run.status)) {
      this.#leave(waiting, requestId);
      return { ok: false, refusal: run ? "running" : "unknown-run" };
    }
    this.#emit("queued", waiting);
    const answer = await this.#answer(input, waiting, requestId);
    return answer ? { ok: true, answer } : { ok: false, refusal: "dropped" };
  }

  /**
   * Withdraw the message a caller named `requestId` while it waits for its turn (its client went away): it is dropped,
   * never run, nothing of it stored. False when no message of that name waits (its turn came already).
   */
  withdraw(requestId: string): boolean {
    const waiting = this.#byRequest.get(requestId);
    if (!waiting) return false;
    const next = nextTurnState(waiting.state, { type: "drop" });
    if (next === waiting.state) return false;
    waiting.state = next;
    // A dropped message no longer holds a place in the queue; its turn, when it comes, is skipped.
    this.#leave(waiting, requestId);
    this.#emit("dropped", waiting);
    return true;
  }

  /** Run `runId`'s conversation: its input and answer, then what was said since. */
  async runMessages(runId: string): Promise<UIMessage[]> {
    return [...(await this.#runner().getMessages(runId)), ...this.messages(runConversation(runId))];
  }

  /** What a direct-chat run's turn is given before its message: the run it goes on, then its conversation. */
  async history(input: ChildChatInput): Promise<UIMessage[]> {
    const earlier = input.continues === undefined ? [] : await this.#runner().getMessages(input.continues);
    return [...earlier, ...this.messages(input.conversation)];
  }

  /** A message takes its place at the end of its conversation's queue (as `requestId`, when given). */
  #enqueue(input: ChildChatInput, requestId: string | undefined): WaitingMessage {
    const { conversation, message } = input;
    const runId = childChatRunId(conversation, message.id);
    const waiting: WaitingMessage = { conversation, runId, messageId: message.id, state: QUEUED_TURN };
    const queue = this.#waiting.get(conversation) ?? new Set<WaitingMessage>();
    queue.add(waiting);
    this.#waiting.set(conversation, queue);
    if (requestId !== undefined) this.#byRequest.set(requestId, waiting);
    return waiting;
  }

  /** A message no longer waits (its turn came, it was withdrawn, or it was refused after all). */
  #leave(waiting: WaitingMessage, requestId: string | undefined): void {
    const queue = this.#waiting.get(waiting.conversation);
    queue?.delete(waiting);
    if (queue?.size === 0) this.#waiting.delete(waiting.conversation);
    if (requestId !== undefined && this.#byRequest.get(requestId) === waiting) this.#byRequest.delete(requestId);
  }

  /**
   * Answer one message of a conversation as a run of its own, after the conversation's earlier messages; `null` when
   * it was withdrawn before its turn came (then it never runs).
   */
  async #answer(
    input: ChildChatInput,
    waiting: WaitingMessage,
    requestId: string | undefined,
  ): Promise<ReadableStream<Uint8Array> | null> {
    const { conversation } = input;
    const { runId } = waiting;
    const previous = this.#queues.get(conversation) ?? Promise.resolve();
    const turn = previous
      .catch(() => undefined)
      .then(async () => {
        this.#leave(waiting, requestId);
        waiting.state = nextTurnState(waiting.state, { type: "start" });
        if (waiting.state.phase === "ended") return null;
        await this.#start(runId, input);
        const [forCaller, forRecord] = this.#runner().tail(runId, { afterSequence: 0 }).tee();
        return { forCaller, recorded: this.#record(conversation, runId, forRecord) };
      });
    const settled = turn.then((started) => started?.recorded);
    this.#queues.set(conversation, settled);
    this.#ctx.waitUntil(settled.catch(() => undefined));
    const started = await turn;
    return started ? toNdjson(started.forCaller.pipeThrough(tailToChunks())) : null;
  }

  /** Wait for a direct-chat run to end, then store its message and answer in the conversation. */
  async #record(conversation: string, runId: string, tail: ReadableStream<AgentToolTailItem>): Promise<void> {
    const reader = tail.getReader();
    try {
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
      }
    } catch {
      // the run's own record tells how it ended
    }
    this.#chatStore().append(conversation, await this.#runner().getMessages(runId));
  }

  /** Report what happened to a message (`agent_tool:direct-chat:<what>`, with its ids). */
  #emit(
    what: "queued" | "refused" | "dropped",
    message: Pick<WaitingMessage, "conversation" | "runId" | "messageId">,
    fields: Record<string, unknown> = {},
  ): void {
    const { conversation, runId, messageId } = message;
    try {
      this.#sink.emit({
        type: `agent_tool:direct-chat:${what}`,
        runId,
        conversation,
        messageId,
        ...fields,
        at: this.#clock.now(),
      });
    } catch {
      // a broken sink never breaks a chat
    }
  }

  #chatStore(): ChildChatStore {
    this.#store ??= new ChildChatStore(this.#ctx.storage);
    return this.#store;
  }
}

/** A run's tail as the `UIMessageChunk`s of its answer (log entries in order; progress and the terminal left out). */
function tailToChunks(): TransformStream<AgentToolTailItem, UIMessageChunk> {
  return new TransformStream({
    transform(item, controller) {
      if (item.type === "entries") for (const entry of item.entries) controller.enqueue(entry.body);
    },
  });
}
