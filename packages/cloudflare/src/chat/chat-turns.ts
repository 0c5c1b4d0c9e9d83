import {
  type AgentToolTurnStream,
  assembleMessage,
  type Clock,
  errorMessage,
  type PendingToolCall,
  planTurnRecovery,
  runPendingToolCall,
} from "@agent-tools/core-runs";
import type { AgentChatEvent, AgentChatTurnStatus } from "@agent-tools/core-runs/protocol";
import {
  convertToModelMessages,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
  type WebSocketChatTransportResponse,
} from "ai";
import type { ChatTurnOrigin, DurableObjectChatStore, StoredChatTurn } from "./chat-store.js";
import type { ChatSendDecision } from "./merge-chat-send.js";
import { runAfterCallStored } from "./stored-call-tools.js";
import { TurnLogWriter } from "./turn-log-writer.js";

/** What a model turn of the parent's conversation receives (the host's `onChatMessage`). */
export type ChatTurnContext = {
  /** The conversation to answer: for a resumed turn, with the assistant message it goes on from last. */
  messages: UIMessage[];
  /**
   * The conversation's tools (the host's `getTools()`), each of which runs only once its call is stored: pass them to
   * `streamText`. A crash then never loses a call whose tool ran; the resumed turn runs it again with the same
   * `toolCallId` (a tool with effects elsewhere can be idempotent by that id). Empty when the host has none.
   */
  tools: ToolSet;
  /** Aborted when a client stops the turn. */
  abortSignal: AbortSignal;
  /** True when the turn resumes one cut by a crash, eviction or deploy. */
  resumed: boolean;
  turnId: string;
  /** Who started the turn. */
  origin: ChatTurnOrigin;
};

/** A socket following the turn, and the request id it knows the turn by. */
export type ChatFollower = { socket: WebSocket; requestId: string };

