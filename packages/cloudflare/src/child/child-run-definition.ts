import type {
  AgentToolChildDefinition,
  AgentToolTurnContext,
  AgentToolTurnStream,
  AgentToolUsage,
} from "@agent-tools/core-runs";
import { defaultFormatAgentToolInput } from "@agent-tools/core-runs/internal";
import type { AgentToolApprovalAnswer, AgentToolBudgetExhaustion } from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import type { ChildParts } from "./child-parts.js";
import { DirectChat } from "./direct-chat.js";

/** What a child's definition is made of: its agent type, its turn, and the hooks its subclass has. */
export type ChildHooks = Pick<AgentToolChildDefinition, "agentType" | "turn"> &
  Partial<
    Pick<AgentToolChildDefinition, "formatAgentToolInput" | "getTools" | "getAgentToolOutput" | "getAgentToolSummary">
  >;

/**
 * A child object's definition for its runner: its turn (a direct-chat run answers its message after the conversation
 * before it; a value `reportProgress` still holds is sent when the turn ends, before the run does), its hooks, and the
 * hooks that go down its tree (through the registry of what its runs dispatched, bound when first used).
 *
 * Its hooks are methods, not functions made for each object: a child object is made per run and kept in memory a
 * while after it, and a function made per object costs it a closure (and, in a bundle built with `keepNames` as
 * wrangler builds it, a property array for its name). The subclass's optional hooks are bound only when it has them.
 * @internal
 */
export function childRunDefinition(child: ChildHooks, parts: ChildParts): AgentToolChildDefinition {
  const definition: AgentToolChildDefinition = new ChildRunDefinition(child, parts);
  if (child.getAgentToolOutput) definition.getAgentToolOutput = child.getAgentToolOutput.bind(child);
  if (child.getAgentToolSummary) definition.getAgentToolSummary = child.getAgentToolSummary.bind(child);
  if (child.getTools) definition.getTools = child.getTools.bind(child);
  return definition;
}

/** The hooks every child's definition has, as methods. */
class ChildRunDefinition implements AgentToolChildDefinition {
  readonly agentType: string;
  readonly #child: ChildHooks;
  readonly #parts: ChildParts;

  constructor(child: ChildHooks, parts: ChildParts) {
    this.agentType = child.agentType;
    this.#child = child;
    this.#parts = parts;
  }

  async turn(context: AgentToolTurnContext): Promise<AgentToolTurnStream> {
    const history = DirectChat.isInput(context.input) ? await this.#parts.directChat.history(context.input) : [];
    return this.#child.turn.call(this.#child, { ...context, messages: [...history, ...context.messages] });
  }

  onTurnEnd(runId: string): void {
    this.#parts.endTurn(runId);
  }

  formatAgentToolInput(input: unknown, options: { runId: string }): UIMessage | string {
    if (DirectChat.isInput(input)) return input.message;
    const format = this.#child.formatAgentToolInput;
    return format ? format.call(this.#child, input, options) : defaultFormatAgentToolInput(input);
  }

  // Down the tree (cancel, wrap-up, answers, usage), through the registry of what its runs dispatched.

  async onCancel(runId: string, reason: string): Promise<void> {
    await this.#parts.treeHooks().onCancel?.(runId, reason);
  }

  onBudgetExhausted(runId: string, reason: AgentToolBudgetExhaustion): void {
    this.#parts.treeHooks().onBudgetExhausted?.(runId, reason);
  }

  async onApprovalAnswer(runId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    return (await this.#parts.treeHooks().onApprovalAnswer?.(runId, approvalId, answer)) ?? false;
  }

  async dispatchedUsage(runId: string): Promise<{ children: Array<[string, AgentToolUsage]>; dispatched: number }> {
    return (await this.#parts.treeHooks().dispatchedUsage?.(runId)) ?? { children: [], dispatched: 0 };
  }
}
