import {
  type AgentToolBudget,
  type AgentToolBudgetExhaustion,
  type AgentToolCostFunction,
  AgentToolsError,
  type AgentToolTurnStream,
  assembleMessage,
  budgetedModel,
  type Clock,
  closeCutStep,
  errorMessage,
  getDefaultRunEventHub,
  planTurnRecovery,
  RunBudget,
  type RunEventSink,
  type TimerHandle,
  type WrappableLanguageModel,
} from "@agent-tools/core-runs";
import {
  AGENT_USAGE_PART,
  type AgentChatEvent,
  type AgentChatTurnStatus,
  FAILED_TURN_TEXT,
  usageChunk,
} from "@agent-tools/core-runs/protocol";
import type { ToolSet, UIMessage, UIMessageChunk, WebSocketChatTransportResponse } from "ai";
import { ActiveTurn } from "./active-turn.js";
import { ChatLimitError, type ChatLimits, checkSize, resolveChatLimits } from "./chat-limits.js";
import { planChatRecovery } from "./chat-recovery-plan.js";
import { ConversationCache } from "./conversation-cache.js";
import { guardTools } from "./guarded-tools.js";
import type { ChatSendDecision } from "./merge-chat-send.js";
import type { ChatStore, ChatTurnOrigin, StoredChatTurn } from "./ports/chat-store.js";
import { DEFAULT_CHAT_WRITE_INTERVAL_MS, TurnLogWriter } from "./turn-log-writer.js";
import {
  decideQueueAdmission,
  nextTurnState,
  QUEUED_TURN,
  STARTING_TURN,
  type TurnEnd,
  type TurnState,
} from "./turn-machine.js";
import { TurnUsageRecord } from "./turn-usage-record.js";
import {
  closeUnfinishedToolCalls,
  repairUnfinishedToolParts,
  STOPPED_TOOL_CALL_TEXT,
  UNFINISHED_TOOL_CALL_TEXT,
} from "./unfinished-tool-calls.js";

/** What a model turn of the conversation receives (the host's `onChatMessage`). */
export type ChatTurnContext = {
  /** The conversation to answer: for a resumed turn, with the assistant message it goes on from last. */
  messages: UIMessage[];
  /**
   * The conversation's tools (the host's `getTools()`), each of which runs only once its call is stored, within the
   * tool size limits: pass them to `streamText`. A crash then never loses a call whose tool ran; the resumed turn
   * runs it again with the same `toolCallId` (a tool with effects elsewhere can be idempotent by that id). Empty when
   * the host has none.
   */
  tools: ToolSet;
  /** Aborted when a tab stops the turn (or the answer goes over its size limit). */
  abortSignal: AbortSignal;
  /** True when the turn resumes one cut by a crash, eviction or deploy. */
  resumed: boolean;
  turnId: string;
  /** Who started the turn. */
  origin: ChatTurnOrigin;
  /**
   * The turn's model, spending the turn's budget (`budget` option): pass what this returns to `streamText`. Its calls
   * are counted, the turn's tree sums what every run below it spent, and once the budget is out the next call is the
   * wrap-up (no tool) and none after; no call starts once the turn is stopped.
   */
  model<TModel extends WrappableLanguageModel>(model: TModel): ReturnType<typeof budgetedModel>;
  /** The turn's budget as it is spent (what is left for the runs its tools dispatch). */
  budget: RunBudget;
  /**
   * Resolves once every chunk the engine has taken from this turn's stream so far is stored (a streaming answer is
   * otherwise written at most once per `writeIntervalMs`); rejects when a write failed. Called from the turn's own
   * stream (after a `yield`), that is everything it yielded before: e.g. wait for a tool result to be durable before
   * doing something a crash must not find undone.
   */
  whenStored(): Promise<void>;
};

/**
 * The limits of each turn's tree of runs (the turn's own model and every run its tools dispatch, all levels):
 * `wallTimeMs` becomes a deadline when the turn starts; `costOf` prices each model call for `maxCost`.
 */
export type ChatTurnBudget = Omit<AgentToolBudget, "deadline"> & {
  wallTimeMs?: number;
  costOf?: AgentToolCostFunction;
};

