import { type AgentToolChildRunner, type AgentToolTailItem, isTerminalStatus } from "@agent-tools/core-runs";
import type { UIMessage, UIMessageChunk } from "ai";
import type { AgentToolRunChatResult } from "../adapters/durable-object-child-transport.js";
import { toNdjson } from "../adapters/ndjson.js";
import {
  type ChildChatInput,
  ChildChatStore,
  childChatRunId,
  isChildChatInput,
  runConversation,
} from "./child-chat-store.js";

/**
 * A child's direct chat, outside any tool call: each message of a named conversation (or of a finished run's
 * conversation) is answered as a run of its own — durable and resumable like any run — after the conversation's
 * earlier messages, one at a time per conversation; the message and its answer are stored once the run ends.
 * @internal
 */
export class DirectChat {
  readonly #ctx: DurableObjectState;
  readonly #runner: () => AgentToolChildRunner;
  readonly #start: (runId: string, input: ChildChatInput) => Promise<unknown>;
  #store: ChildChatStore | undefined;
  /** Per conversation, the answer in flight: a conversation's messages are answered one at a time. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: {
    ctx: DurableObjectState;
    runner: () => AgentToolChildRunner;
    start: (runId: string, input: ChildChatInput) => Promise<unknown>;
  }) {
    this.#ctx = options.ctx;
    this.#runner = options.runner;
    this.#start = options.start;
  }

  /** Whether a run's input is a direct-chat message (its turn then gets the conversation before it). */
  static isInput = isChildChatInput;

  /** One message of the named conversation; its answer as NDJSON `UIMessageChunk`s. */
  send(conversation: string, message: UIMessage): Promise<ReadableStream<Uint8Array>> {
    return this.#answer({ kind: "agent-tools:chat", conversation, message });
  }

  /** A named conversation so far. */
  messages(conversation: string): UIMessage[] {
    return this.#chatStore().messages(conversation);
  }

  /** One message into finished run `runId`'s conversation (its messages, then what was said since), or why not. */
  async sendToRun(runId: string, message: UIMessage): Promise<AgentToolRunChatResult> {
    const run = await this.#runner().inspect(runId);
    if (!run) return { ok: false, refusal: "unknown-run" };
    if (!isTerminalStatus(run.status)) return { ok: false, refusal: "running" };
    const input = {
      kind: "agent-tools:chat",
      conversation: runConversation(runId),
      message,
      continues: runId,
    } as const;
    return { ok: true, answer: await this.#answer(input) };
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

  /** Answer one message of a conversation as a run of its own, after the conversation's earlier messages. */
  async #answer(input: ChildChatInput): Promise<ReadableStream<Uint8Array>> {
    const { conversation, message } = input;
    const runId = childChatRunId(conversation, message.id);
    const previous = this.#queues.get(conversation) ?? Promise.resolve();
    const turn = previous
      .catch(() => undefined)
      .then(async () => {
        await this.#start(runId, input);
        const [forCaller, forRecord] = this.#runner().tail(runId, { afterSequence: 0 }).tee();
        return { forCaller, recorded: this.#record(conversation, runId, forRecord) };
      });
    const settled = turn.then(({ recorded }) => recorded);
    this.#queues.set(conversation, settled);
    this.#ctx.waitUntil(settled.catch(() => undefined));
    const { forCaller } = await turn;
    return toNdjson(forCaller.pipeThrough(tailToChunks()));
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
