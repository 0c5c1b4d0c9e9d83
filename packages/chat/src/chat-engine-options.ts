import type {
  AgentToolBudget,
  AgentToolBudgetExhaustion,
  AgentToolCostFunction,
  AgentToolTurnStream,
  budgetedModel,
  Clock,
  RunBudget,
  RunEventSink,
  WrappableLanguageModel,
} from "@agent-tools/core-runs";
import type { AgentChatEvent } from "@agent-tools/core-runs/protocol";
import type { ToolSet, UIMessage, WebSocketChatTransportResponse } from "ai";
import type { ChatLimits } from "./chat-limits.js";
import type { ChatStore, ChatTurnOrigin } from "./ports/chat-store.js";
import { STOPPED_TOOL_CALL_TEXT } from "./unfinished-tool-calls.js";

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
