import { AgentToolsError, errorMessage, type RunBudget } from "@agent-tools/core-runs";
import type { UIMessage } from "ai";
import type { ActiveTurn } from "./active-turn.js";
import {
  type ChatEngineOptions,
  type ChatFollower,
  DEFAULT_MAX_CHAT_RESUME_ATTEMPTS,
  INTERRUPTED_TURN_TEXT,
  STOP_REASON,
  UNSTORED_TURN_TEXT,
} from "./chat-engine-options.js";
import { ChatLimitError, type ChatLimits, checkSize } from "./chat-limits.js";
import { planChatRecovery } from "./chat-recovery-plan.js";
import { ChatRuntime } from "./chat-runtime.js";
import { runChatTurn } from "./chat-turn.js";
import { closeChatTurn } from "./chat-turn-end.js";
import type { ChatSendDecision } from "./merge-chat-send.js";
import { decideQueueAdmission, nextTurnState, QUEUED_TURN, type TurnState } from "./turn-machine.js";

export type { ChatEngineOptions, ChatFollower, ChatTurnBudget, ChatTurnContext } from "./chat-engine-options.js";
export {
  DEFAULT_MAX_CHAT_RESUME_ATTEMPTS,
  INTERRUPTED_TURN_TEXT,
  STOP_REASON,
  UNSTORED_TURN_TEXT,
} from "./chat-engine-options.js";
export { failedTurnText } from "./chat-turn-end.js";

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
  readonly #runtime: ChatRuntime<TPeer>;
  readonly #queued = new Set<QueuedSend<TPeer>>();
  #queue: Promise<unknown> = Promise.resolve();
  #taskDepth = 0;

  constructor(options: ChatEngineOptions<TPeer>) {
    this.#runtime = new ChatRuntime(options);
  }

  /** The limits in force. */
  get limits(): Readonly<ChatLimits> {
    return this.#runtime.limits;
  }

  /** The id of the turn in flight, or `null`. */
  get activeTurnId(): string | null {
    return this.#runtime.active?.stored.turnId ?? null;
  }

  /** Whether the turn in flight was resumed after its host was cut off (its tree may hold runs from before). */
  get isActiveTurnResumed(): boolean {
    return (this.#runtime.active?.stored.resumeAttempts ?? 0) > 0;
  }

  /** The budget of the turn in flight (what its tree spent, what is left), or `null`. */
  get activeBudget(): RunBudget | null {
    return this.#runtime.active?.budget ?? null;
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
    return [...(await this.#runtime.conversation.load())];
  }

  /** The error for a user message over `maxMessageBytes`, or `null` when it fits. */
  checkMessage(message: UIMessage): ChatLimitError | null {
    return checkSize("maxMessageBytes", message, this.#runtime.limits, "The message");
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
      maxQueuedSends: this.#runtime.limits.maxQueuedSends,
    });
    if (admission.kind === "refuse") {
      this.#runtime.endFollower(follower, admission.error);
      this.#runtime.emit({ type: "agent_tool:chat:send:refused", limit: "maxQueuedSends" });
      return Promise.reject(
        new ChatLimitError("maxQueuedSends", this.#queued.size, this.#runtime.limits.maxQueuedSends, admission.error),
      );
    }
    const queued: QueuedSend<TPeer> = { follower, state: QUEUED_TURN };
    this.#queued.add(queued);
    if (follower) this.#runtime.options.send(follower.peer, { type: "start", requestId: follower.requestId });
    return this.#exclusive(async () => {
      this.#queued.delete(queued);
      queued.state = nextTurnState(queued.state, { type: "start" });
      if (queued.state.phase === "ended") {
        this.#runtime.emit({ type: "agent_tool:chat:send:dropped", requestId: follower?.requestId ?? null });
        return null;
      }
      const stored = await this.#runtime.conversation.load();
      let decision: ChatSendDecision;
      try {
        decision = decide(stored);
      } catch (error) {
        this.#runtime.endFollower(follower, errorMessage(error));
        throw error;
      }
      switch (decision.kind) {
        case "refuse":
          this.#runtime.endFollower(follower, decision.error);
          return null;
        case "duplicate":
          this.#runtime.endFollower(follower, undefined);
          return null;
        case "append":
        case "replace": {
          const dropFrom = decision.kind === "replace" ? stored[decision.keep.length]?.id : undefined;
          return runChatTurn(this.#runtime, {
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
        ? { id: this.#runtime.options.generateId(), role: "user", parts: [{ type: "text", text }] }
        : text;
    const tooLarge = this.checkMessage(message);
    if (tooLarge) throw tooLarge;
    const refuseStored = () =>
      new AgentToolsError("INVALID_ARGUMENT", `The conversation already has a message "${message.id}"`);
    if (await this.#runtime.options.store.hasMessage(message.id)) throw refuseStored();
    // Checked again when its turn starts: the same message may have been sent while a turn was in flight.
    return this.send(null, (stored) => {
      if (stored.some((storedMessage) => storedMessage.id === message.id)) throw refuseStored();
      return { kind: "append", userMessage: message };
    });
  }

  /** Follow the turn in flight from its start (a reload, a second tab), or answer `no-active`. */
  resume(follower: ChatFollower<TPeer>): void {
    const active = this.#runtime.active;
    if (!active) {
      this.#runtime.options.send(follower.peer, { type: "no-active", requestId: follower.requestId });
      return;
    }
    this.#runtime.options.send(follower.peer, { type: "start", requestId: follower.requestId });
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
    return this.#runtime.active?.record?.whenDecided(toolCallId) ?? Promise.resolve();
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
    const active = this.#runtime.active;
    const following = active?.followers.get(peer);
    if (!active || following?.requestId !== requestId) return;
    if (following.resumed) active.followers.delete(peer);
    else this.#stopActive(active);
  }

  /** Stop the turn in flight for everybody, if it is `turnId` (never a later one); returns whether it stopped it. */
  stop(turnId: string): boolean {
    const active = this.#runtime.active;
    if (!active || (active.stored.turnId !== turnId && active.stored.assistantMessageId !== turnId)) return false;
    return this.#stopActive(active);
  }

  /**
   * A peer went away: it follows nothing any more (the turn goes on and is stored), and its sends still waiting for
   * their turn are dropped (nothing of them was stored; a tab that comes back shows them as not sent).
   */
  disconnect(peer: TPeer): void {
    this.#runtime.active?.followers.delete(peer);
    for (const queued of this.#queued) {
      if (queued.follower?.peer === peer) queued.state = nextTurnState(queued.state, { type: "drop" });
    }
  }

  /** Store a message the server adds (idempotent by id); tells every client. Resolves whether it was new. */
  async appendMessage(message: UIMessage): Promise<boolean> {
    if (await this.#runtime.options.store.hasMessage(message.id)) return false;
    await this.#runtime.write(() => this.#runtime.options.store.upsertMessage(message));
    this.#runtime.held(message);
    this.#runtime.options.announce({ kind: "message", message });
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
    const turn = () => runChatTurn(this.#runtime, { kind: "new", origin: "server", userMessage: null });
    await (this.#taskDepth > 0 ? turn() : this.#exclusive(turn));
  }

  /**
   * At start-up: resume the turn a crash cut off (its attempt counted first), or close it visibly once it was resumed
   * too often; a turn row older than the newest is one whose end was never stored: it is closed, never resumed.
   */
  recover(): Promise<void> {
    return this.#exclusive(async () => {
      const plan = planChatRecovery(
        await this.#runtime.options.store.turns(),
        this.#runtime.options.maxResumeAttempts ?? DEFAULT_MAX_CHAT_RESUME_ATTEMPTS,
      );
      for (const lost of plan.lost) await closeChatTurn(this.#runtime, lost, UNSTORED_TURN_TEXT, "error");
      if (plan.close) await closeChatTurn(this.#runtime, plan.close, INTERRUPTED_TURN_TEXT, "interrupted");
      const resume = plan.resume;
      if (!resume) return;
      // Counted before anything else is written: a turn whose every resume fails still reaches `close`.
      await this.#runtime.options.store.updateTurn(resume);
      await runChatTurn(this.#runtime, { kind: "resume", stored: resume });
    });
  }

  #stopActive(active: ActiveTurn<TPeer>): boolean {
    if (!active.apply({ type: "stop" })) return false;
    active.controller.abort(STOP_REASON);
    try {
      this.#runtime.options.onStop?.(active.stored.turnId, STOP_REASON);
    } catch {
      // a host's hook never keeps a turn from stopping
    }
    return true;
  }

  #exclusive<TResult>(work: () => Promise<TResult>): Promise<TResult> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => undefined);
    this.#runtime.options.track?.(this.#queue);
    return result;
  }
}