export type ChatTurnsOptions = {
  store: DurableObjectChatStore;
  clock: Clock;
  /** Run one model turn over `context.messages` (the host's `onChatMessage`). */
  stream(context: ChatTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  /** The tools a cut turn's pending tool calls run with (the host's `getTools()`). */
  tools(): ToolSet | undefined;
  /** Send a frame of the AI SDK's WebSocket chat protocol to one socket (never throws). */
  send(socket: WebSocket, frame: WebSocketChatTransportResponse): void;
  /** Tell every client of the parent what happened to the conversation. */
  announce(event: AgentChatEvent): void;
  generateId(): string;
  writeIntervalMs: number;
  /** How many times a cut turn is resumed before it is closed as interrupted. */
  maxResumeAttempts: number;
  /** Told of each turn (and task between turns) queued, until it settles: the host keeps itself awake meanwhile. */
  track?(work: Promise<unknown>): void;
};

/** A socket following the turn: its request id, and the sequence of the next chunk it gets. */
type Following = {
  requestId: string;
  next: number;
  /** True for a socket that resumed the turn (it follows it), false for the one whose `send` started it. */
  resumed: boolean;
};

type ActiveTurn = {
  readonly stored: StoredChatTurn;
  /** Every chunk the turn streamed, in order, but preliminary tool outputs. */
  readonly chunks: UIMessageChunk[];
  /**
   * The latest preliminary output of each tool call still running (an `agentTool` with `preliminaryResults`): each
   * one holds everything before it, so only the latest is kept, and none is written (a resumed turn runs the call
   * again, which yields again).
   */
  readonly preliminary: Map<string, UIMessageChunk>;
  /** Each follower numbers its own chunks: one that resumes gets the kept chunks from 0, then the live ones. */
  readonly followers: Map<WebSocket, Following>;
  readonly controller: AbortController;
  readonly writer: TurnLogWriter;
  hasStart: boolean;
  /** True while the turn reads its model's stream (the tool calls it decides come through it). */
  consuming: boolean;
  /** Tool executions waiting for their call to be stored (`whenToolCallStored`), by toolCallId. */
  readonly toolCallWaiters: Map<string, Array<() => void>>;
};

/** A turn to run: a new one (with the user message that starts it) or a cut one to resume. */
type TurnSpec =
  | { kind: "new"; origin: ChatTurnOrigin; userMessage: UIMessage | null; keepUntil?: string; follower?: ChatFollower }
  | { kind: "resume"; stored: StoredChatTurn };

/** The error text of a turn closed because it could not be resumed. */
export const INTERRUPTED_TURN_TEXT = "This answer was interrupted before it could finish.";

/**
 * The parent's conversation, made durable: the user's message is stored at once, the assistant's reply is written
 * as it streams (bounded writes), and a turn cut by a crash is resumed at start-up from its last completed step — its
 * pending tool calls run again with their own `toolCallId`, so an `agentTool` call re-attaches to its child run — or
 * closed visibly. Turns run one at a time; every socket that follows a turn gets its chunks (the sender, and any tab
 * that resumes it); every client hears of turns and messages through `announce`.
 * @internal
 */
export class ChatTurns {
  readonly #options: ChatTurnsOptions;
  #active: ActiveTurn | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #taskDepth = 0;

  constructor(options: ChatTurnsOptions) {
    this.#options = options;
  }

  /**
   * The stored conversation. A turn in flight is there with its user message (stored at once); its reply is not (a
   * client gets it by resuming the turn, which replays it from its start and then follows it live).
   */
  async messages(): Promise<UIMessage[]> {
    return this.#options.store.messages();
  }

  /**
   * A request for a turn (a client's `send`, or a message sent from code). It waits for the turn in flight, if any,
   * and is then decided by `decide` against the conversation as stored at that moment, not as it was when the request
   * came: a regenerate sent while an answer streams replaces that answer once it is stored (one answer, not a second
   * beside it), and a message sent again while it waited is found stored and not run twice. The new user message is
   * stored at once when its turn starts. A `refuse` (or a `decide` that throws) ends the follower's stream with an
   * error and stores nothing; a `duplicate` ends it empty. Resolves the turn's stored answer (`null` when none).
   */
  send(follower: ChatFollower | null, decide: (stored: UIMessage[]) => ChatSendDecision): Promise<UIMessage | null> {
    if (follower) this.#options.send(follower.socket, { type: "start", requestId: follower.requestId });
    return this.#exclusive(async () => {
      const stored = this.#options.store.messages();
      let decision: ChatSendDecision;
      try {
        decision = decide(stored);
      } catch (error) {
        this.#endFollower(follower, errorMessage(error));
        throw error;
      }
      switch (decision.kind) {
        case "refuse":
          this.#endFollower(follower, decision.error);
          return null;
        case "duplicate":
          this.#endFollower(follower, undefined);
          return null;
        case "append":
        case "replace": {
          const dropFrom = decision.kind === "replace" ? stored[decision.keep.length]?.id : undefined;
          return this.#run({
            kind: "new",
            origin: "client",
            userMessage: decision.userMessage,
            ...(follower ? { follower } : {}),
            ...withKeepUntil(dropFrom),
          });
        }
      }
    });
  }

  #endFollower(follower: ChatFollower | null, errorText: string | undefined): void {
    if (!follower) return;
    const { socket, requestId } = follower;
    this.#options.send(
      socket,
      errorText === undefined ? { type: "end", requestId } : { type: "error", requestId, errorText },
    );
  }

  /** Follow the turn in flight from its start (a reload, a second tab), or answer `no-active`. */
  resume(follower: ChatFollower): void {
    const { send } = this.#options;
    const active = this.#active;
    if (!active) {
      send(follower.socket, { type: "no-active", requestId: follower.requestId });
      return;
    }
    send(follower.socket, { type: "start", requestId: follower.requestId });
    const following: Following = { requestId: follower.requestId, next: 0, resumed: true };
    for (const chunk of [...active.chunks, ...active.preliminary.values()]) {
      send(follower.socket, { type: "chunk", requestId: following.requestId, sequence: following.next, chunk });
      following.next += 1;
    }
    active.followers.set(follower.socket, following);
  }

  /**
   * Resolves once the turn in flight has stored the tool call `toolCallId` (the chunk in which the model decided it
   * is written at once when it comes), so that a tool with effects outside this object (an agent tool starts a
   * child) runs only once a crash can no longer lose the call: the turn resumed after a crash then runs the same
   * call again, with its id, instead of deciding a new one. Resolves at once when no turn is reading its model's
   * stream (a call from elsewhere), and when the turn ends without that call.
   */
  whenToolCallStored(toolCallId: string): Promise<void> {
    const active = this.#active;
    if (!active) return Promise.resolve();
    if (active.chunks.some((chunk) => isDecidedToolCall(chunk) && chunk.toolCallId === toolCallId)) {
      active.writer.flush();
      return Promise.resolve();
    }
    if (!active.consuming) return Promise.resolve();
    return new Promise((resolve) => {
      active.toolCallWaiters.set(toolCallId, [...(active.toolCallWaiters.get(toolCallId) ?? []), resolve]);
    });
  }

  /**
   * A client aborted the request it knows the turn by. The `send` that started the turn stops it (the sender's Stop);
   * a resume only stops following it (the turn goes on for everybody): the AI SDK's chat aborts a resume it no longer
   * needs by itself (a newer resume, a chat disposed, React StrictMode mounting twice), so it cannot mean Stop. A tab
   * that only follows a turn stops it with `stop(turnId)`.
   */
  abort(socket: WebSocket, requestId: string): void {
    const active = this.#active;
    const following = active?.followers.get(socket);
    if (!active || following?.requestId !== requestId) return;
    if (following.resumed) active.followers.delete(socket);
    else active.controller.abort();
  }

  /** Stop the turn in flight for everybody, if it is `turnId` (never a later one); returns whether it stopped it. */
  stop(turnId: string): boolean {
    const active = this.#active;
    if (!active || active.stored.turnId !== turnId || active.controller.signal.aborted) return false;
    active.controller.abort();
    return true;
  }

  /** A socket went away: it follows nothing any more (the turn goes on and is stored). */
  forget(socket: WebSocket): void {
    this.#active?.followers.delete(socket);
  }

  /** Store a message the server adds (idempotent by id); tells every client. Resolves whether it was new. */
  appendMessage(message: UIMessage): boolean {
    if (this.#options.store.hasMessage(message.id)) return false;
    this.#options.store.upsertMessage(message);
    this.#options.announce({ kind: "message", message });
    return true;
  }

  /** Run `task` between turns: at once when idle, else after the turn in flight; tasks run one at a time. */
  runBetweenTurns(task: () => Promise<void>): Promise<void> {
    return this.#exclusive(async () => {
      this.#taskDepth += 1;
      try {
        await task();
      } finally {
        this.#taskDepth -= 1;
      }
    });
  }

  /** A turn the server starts (the model reacts to what was appended). Inside `runBetweenTurns` it runs at once. */
  async startServerTurn(): Promise<void> {
    const turn = () => this.#run({ kind: "new", origin: "server", userMessage: null });
    await (this.#taskDepth > 0 ? turn() : this.#exclusive(turn));
  }

  /** At start-up: resume the turn a crash cut off, or close it visibly. */
  async recover(): Promise<void> {
    const stored = this.#options.store.activeTurn();
    if (!stored) return;
    await this.#exclusive(() => this.#run({ kind: "resume", stored }));
  }

  #exclusive<TResult>(work: () => Promise<TResult>): Promise<TResult> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    this.#options.track?.(this.#queue);
    return result;
  }

  /** Run one turn to its end; resolves the answer it stored (`null` when it stored none). */
  async #run(spec: TurnSpec): Promise<UIMessage | null> {
    const { store, clock, generateId } = this.#options;
    let stored: StoredChatTurn;
    let chunks: UIMessageChunk[] = [];
    let pending: PendingToolCall[] = [];
    let closeStep = false;
    if (spec.kind === "new") {
      stored = {
        turnId: generateId(),
        origin: spec.origin,
        assistantMessageId: generateId(),
        startedAt: clock.now(),
        resumeAttempts: 0,
        ...(spec.userMessage ? { userMessageId: spec.userMessage.id } : {}),
      };
      if (spec.keepUntil !== undefined) {
        store.truncateFrom(spec.keepUntil);
        this.#options.announce({ kind: "history" });
      }
      store.beginTurn(stored, spec.userMessage ?? undefined);
      if (spec.userMessage) this.#options.announce({ kind: "message", message: spec.userMessage });
    } else {
      stored = { ...spec.stored, resumeAttempts: spec.stored.resumeAttempts + 1 };
      const plan = planTurnRecovery(store.turnChunks(stored.turnId));
      if (stored.resumeAttempts > this.#options.maxResumeAttempts) return this.#close(stored, plan.keep);
      store.rewriteTurnChunks(stored.turnId, plan.keep);
      store.updateTurn(stored);
      chunks = plan.keep;
      pending = plan.pendingToolCalls;
      closeStep = plan.isStepOpen;
    }
    const active: ActiveTurn = {
      stored,
      chunks: [],
      preliminary: new Map(),
      followers: new Map(
        spec.kind === "new" && spec.follower
          ? [[spec.follower.socket, { requestId: spec.follower.requestId, next: 0, resumed: false }]]
          : [],
      ),
      controller: new AbortController(),
      writer: new TurnLogWriter({
        store,
        clock,
        turnId: stored.turnId,
        intervalMs: this.#options.writeIntervalMs,
        written: chunks.length,
      }),
      hasStart: false,
      consuming: false,
      toolCallWaiters: new Map(),
    };
    for (const chunk of chunks) this.#push(active, chunk, { write: false });
    this.#active = active;
    this.#options.announce({
      kind: "turn-started",
      turnId: stored.turnId,
      origin: stored.origin,
      resumed: spec.kind === "resume",
    });
    let status: AgentChatTurnStatus = "completed";
    let errorText: string | undefined;
    try {
      if (pending.length > 0 || closeStep) await this.#finishCutStep(active, pending);
      const messages = await this.#conversation(active);
      const tools = this.#options.tools();
      // From here the model's calls come through the turn's stream: a tool waits for its call to be stored.
      active.consuming = true;
      const stream = await this.#options.stream({
        messages,
        tools: runAfterCallStored(tools ?? {}, (toolCallId) => this.whenToolCallStored(toolCallId)),
        abortSignal: active.controller.signal,
        resumed: spec.kind === "resume",
        turnId: stored.turnId,
        origin: stored.origin,
      });
      for await (const chunk of toAsyncIterable(stream)) {
        if (active.controller.signal.aborted) break;
        this.#push(active, chunk);
      }
      active.consuming = false;
      if (active.controller.signal.aborted) status = "aborted";
    } catch (error) {
      status = active.controller.signal.aborted ? "aborted" : "error";
      if (status === "error") errorText = errorMessage(error);
    }
    return this.#end(active, status, errorText);
  }

  /** Run the cut step's pending tool calls (with their own ids) and close the step, so the model goes on after it. */
  async #finishCutStep(active: ActiveTurn, pending: PendingToolCall[]): Promise<void> {
    const tools = this.#options.tools();
    const modelMessages = await convertToModelMessages(await this.#conversation(active), tools ? { tools } : {});
    const results = await Promise.all(
      pending.map((call) =>
        runPendingToolCall(tools, call, { messages: modelMessages, abortSignal: active.controller.signal }),
      ),
    );
    for (const chunk of results) this.#push(active, chunk);
    this.#push(active, { type: "finish-step" });
  }

  /** The stored conversation with the turn's reply so far last. */
  async #conversation(active: ActiveTurn): Promise<UIMessage[]> {
    const stored = this.#options.store.messages();
    const partial = await assembleMessage(active.chunks, active.stored.assistantMessageId);
    return partial && partial.parts.length > 0 ? [...stored, partial] : stored;
  }

  /**
   * Add a chunk to the turn: the turn's single `start` names its assistant message (a later `start`, as a resumed
   * turn's stream sends, only carries metadata); then it is sent to every follower and written.
   */
  #push(active: ActiveTurn, raw: UIMessageChunk, options: { write?: boolean } = {}): void {
    let chunk: UIMessageChunk | null = raw;
    if (raw.type === "start") {
      chunk = active.hasStart
        ? raw.messageMetadata !== undefined
          ? { type: "message-metadata", messageMetadata: raw.messageMetadata }
          : null
        : { ...raw, messageId: active.stored.assistantMessageId };
      active.hasStart = true;
    } else if (!active.hasStart) {
      this.#push(active, { type: "start" }, options);
    }
    if (chunk === null) return;
    if (isPreliminaryOutput(chunk)) {
      active.preliminary.set(chunk.toolCallId, chunk);
    } else {
      if (isToolOutcome(chunk)) active.preliminary.delete(chunk.toolCallId);
      active.chunks.push(chunk);
      if (options.write !== false) {
        active.writer.add(chunk);
        // A tool call the model decided is stored at once, before its tool runs (see `whenToolCallStored`).
        if (isDecidedToolCall(chunk)) {
          active.writer.flush();
          for (const resolve of active.toolCallWaiters.get(chunk.toolCallId) ?? []) resolve();
          active.toolCallWaiters.delete(chunk.toolCallId);
        }
      }
    }
    for (const [socket, following] of active.followers) {
      this.#options.send(socket, { type: "chunk", requestId: following.requestId, sequence: following.next, chunk });
      following.next += 1;
    }
  }

  /** Store the turn's answer and forget the turn; end every follower's stream; tell every client. */
  async #end(
    active: ActiveTurn,
    status: AgentChatTurnStatus,
    errorText: string | undefined,
  ): Promise<UIMessage | null> {
    const { store, send, announce } = this.#options;
    active.writer.dispose();
    active.consuming = false;
    for (const waiters of active.toolCallWaiters.values()) for (const resolve of waiters) resolve();
    active.toolCallWaiters.clear();
    const assembled = await assembleMessage(active.chunks, active.stored.assistantMessageId);
    const answer = assembled && assembled.parts.length > 0 ? assembled : null;
    store.finishTurn(active.stored.turnId, answer);
    if (this.#active === active) this.#active = null;
    for (const [socket, { requestId }] of active.followers) {
      send(socket, errorText !== undefined ? { type: "error", requestId, errorText } : { type: "end", requestId });
    }
    announce({ kind: "turn-ended", turnId: active.stored.turnId, status, ...(answer ? { message: answer } : {}) });
    return answer;
  }

  /** A cut turn that may not be resumed again: keep what it had finished, and say it was interrupted. */
  async #close(stored: StoredChatTurn, kept: UIMessageChunk[]): Promise<UIMessage> {
    const { store, announce } = this.#options;
    const partial = await assembleMessage(kept, stored.assistantMessageId);
    const answer: UIMessage = {
      id: stored.assistantMessageId,
      role: "assistant",
      ...(partial?.metadata !== undefined ? { metadata: partial.metadata } : {}),
      parts: [...(partial?.parts ?? []), { type: "text", text: INTERRUPTED_TURN_TEXT, state: "done" }],
    };
    store.finishTurn(stored.turnId, answer);
    announce({ kind: "turn-ended", turnId: stored.turnId, status: "interrupted", message: answer });
    return answer;
  }
}

/** A tool call the model decided (its input is complete) that this host, not the provider, executes. */
function isDecidedToolCall(chunk: UIMessageChunk): chunk is Extract<UIMessageChunk, { type: "tool-input-available" }> {
  return chunk.type === "tool-input-available" && chunk.providerExecuted !== true;
}

function withKeepUntil(keepUntil: string | undefined): { keepUntil?: string } {
  return keepUntil === undefined ? {} : { keepUntil };
}

function toAsyncIterable(stream: AgentToolTurnStream): AsyncIterable<UIMessageChunk> {
  return stream as AsyncIterable<UIMessageChunk>;
}

/** A preliminary tool output (`preliminary: true`): superseded by the next one of its tool call. */
function isPreliminaryOutput(
  chunk: UIMessageChunk,
): chunk is Extract<UIMessageChunk, { type: "tool-output-available" }> {
  return chunk.type === "tool-output-available" && chunk.preliminary === true;
}

/** A tool call's final outcome: its output, its error, or its denial. */
function isToolOutcome(chunk: UIMessageChunk): chunk is Extract<UIMessageChunk, { toolCallId: string }> {
  return (
    chunk.type === "tool-output-available" || chunk.type === "tool-output-error" || chunk.type === "tool-output-denied"
  );
}
