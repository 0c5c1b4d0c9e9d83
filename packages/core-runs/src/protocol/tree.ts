// A run's place in its tree of agent runs, and the limits that tree lives within: data that travels with every
// dispatch (parent → child), is stored on the run's row on both sides, and is read by pure functions.

/** One run of a tree, as its parent addresses it. */
export type AgentToolTreeNode = { agentType: string; runId: string };

/**
 * The limits a tree of runs lives within. Set at the root, inherited by every descendant, and only ever narrowed on
 * the way down (`narrowBudget`): a child can never widen or reset what its ancestors allow.
 * - `maxTokens`: input + output tokens (the AI SDK's usage) of every model call in the subtree;
 * - `deadline`: wall time, as an epoch-ms instant (a budget of `wallTimeMs` becomes a deadline at dispatch);
 * - `maxDepth`: the deepest a run may be (the root's direct children are depth 1);
 * - `maxRuns`: runs dispatched in the subtree, all levels counted;
 * - `maxConcurrent`: runs of the subtree live at once;
 * - `maxCost`: the subtree's cost, as the root's cost function prices usage.
 */
export type AgentToolBudget = {
  maxTokens?: number;
  deadline?: number;
  maxDepth?: number;
  maxRuns?: number;
  maxConcurrent?: number;
  maxCost?: number;
};

/** The budget fields, for code that goes over all of them. */
export const AGENT_TOOL_BUDGET_FIELDS = [
  "maxTokens",
  "deadline",
  "maxDepth",
  "maxRuns",
  "maxConcurrent",
  "maxCost",
] as const satisfies ReadonlyArray<keyof AgentToolBudget>;

/**
 * Where a run sits: the tree it belongs to (`rootId`: what the tree hangs from — a parent's chat turn, or the top
 * run when code dispatched it), the runs above it (the top first; its depth is `ancestors.length + 1`), and the
 * budget it and everything below it live within (already narrowed by every ancestor).
 */
export type AgentToolTree = {
  rootId: string;
  ancestors: AgentToolTreeNode[];
  budget?: AgentToolBudget;
};

/**
 * Where a dispatcher sits, from the point of view of what it dispatches: its tree's root, its own path (the runs
 * above it and itself, when it is a run; empty for a root) and the budget left to it.
 */
export type AgentToolPosition = {
  rootId: string;
  path: AgentToolTreeNode[];
  budget?: AgentToolBudget;
};

/** How deep a run of this tree is (the root's direct children: 1). */
export function treeDepth(tree: Pick<AgentToolTree, "ancestors">): number {
  return tree.ancestors.length + 1;
}

/**
 * The tightest of two budgets, field by field: what a child may spend is at most what its parent allows, whatever
 * the child asks. `undefined` for no limit at all.
 */
export function narrowBudget(
  allowed: AgentToolBudget | undefined,
  requested: AgentToolBudget | undefined,
): AgentToolBudget | undefined {
  if (allowed === undefined && requested === undefined) return undefined;
  const budget: AgentToolBudget = {};
  for (const field of AGENT_TOOL_BUDGET_FIELDS) {
    const limits = [allowed?.[field], requested?.[field]].filter(isLimit);
    if (limits.length > 0) budget[field] = Math.min(...limits);
  }
  return budget;
}

/** The tree of a run dispatched from `position`, asking for `requested` (narrowed, never widened). */
export function dispatchTree(position: AgentToolPosition, requested?: AgentToolBudget): AgentToolTree {
  const budget = narrowBudget(position.budget, requested);
  return {
    rootId: position.rootId,
    ancestors: [...position.path],
    ...(budget !== undefined ? { budget } : {}),
  };
}

/** Where a run of `tree` sits when it dispatches runs itself. */
export function positionOf(tree: AgentToolTree, self: AgentToolTreeNode): AgentToolPosition {
  return {
    rootId: tree.rootId,
    path: [...tree.ancestors, { agentType: self.agentType, runId: self.runId }],
    ...(tree.budget !== undefined ? { budget: tree.budget } : {}),
  };
}

/** A tree read from the wire or a row: `null` for anything that is not one. Never throws. */
export function readAgentToolTree(value: unknown): AgentToolTree | null {
  if (typeof value !== "object" || value === null) return null;
  const { rootId, ancestors, budget } = value as Record<string, unknown>;
  if (typeof rootId !== "string" || !Array.isArray(ancestors)) return null;
  const nodes: AgentToolTreeNode[] = [];
  for (const node of ancestors) {
    const { agentType, runId } = (node ?? {}) as Record<string, unknown>;
    if (typeof agentType !== "string" || typeof runId !== "string") return null;
    nodes.push({ agentType, runId });
  }
  const readBudget = readAgentToolBudget(budget);
  return { rootId, ancestors: nodes, ...(readBudget !== undefined ? { budget: readBudget } : {}) };
}

/** A budget read from the wire: only the known fields holding non-negative numbers. */
export function readAgentToolBudget(value: unknown): AgentToolBudget | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const budget: AgentToolBudget = {};
  for (const field of AGENT_TOOL_BUDGET_FIELDS) {
    const limit = (value as Record<string, unknown>)[field];
    if (isLimit(limit)) budget[field] = limit;
  }
  return budget;
}

function isLimit(value: unknown): value is number {
  return typeof value === "number" && !Number.isNaN(value) && value >= 0;
}
