import type { ToolSet, UIMessage, UIMessageChunk } from "ai";
import type { budgetedModel, WrappableLanguageModel } from "../budget/budgeted-model.js";
import type { RunBudget } from "../budget/run-budget.js";
import type { AgentToolTurnStream } from "../child/child-definition.js";
import type { TurnJournal } from "./turn-journal.js";

/** What the turn engine gives the host's model turn (a child's `turn`, a conversation's `stream`). */
export type TurnStreamContext = {
  /** The conversation to go on from: the host's messages, then the turn's answer so far (its journal). */
  messages: UIMessage[];
  /** The host's tools, each of which runs only once its call and the start of its execution are journaled. */
  tools: ToolSet;
  abortSignal: AbortSignal;
  /** True when the turn goes on from a journal (a cut turn resumed, an approval answered). */
  resumed: boolean;
  /** `model`, spending the turn's budget (see `budgetedModel`). */
  model<TModel extends WrappableLanguageModel>(model: TModel): ReturnType<typeof budgetedModel>;
  budget: RunBudget;
  /** Record the turn's output: journaled, so a turn whose stream ended ends with it after a restart. */
  setOutput(value: unknown): void;
};

/** An approval the turn asks: its id, the call, and what the call does. */
export type TurnApprovalRequest = { approvalId: string; toolCallId: string; toolName: string; input: unknown };

/**
 * What a host hands the turn engine: where the turn's chunks go (`journal`), where its messages come from
 * (`transcript`), its model turn and tools, its budget and abort signal. A conversation turn and a child run differ
 * only in this.
 */
export type TurnHost = {
  readonly journal: TurnJournal;
  /** The host's tools as they are (the engine journals them): what decided calls run with after a cut. */
  tools(): ToolSet | undefined;
  /** The messages the model goes on from, given the turn's chunks so far. */
  transcript(chunks: readonly UIMessageChunk[]): Promise<UIMessage[]>;
  /** Run the model turn: its chunks are journaled as they come. */
  stream(context: TurnStreamContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  readonly budget: RunBudget;
  readonly signal: AbortSignal;
  /** A `transient` chunk of the model turn (ephemeral progress): published, never journaled. */
  publish(chunk: UIMessageChunk): void;
  /** A new approval id, for a call recovery must ask about. */
  newApprovalId(toolCallId: string): string;
  /**
   * An approval was asked (journaled): the chunk the host journals with it, right after it (a child: its
   * `data-agent-approval`, pending), or `null`.
   */
  approvalAsked?(request: TurnApprovalRequest): UIMessageChunk | null;
  /** Let the host's event loop turn (after the turn's first 64 chunks, 256 later, then every 1 024: `run-turn.ts`). */
  yieldToEventLoop?(): Promise<void>;
  /**
   * Called once before a turn that goes on from a journal does any work (a cut turn's resume attempt is counted
   * here); `false`: it does nothing.
   */
  claim?(): Promise<boolean>;
};
