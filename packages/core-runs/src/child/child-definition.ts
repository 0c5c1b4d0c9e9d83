import type { ToolSet, UIMessage, UIMessageChunk } from "ai";
import type { budgetedModel, WrappableLanguageModel } from "../budget/budgeted-model.js";
import type { RunBudget } from "../budget/run-budget.js";
import type { Clock } from "../ports/clock.js";
import type {
  AgentToolApprovalAnswer,
  AgentToolBudgetExhaustion,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolTraceContext,
  AgentToolTree,
  AgentToolUsage,
} from "../protocol/index.js";
import type { FormatAgentToolInput } from "./child-input-message.js";

/** What a child turn receives. */
export type AgentToolTurnContext = {
  runId: string;
  input: unknown;
  /**
   * The conversation so far: the input as a user message and, when the turn is resumed after the host was cut
   * off, the assistant message of the steps it had completed (model steps and tool results), so that a
   * `streamText` over these messages goes on from there instead of doing them again.
   */
  messages: UIMessage[];
  /**
   * The child's tools (`getTools()`), each of which runs only once the run's log holds its call and the start of its
   * execution: pass them to `streamText` (and `toUIMessageStream`). A call whose execution started when the host was
   * cut runs again with its own `toolCallId` (an agent tool re-attaches to its run; a tool with effects elsewhere can
   * be idempotent by that id). Empty without `getTools`.
   */
  tools: ToolSet;
  /** True when this turn goes on from the run's log (a turn cut off, an approval answered). */
  resumed: boolean;
  /** The run's milestones so far (a resumed turn can skip reporting them again). */
  milestones: readonly AgentToolMilestone[];
  /** Aborted when the run is cancelled: pass it to `streamText`. */
  abortSignal: AbortSignal;
  /**
   * The run's place in its tree of runs (its root, its ancestors, the budget it and its subtree live within), as its
   * parent dispatched it; `null` for a run started without one.
   */
  tree: AgentToolTree | null;
  /**
   * `model`, spending the run's budget: pass what this returns to `streamText`. Each call's usage is counted (and
   * reported up the tree as the run's usage); once the budget is out (tokens, cost, time — its own subtree's or an
   * ancestor's), the next call is the wrap-up (the model is asked to answer with what it has, with no tool), and none
   * after; no call starts once the run is cancelled. Without it, the run's model calls are not counted.
   */
  model<TModel extends WrappableLanguageModel>(model: TModel): ReturnType<typeof budgetedModel>;
  /**
   * The run's budget as it is spent: what is left for what it dispatches (`remaining()`, for the `position` of a
   * registry the run dispatches through), and what that registry reports back (`recordDispatch`, `recordChild`).
   */
  budget: RunBudget;
  /**
   * The W3C trace context the run continues (the span its work nests under), as its parent dispatched it; `null`
   * without one. Give it to OpenTelemetry to nest the turn's own spans (the AI SDK's model calls) under it, e.g.
   * `context.with(trace.setSpanContext(context.active(), parseTraceparent(turn.trace.traceparent)), …)`.
   */
  trace: AgentToolTraceContext | null;
  clock: Clock;
  /**
   * Record the run's structured output; `getAgentToolOutput` returns it by default. It is journaled in the run's log,
   * so a run cut after its stream ended ends with it without calling its model again.
   */
  setOutput(output: unknown): void;
  /**
   * Append a durable chunk (e.g. a `data-agent-milestone`) to this run's log with the next sequence, in the same
   * sequence space as the turn's own chunks; pass `milestone` to list it in the run's inspection. Returns the
   * sequence, or `null` once the run has ended.
   */
  appendChunk(body: UIMessageChunk, milestone?: Omit<AgentToolMilestone, "sequence" | "at">): number | null;
  /**
   * Send an ephemeral chunk (e.g. `data-agent-progress`) to live tails without a sequence, and keep `snapshot`
   * (when given) as the run's latest progress on its row. Returns false once the run has ended.
   */
  publishEphemeral(body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot): boolean;
};

/** A turn's chunks: usually `toUIMessageStream({ stream: streamText(…).stream, tools })`. */
export type AgentToolTurnStream = ReadableStream<UIMessageChunk> | AsyncIterable<UIMessageChunk>;

/**
 * A child agent type: how it turns a run's input into one turn of `UIMessageChunk`s, and how the turn becomes a
 * result. Names keep the seed's spelling.
 */
export type AgentToolChildDefinition = {
  /** The agentType parents use; must survive minification (don't rely on class names). */
  agentType: string;
  /** Run one turn. Everything it yields goes into the run's durable log with the next sequence. */
  turn(context: AgentToolTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  /**
   * The tools the turn gives its model: the turn gets them journaled as `context.tools`. A call the model decided is
   * never lost to a crash: after a cut, a decided call with no result runs again with these tools and its own
   * `toolCallId` (one that needs approval is asked first); without them, it gets an error result saying so.
   */
  getTools?(): ToolSet | undefined;
  /** Default: a string as is, anything else as pretty JSON; message id `agent-tool-${runId}-input`. */
  formatAgentToolInput?: FormatAgentToolInput;
  /**
   * Read right after the turn resolves, with one context object (not a positional `(runId)`).
   * Default: what the turn passed to `setOutput`.
   */
  getAgentToolOutput?(context: AgentToolOutputContext): unknown;
  /**
   * Read after the output, with one context object (not a positional `(runId, output)`).
   * Default: the turn's assistant text (last step with text), else the output as text.
   */
  getAgentToolSummary?(context: AgentToolSummaryContext): string;
  /**
   * A turn of the run is over (its stream ended or failed, or it never began), once per turn: called in the turn's
   * scope before its log is finished and the run pauses or records its end, so what the host still holds for the turn
   * (a progress value `reportProgress` keeps back for its throttle window) goes out while the run is live. A turn that
   * goes on after approvals is a turn of its own. A throw is ignored.
   */
  onTurnEnd?(runId: string): void;
  /**
   * The run is being cancelled (with `reason`): cancel what it dispatched itself (a child that runs agent tools:
   * its own children's runs) and resolve once they ended. Called as the run's turn is aborted; the run records its
   * own end after this resolves (or the runner's `descendantsTimeoutMs`), so a tree ends from its leaves up.
   */
  onCancel?(runId: string, reason: string): Promise<void>;
  /**
   * The run's budget ran out (its own usage or its subtree's, its deadline, or an ancestor said so): tell what it
   * dispatched itself to wrap up (a child that runs agent tools: its registry's `wrapUpDispatchedBy`).
   */
  onBudgetExhausted?(runId: string, reason: AgentToolBudgetExhaustion): void;
  /**
   * An answer to an approval that is not the run's own: pass it down to the run below it that asked (a child that
   * runs agent tools: its registry's `answerApprovalDispatchedBy({ runId }, …)`). Resolves whether it reached the asker.
   */
  onApprovalAnswer?(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean>;
  /**
   * A run resumed after a restart: what the runs it dispatched itself spent so far (by runId, as their rows last
   * recorded it) and how many it dispatched, so its budget goes on from the whole subtree (a child that runs agent
   * tools: from its registry's rows).
   */
  dispatchedUsage?(runId: string): Promise<{ children: Array<[string, AgentToolUsage]>; dispatched: number }>;
};

/** What `getAgentToolOutput` receives: the run, its input, and what the turn passed to `setOutput` (if anything). */
export type AgentToolOutputContext = { runId: string; input: unknown; output: unknown };

/** What `getAgentToolSummary` receives: the run, its output, and the turn's assistant text. */
export type AgentToolSummaryContext = { runId: string; output: unknown; text: string };