/** A peer (a tab's socket) and the request id it knows a turn by. */
export type ChatFollower<TPeer> = { peer: TPeer; requestId: string };

export type ChatEngineOptions<TPeer> = {
  store: ChatStore;
  clock: Clock;
  /** Run one model turn over `context.messages` (the host's `onChatMessage`). */
  stream(context: ChatTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  /** The conversation's tools: a turn's `context.tools`, and what a cut turn's pending calls run with. */
  tools(): ToolSet | undefined;
  /** Send a frame of the AI SDK's WebSocket chat protocol to one peer (must not throw). */
  send(peer: TPeer, frame: WebSocketChatTransportResponse): void;
  /** Tell every client what happened to the conversation (must not throw). */
  announce(event: AgentChatEvent): void;
  generateId(): string;
  /** How often, at most, a streaming turn's chunks are written (default 250 ms). */
  writeIntervalMs?: number;
  /** How many times a cut turn is resumed before it is closed as interrupted (default 3). */
  maxResumeAttempts?: number;
  /** Size and queue limits (defaults: `DEFAULT_CHAT_LIMITS`). */
  limits?: Partial<ChatLimits>;
  /** Told of each turn (and task between turns) queued, until it settles: a host keeps itself awake meanwhile. */
  track?(work: Promise<unknown>): void;
  /** Where the engine reports what happened (`agent_tool:chat:*` events; default: the process-wide hub). */
  sink?: RunEventSink;
  /** The limits of each turn's tree of runs (none: usage is counted and shown, nothing is limited). */
  budget?: ChatTurnBudget;
  /**
   * Told when a turn is stopped (a tab's Stop, the sender's abort), with the reason its model and tools are aborted
   * with: a host cancels what the turn dispatched (its agent tools' runs are cancelled through their abort signal
   * anyway; a detached run dispatched with `onParentCancel: "cancel"` only through this). Must not throw.
   */
  onStop?(turnId: string, reason: string): void;
  /** Told when a turn's budget runs out: a host tells the runs its tools dispatched to wrap up. Must not throw. */
  onBudgetExhausted?(turnId: string, reason: AgentToolBudgetExhaustion): void;
};

/** The reason a stopped turn's model and tools (and the runs they dispatched) are aborted with. */
export const STOP_REASON = STOPPED_TOOL_CALL_TEXT;

/** The text that ends an answer closed because it could not be resumed. */
export const INTERRUPTED_TURN_TEXT = "This answer was interrupted before it could finish.";

/** The text that ends an answer whose turn could not be stored as it ended. */
export const UNSTORED_TURN_TEXT = "This answer could not be saved.";

/** Default `maxResumeAttempts`. */
export const DEFAULT_MAX_CHAT_RESUME_ATTEMPTS = 3;

/** A turn to run: a new one (with the user message that starts it), or a cut one to resume. */
type TurnSpec<TPeer> =
  | {
      kind: "new";
      origin: ChatTurnOrigin;
      userMessage: UIMessage | null;
      keepUntil?: string;
      follower?: ChatFollower<TPeer>;
    }
  | { kind: "resume"; stored: StoredChatTurn };

/** A send waiting for its turn. */
type QueuedSend<TPeer> = { follower: ChatFollower<TPeer> | null; state: TurnState };

/**
 * A parent's conversation, made durable, with no host in it: the user's message is stored at once, the assistant's
 * reply is written as it streams (bounded writes), and a turn cut by a crash is resumed at start-up from its last
 * completed step (its pending tool calls run again with their own `toolCallId`, so an `agentTool` call re-attaches to
 * its child run) or closed visibly. Turns run one at a time; sends wait in a bounded queue; every peer that follows a
 * turn gets its chunks; every client hears of turns and messages through `announce`. A turn that does not complete
 * (stopped, failed, interrupted) closes its unfinished tool calls, so the next turn always works.
 *
 * Each turn's lifecycle is the turn machine's (`turn-machine.ts`); this class applies its decisions.
 */
export class ChatEngine<TPeer> {
  readonly #options: ChatEngineOptions<TPeer>;
  readonly #limits: ChatLimits;
  readonly #sink: RunEventSink;
  /** The stored conversation, read once and kept in step with the engine's writes. */
  readonly #conversationHeld: ConversationCache;
  #active: ActiveTurn<TPeer> | null = null;
  readonly #queued = new Set<QueuedSend<TPeer>>();
  #queue: Promise<unknown> = Promise.resolve();
  #taskDepth = 0;

  constructor(options: ChatEngineOptions<TPeer>) {
    this.#options = options;
    this.#limits = resolveChatLimits(options.limits);
    this.#sink = options.sink ?? getDefaultRunEventHub();
    this.#conversationHeld = new ConversationCache(options.store);
  }

  /** The limits in force. */
  get limits(): Readonly<ChatLimits> {
    return this.#limits;
  }

  /** The id of the turn in flight, or `null`. */
  get activeTurnId(): string | null {
    return this.#active?.stored.turnId ?? null;
  }

  /** Whether the turn in flight was resumed after its host was cut off (its tree may hold runs from before). */
  get isActiveTurnResumed(): boolean {
    return (this.#active?.stored.resumeAttempts ?? 0) > 0;
  }

  /** The budget of the turn in flight (what its tree spent, what is left), or `null`. */
  get activeBudget(): RunBudget | null {
    return this.#active?.budget ?? null;
  }

  /** How many sends wait for their turn. */
  get queuedSends(): number {
    return this.#queued.size;
  }

  /**
   * The stored conversation. A turn in flight is there with its user message (stored at once); its reply is not (a
   * client gets it by resuming the turn, which replays it from its start and then follows it live).
   */
  async messages(): Promise<UIMessage[]> {
    return [...(await this.#conversationHeld.load())];
  }

  /** The error for a user message over `maxMessageBytes`, or `null` when it fits. */
  checkMessage(message: UIMessage): ChatLimitError | null {
    return checkSize("maxMessageBytes", message, this.#limits, "The message");
  }

  /**
   * A request for a turn (a client's `send`, or a message sent from code). It is refused at once when
   * `maxQueuedSends` sends already wait (a `ChatLimitError`); else it waits for the turn in flight, if any, and is
   * then decided by `decide` against the conversation as stored at that moment, not as it was when the request came:
   * a regenerate sent while an answer streams replaces that answer once it is stored, and a message sent again while
   * it waited is found stored and not run twice. A send whose peer went away (or aborted it) before its turn came is
   * dropped: nothing of it is stored. A `refuse` (or a `decide` that throws) ends the follower's stream with an error
   * and stores nothing; a `duplicate` ends it empty. Resolves the turn's stored answer (`null` when none).
   */
  send(
    follower: ChatFollower<TPeer> | null,
    decide: (stored: readonly UIMessage[]) => ChatSendDecision,
  ): Promise<UIMessage | null> {
    const admission = decideQueueAdmission({
      queuedSends: this.#queued.size,
      maxQueuedSends: this.#limits.maxQueuedSends,
    });
    if (admission.kind === "refuse") {
      this.#endFollower(follower, admission.error);
      this.#emit({ type: "agent_tool:chat:send:refused", limit: "maxQueuedSends" });
      return Promise.reject(
        new ChatLimitError("maxQueuedSends", this.#queued.size, this.#limits.maxQueuedSends, admission.error),
      );
    }
    const queued: QueuedSend<TPeer> = { follower, state: QUEUED_TURN };
    this.#queued.add(queued);
    if (follower) this.#options.send(follower.peer, { type: "start", requestId: follower.requestId });
    return this.#exclusive(async () => {
      this.#queued.delete(queued);
      queued.state = nextTurnState(queued.state, { type: "start" });
      if (queued.state.phase === "ended") {
        this.#emit({ type: "agent_tool:chat:send:dropped", requestId: follower?.requestId ?? null });
        return null;
      }
      const stored = await this.#conversationHeld.load();
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
            ...(dropFrom !== undefined ? { keepUntil: dropFrom } : {}),
          });
        }
      }
    });
  }

  /**
   * Send a user message (a text, or a whole message) from code (a Worker, a cron, another agent over RPC) and wait for the answer: the same durable
   * turn a client's message gets, told to every client. Rejects with a `ChatLimitError` for a message over
   * `maxMessageBytes` (or a full queue), and with an `INVALID_ARGUMENT` error when its id is already stored (now or
   * when its turn comes). Resolves the stored answer (`null` when the turn produced none).
   */
  async sendMessage(text: string | UIMessage): Promise<UIMessage | null> {
    const message: UIMessage =
      typeof text === "string"
        ? { id: this.#options.generateId(), role: "user", parts: [{ type: "text", text }] }
        : text;
    const tooLarge = this.checkMessage(message);
    if (tooLarge) throw tooLarge;
    const refuseStored = () =>
      new AgentToolsError("INVALID_ARGUMENT", `The conversation already has a message "${message.id}"`);
    if (await this.#options.store.hasMessage(message.id)) throw refuseStored();
    // Checked again when its turn starts: the same message may have been sent while a turn was in flight.
    return this.send(null, (stored) => {
      if (stored.some((storedMessage) => storedMessage.id === message.id)) throw refuseStored();
      return { kind: "append", userMessage: message };
    });
  }

  /** Follow the turn in flight from its start (a reload, a second tab), or answer `no-active`. */
  resume(follower: ChatFollower<TPeer>): void {
    const active = this.#active;
    if (!active) {
      this.#options.send(follower.peer, { type: "no-active", requestId: follower.requestId });
      return;
    }
    this.#options.send(follower.peer, { type: "start", requestId: follower.requestId });
    active.follow(follower.peer, follower.requestId, true);
  }

  /**
   * Resolves once the turn in flight has stored the tool call `toolCallId` (the chunk in which the model decided it
   * is written at once when it comes), so that a tool with effects outside the host (an agent tool starts a child)
   * runs only once a crash can no longer lose the call: the turn resumed after a crash then runs the same call again,
   * with its id, instead of deciding a new one. Resolves at once when no turn is reading its model's stream (a call
   * from elsewhere), and when the turn ends without that call; rejects when the call could not be stored.
   */
  whenToolCallStored(toolCallId: string): Promise<void> {
    return this.#active?.whenToolCallStored(toolCallId) ?? Promise.resolve();
  }

  /**
   * A peer aborted the request it knows a turn by. The `send` that started the turn stops it (the sender's Stop); a
   * resume only stops following it (the turn goes on for everybody): the AI SDK's chat aborts a resume it no longer
   * needs by itself (a newer resume, a chat disposed, React StrictMode mounting twice), so it cannot mean Stop. A send
   * still waiting for its turn is dropped (its sender stopped it before it started).
   */
  abort(peer: TPeer, requestId: string): void {
    for (const queued of this.#queued) {
      if (queued.follower?.peer === peer && queued.follower.requestId === requestId) {
        queued.state = nextTurnState(queued.state, { type: "stop" });
        return;
      }
    }
    const active = this.#active;
    const following = active?.followers.get(peer);
    if (!active || following?.requestId !== requestId) return;
    if (following.resumed) active.followers.delete(peer);
    else this.#stopActive(active);
  }

  /**
   * Stop the turn in flight for everybody, if it is `turnId` — or the turn that streams the answer of that id (what a
   * page on stock `useChat` knows of it) — never a later one; returns whether it stopped it.
   */
  stop(turnId: string): boolean {
    const active = this.#active;
    if (!active || (active.stored.turnId !== turnId && active.stored.assistantMessageId !== turnId)) return false;
    return this.#stopActive(active);
  }

  /**
   * A peer went away: it follows nothing any more (the turn goes on and is stored), and its sends still waiting for
   * their turn are dropped (nothing of them was stored; a tab that comes back shows them as not sent).
   */
  disconnect(peer: TPeer): void {
    this.#active?.followers.delete(peer);
    for (const queued of this.#queued) {
      if (queued.follower?.peer === peer) queued.state = nextTurnState(queued.state, { type: "drop" });
    }
  }

  /** Store a message the server adds (idempotent by id); tells every client. Resolves whether it was new. */
  async appendMessage(message: UIMessage): Promise<boolean> {
    if (await this.#options.store.hasMessage(message.id)) return false;
    await this.#write(() => this.#options.store.upsertMessage(message));
    this.#conversationHeld.stored(message);
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

  /**
   * At start-up: resume the turn a crash cut off (its attempt counted first), or close it visibly once it was resumed
   * too often; a turn row older than the newest is one whose end was never stored: it is closed, never resumed.
   */
  recover(): Promise<void> {
    return this.#exclusive(async () => {
      const plan = planChatRecovery(
        await this.#options.store.turns(),
        this.#options.maxResumeAttempts ?? DEFAULT_MAX_CHAT_RESUME_ATTEMPTS,
      );
      for (const lost of plan.lost) await this.#close(lost, UNSTORED_TURN_TEXT, "error");
      if (plan.close) await this.#close(plan.close, INTERRUPTED_TURN_TEXT, "interrupted");
      const resume = plan.resume;
      if (!resume) return;
      // Counted before anything else is written: a turn whose every resume fails still reaches `close`.
      await this.#options.store.updateTurn(resume);
      await this.#run({ kind: "resume", stored: resume });
    });
  }

  /**
   * A turn's budget: its limits (a wall time becomes a deadline now); each change of its tree's usage is told to every
   * client (at most every 250 ms, the last on `turn-ended`); when it runs out, the host tells the turn's runs.
   */
  #turnBudget(stored: StoredChatTurn, usage: TurnUsageRecord): RunBudget {
    const { turnId } = stored;
    const { clock } = this.#options;
    const { wallTimeMs, costOf, ...limits } = this.#options.budget ?? {};
    const budget: AgentToolBudget = {
      ...limits,
      ...(wallTimeMs !== undefined ? { deadline: clock.now() + wallTimeMs } : {}),
    };
    let timer: TimerHandle | null = null;
    const turnBudget: RunBudget = new RunBudget({
      budget: Object.keys(budget).length > 0 ? budget : undefined,
      clock,
      ...(costOf ? { costOf } : {}),
      // A resumed turn goes on from what it spent itself before the cut (its runs' figures come back from their rows).
      ...(stored.usage ? { initial: stored.usage } : {}),
      onChange: () => {
        usage.record(turnBudget.own());
        if (timer !== null) return;
        timer = clock.setTimeout(() => {
          timer = null;
          if (this.#active?.stored.turnId !== turnId) return;
          this.#options.announce({ kind: "turn-usage", turnId, usage: turnBudget.total() });
        }, 250);
      },
      onExhausted: (reason) => {
        try {
          this.#options.onBudgetExhausted?.(turnId, reason);
        } catch {
          // a host's hook never breaks the turn
        }
      },
    });
    return turnBudget;
  }

  #stopActive(active: ActiveTurn<TPeer>): boolean {
    if (!active.apply({ type: "stop" })) return false;
    active.controller.abort(STOP_REASON);
    try {
      this.#options.onStop?.(active.stored.turnId, STOP_REASON);
    } catch {
      // a host's hook never keeps a turn from stopping
    }
    return true;
  }

  #endFollower(follower: ChatFollower<TPeer> | null, errorText: string | undefined): void {
    if (!follower) return;
    const { peer, requestId } = follower;
    this.#options.send(
      peer,
      errorText === undefined ? { type: "end", requestId } : { type: "error", requestId, errorText },
    );
  }

  #exclusive<TResult>(work: () => Promise<TResult>): Promise<TResult> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    this.#options.track?.(this.#queue);
    return result;
  }

  /** Run one turn to its end; resolves the answer it stored (`null` when it stored none). */
  async #run(spec: TurnSpec<TPeer>): Promise<UIMessage | null> {
    const stored = spec.kind === "new" ? await this.#begin(spec) : spec.stored;
    const { store, clock } = this.#options;
    const usage = new TurnUsageRecord({
      store,
      turn: stored,
      onError: (error) => this.#storeFailed(stored.turnId, "usage", error),
    });
    const active = new ActiveTurn<TPeer>({
      budget: this.#turnBudget(stored, usage),
      usage,
      stored,
      state: spec.kind === "new" ? nextTurnState(QUEUED_TURN, { type: "start" }) : STARTING_TURN,
      limits: this.#limits,
      send: this.#options.send,
      writer: new TurnLogWriter({
        store,
        clock,
        turnId: stored.turnId,
        intervalMs: this.#options.writeIntervalMs ?? DEFAULT_CHAT_WRITE_INTERVAL_MS,
      }),
    });
    if (spec.kind === "new" && spec.follower) active.follow(spec.follower.peer, spec.follower.requestId, false);
    this.#active = active;
    const resumed = spec.kind === "resume";
    this.#options.announce({ kind: "turn-started", turnId: stored.turnId, origin: stored.origin, resumed });
    this.#emit({ type: "agent_tool:chat:turn:start", turnId: stored.turnId, origin: stored.origin, resumed });
    try {
      if (resumed) await this.#goOnFromCut(active);
      await this.#stream(active, resumed);
    } catch (error) {
      active.apply({ type: "fail", errorText: errorMessage(error) });
    }
    return this.#end(active);
  }

  /** Store a new turn and its user message (and drop what an edit or a regenerate replaces), then tell every client. */
  async #begin(spec: Extract<TurnSpec<TPeer>, { kind: "new" }>): Promise<StoredChatTurn> {
    const { store, clock, generateId, announce } = this.#options;
    const stored: StoredChatTurn = {
      turnId: generateId(),
      origin: spec.origin,
      assistantMessageId: generateId(),
      startedAt: clock.now(),
      resumeAttempts: 0,
      ...(spec.userMessage ? { userMessageId: spec.userMessage.id } : {}),
    };
    const { keepUntil, userMessage } = spec;
    try {
      if (keepUntil !== undefined) {
        await this.#write(() => store.truncateFrom(keepUntil));
        this.#conversationHeld.truncatedFrom(keepUntil);
        announce({ kind: "history" });
      }
      await this.#write(() => store.beginTurn(stored, userMessage ?? undefined));
      if (userMessage) this.#conversationHeld.stored(userMessage);
    } catch (error) {
      this.#storeFailed(stored.turnId, "begin", error);
      this.#endFollower(spec.follower ?? null, `The message could not be saved: ${errorMessage(error)}`);
      throw error;
    }
    if (spec.userMessage) announce({ kind: "message", message: spec.userMessage });
    return stored;
  }

  /** A resumed turn: keep what the cut turn finished (rewritten as its only chunks) and close its cut step. */
  async #goOnFromCut(active: ActiveTurn<TPeer>): Promise<void> {
    const { store } = this.#options;
    const plan = planTurnRecovery(await store.turnChunks(active.stored.turnId));
    await store.rewriteTurnChunks(active.stored.turnId, plan.keep);
    for (const chunk of plan.keep) active.push(chunk, { write: false });
    active.writer.skip(plan.keep.length);
    if (!plan.isStepOpen) return;
    active.apply({ type: "cut-step" });
    const closing = await closeCutStep({
      pendingToolCalls: plan.pendingToolCalls,
      tools: plan.pendingToolCalls.length > 0 ? this.#options.tools() : undefined,
      conversation: () => this.#conversation(active),
      abortSignal: active.controller.signal,
    });
    for (const chunk of closing) this.#take(active, chunk);
  }

  /** Read the model's stream into the turn, until it ends, fails, is stopped or goes over the answer limit. */
  async #stream(active: ActiveTurn<TPeer>, resumed: boolean): Promise<void> {
    if (active.controller.signal.aborted) return;
    const messages = await this.#conversation(active);
    const whenStored = (toolCallId: string) => this.whenToolCallStored(toolCallId);
    const tools = guardTools(this.#options.tools() ?? {}, { whenStored, limits: this.#limits });
    active.apply({ type: "stream-open" });
    // From here the model's calls come through the turn's stream: a tool waits for its call to be stored.
    active.consuming = true;
    const abortSignal = active.controller.signal;
    const stream = await this.#options.stream({
      messages,
      tools,
      abortSignal,
      resumed,
      turnId: active.stored.turnId,
      origin: active.stored.origin,
      model: (model) => budgetedModel(model, active.budget, { abortSignal }),
      budget: active.budget,
      whenStored: () => active.writer.flush(),
    });
    for await (const chunk of stream as AsyncIterable<UIMessageChunk>) {
      if (active.controller.signal.aborted) break;
      this.#take(active, chunk);
    }
    active.stopConsuming();
    active.apply({ type: "stream-end" });
  }

  /** Push a chunk into the turn; an answer over its limit, or a write that failed, fails the turn and stops its model. */
  #take(active: ActiveTurn<TPeer>, chunk: UIMessageChunk): void {
    if (active.state.phase === "ending" || active.state.phase === "ended") return;
    const pushed = active.push(chunk);
    const errorText =
      pushed === "over-answer-limit"
        ? `The answer is too large to store (over ${this.#limits.maxAnswerBytes} bytes); it was ended there`
        : active.writer.hasFailed
          ? `The answer could not be saved: ${errorMessage(active.writer.error)}`
          : null;
    if (errorText === null) return;
    if (active.apply({ type: "fail", errorText })) active.controller.abort();
  }

  /** The stored conversation with the turn's reply so far last, made valid for a model turn. */
  async #conversation(active: ActiveTurn<TPeer>): Promise<UIMessage[]> {
    const stored = repairUnfinishedToolParts(await this.#conversationHeld.load());
    const partial = await assembleMessage(active.chunks, active.stored.assistantMessageId);
    return partial && partial.parts.length > 0 ? [...stored, partial] : stored;
  }

  /** Store the turn's answer and forget the turn; end every follower's stream; tell every client. */
  async #end(active: ActiveTurn<TPeer>): Promise<UIMessage | null> {
    active.stopConsuming();
    // A turn that ends in any other way than its stream's end ends as the machine says (a fail, a stop).
    if (active.state.phase !== "ending") active.apply({ type: "fail", errorText: "The turn ended unexpectedly" });
    await active.writer.dispose();
    const { turnId, assistantMessageId } = active.stored;
    const end = active.state.end ?? "error";
    // Whatever way the turn ended, no tool call is left without a result (a stream may also end early by itself).
    const text = end === "aborted" ? STOPPED_TOOL_CALL_TEXT : UNFINISHED_TOOL_CALL_TEXT;
    const { kept, closing } = closeUnfinishedToolCalls(active.chunks, text, { closeApprovals: end !== "completed" });
    const chunks = [...kept, ...closing];
    // The turn's row goes with its end: the last usage write lands first, and none comes after.
    await active.usage.close();
    // Followers see each call closed before their stream ends; the stored answer has the same.
    for (const chunk of closing) active.push(chunk, { write: false });
    // What the turn's tree spent goes with its answer (a `data-agent-usage` part, with the turn's own share), so that a
    // reload, or a tab opened later, shows it too.
    const spent = usageChunk(active.budget.total(), active.budget.own());
    let answer = await assembleAnswer(chunks, assistantMessageId, spent);
    // A failed answer says so where it is stored, for every tab and every later reload, not only in the sender's
    // error frame.
    if (end === "error") answer = withNotice(answer, assistantMessageId, failedTurnText(active.state.errorText));
    try {
      const stored = answer;
      await this.#write(() => this.#options.store.finishTurn(turnId, stored));
      if (stored) this.#conversationHeld.stored(stored);
      active.apply({ type: "stored" });
    } catch (error) {
      this.#storeFailed(turnId, "finish", error);
      answer = await this.#finishWithNotice(active.stored, chunks, UNSTORED_TURN_TEXT);
      active.apply({ type: "store-failed", errorText: `${UNSTORED_TURN_TEXT} ${errorMessage(error)}` });
    }
    if (this.#active === active) this.#active = null;
    const status = turnStatus(active.state.end);
    const errorText = active.state.errorText;
    active.sendToFollowers((requestId) =>
      status === "error"
        ? { type: "error", requestId, errorText: errorText ?? "The answer failed" }
        : { type: "end", requestId },
    );
    this.#options.announce({
      kind: "turn-ended",
      turnId,
      status,
      ...(answer ? { message: answer } : {}),
      usage: active.budget.total(),
    });
    this.#emit({
      type: "agent_tool:chat:turn:end",
      turnId,
      status,
      ...(status === "error" && errorText !== undefined ? { errorText } : {}),
    });
    return answer;
  }

  /** Close a stored turn that will not run again (interrupted too often, or lost): keep what it finished, say so. */
  async #close(stored: StoredChatTurn, notice: string, status: AgentChatTurnStatus): Promise<void> {
    let kept: UIMessageChunk[] = [];
    try {
      kept = planTurnRecovery(await this.#options.store.turnChunks(stored.turnId)).keep;
    } catch (error) {
      this.#storeFailed(stored.turnId, "read", error);
    }
    const { kept: closed, closing } = closeUnfinishedToolCalls(kept, UNFINISHED_TOOL_CALL_TEXT);
    const answer = await this.#finishWithNotice(stored, [...closed, ...closing], notice);
    this.#options.announce({
      kind: "turn-ended",
      turnId: stored.turnId,
      status,
      ...(answer ? { message: answer } : {}),
    });
    this.#emit({ type: "agent_tool:chat:turn:end", turnId: stored.turnId, status, errorText: notice });
  }

  /**
   * Store a turn's answer with `notice` after what it made, or — when even that cannot be stored — the notice alone;
   * resolves what was stored (`null` when nothing could be: the turn stays stored and start-up tries again).
   */
  async #finishWithNotice(stored: StoredChatTurn, chunks: UIMessageChunk[], notice: string): Promise<UIMessage | null> {
    const partial = await assembleAnswer(chunks, stored.assistantMessageId);
    const whole = withNotice(partial, stored.assistantMessageId, notice);
    const bare = withNotice(null, stored.assistantMessageId, notice);
    for (const answer of [whole, bare]) {
      try {
        await this.#write(() => this.#options.store.finishTurn(stored.turnId, answer));
        this.#conversationHeld.stored(answer);
        return answer;
      } catch (error) {
        this.#storeFailed(stored.turnId, "finish", error);
      }
    }
    return null;
  }

  /** A write that changes the conversation; when it fails, what the engine holds is read from the store again. */
  async #write<TResult>(write: () => Promise<TResult>): Promise<TResult> {
    try {
      return await write();
    } catch (error) {
      this.#conversationHeld.forget();
      throw error;
    }
  }

  #storeFailed(turnId: string, operation: "begin" | "finish" | "read" | "usage", error: unknown): void {
    this.#emit({
      type: "agent_tool:chat:store:error",
      turnId,
      operation,
      errorName: error instanceof Error ? error.name : typeof error,
      message: errorMessage(error),
    });
  }

  #emit(event: { type: `agent_tool:chat:${string}`; [field: string]: unknown }): void {
    try {
      this.#sink.emit({ ...event, at: this.#options.clock.now() });
    } catch {
      // a broken sink never breaks the conversation
    }
  }
}

/** A turn's end as a client hears it (`dropped` sends never became turns). */
function turnStatus(end: TurnEnd | undefined): AgentChatTurnStatus {
  return end === undefined || end === "dropped" ? "error" : end;
}

/** The text a failed answer ends with. */
export function failedTurnText(errorText: string | undefined): string {
  return errorText === undefined ? FAILED_TURN_TEXT : `${FAILED_TURN_TEXT} ${errorText}`;
}

/** `answer` (or an empty answer) with a text part `notice` after what it holds. */
function withNotice(answer: UIMessage | null, id: string, notice: string): UIMessage {
  return {
    id,
    role: "assistant",
    ...(answer?.metadata !== undefined ? { metadata: answer.metadata } : {}),
    parts: [...(answer?.parts ?? []), { type: "text", text: notice, state: "done" }],
  };
}

/** The answer the chunks make (with `usage` last, when given), or `null` when they make none. */
async function assembleAnswer(
  chunks: readonly UIMessageChunk[],
  id: string,
  usage?: UIMessageChunk,
): Promise<UIMessage | null> {
  const assembled = await assembleMessage(usage ? [...chunks, usage] : chunks, id);
  return assembled?.parts.some((part) => part.type !== AGENT_USAGE_PART) ? assembled : null;
}
