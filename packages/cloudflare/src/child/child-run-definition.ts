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

/** Where a definition keeps its child object and parts (symbols: a spread copy of the definition keeps them too). */
const CHILD = Symbol("agent-tools.child");
const PARTS = Symbol("agent-tools.parts");

/** What a definition's hooks read through `this`: the definition, or a spread copy of it (`{ ...definition, … }`). */
type Definition = { readonly [CHILD]: ChildHooks; readonly [PARTS]: ChildParts };

/**
 * A child object's definition for its runner: its turn (a direct-chat run answers its message after the conversation
 * before it; a value `reportProgress` still holds is sent when the turn ends, before the run does), its hooks, and the
 * hooks that go down its tree (through the registry of what its runs dispatched, bound when first used).
 *
 * Its hooks are functions made once for every object, that read the child through `this` (the runner calls each hook
 * on its definition): a child object is made per run and kept in memory a while after it, and a function made per
 * object costs it a closure (and, in a bundle built with `keepNames` as wrangler builds it, a property array for its
 * name). They are the definition's own properties, as its child and parts are, so a subclass's `definition()` may
 * return `{ ...super.definition(), turn }`. The subclass's optional hooks are bound only when it has them.
 * @internal
 */
export function childRunDefinition(child: ChildHooks, parts: ChildParts): AgentToolChildDefinition {
  const definition: AgentToolChildDefinition & Definition = {
    [CHILD]: child,
    [PARTS]: parts,
    agentType: child.agentType,
    turn,
    onTurnEnd,
    formatAgentToolInput,
    onCancel,
    onBudgetExhausted,
    onApprovalAnswer,
    dispatchedUsage,
  };
  if (child.getAgentToolOutput) definition.getAgentToolOutput = child.getAgentToolOutput.bind(child);
  if (child.getAgentToolSummary) definition.getAgentToolSummary = child.getAgentToolSummary.bind(child);
  if (child.getTools) definition.getTools = child.getTools.bind(child);
  return definition;
}

async function turn(this: Definition, context: AgentToolTurnContext): Promise<AgentToolTurnStream> {
  const child = this[CHILD];
  const history = DirectChat.isInput(context.input) ? await this[PARTS].directChat.history(context.input) : [];
  return child.turn.call(child, { ...context, messages: [...history, ...context.messages] });
}

function onTurnEnd(this: Definition, runId: string): void {
  this[PARTS].endTurn(runId);
}

function formatAgentToolInput(this: Definition, input: unknown, options: { runId: string }): UIMessage | string {
  if (DirectChat.isInput(input)) return input.message;
  const child = this[CHILD];
  const format = child.formatAgentToolInput;
  return format ? format.call(child, input, options) : defaultFormatAgentToolInput(input);
}

// Down the tree (cancel, wrap-up, answers, usage), through the registry of what its runs dispatched.

async function onCancel(this: Definition, runId: string, reason: string): Promise<void> {
  await this[PARTS].treeHooks().onCancel?.(runId, reason);
}

function onBudgetExhausted(this: Definition, runId: string, reason: AgentToolBudgetExhaustion): void {
  this[PARTS].treeHooks().onBudgetExhausted?.(runId, reason);
}

async function onApprovalAnswer(
  this: Definition,
  runId: string,
  approvalId: string,
  answer: AgentToolApprovalAnswer,
): Promise<boolean> {
  return (await this[PARTS].treeHooks().onApprovalAnswer?.(runId, approvalId, answer)) ?? false;
}

async function dispatchedUsage(
  this: Definition,
  runId: string,
): Promise<{ children: Array<[string, AgentToolUsage]>; dispatched: number }> {
  return (await this[PARTS].treeHooks().dispatchedUsage?.(runId)) ?? { children: [], dispatched: 0 };
}
