import type { UIMessageChunk } from "ai";

/**
 * What a run and everything below it spent so far: model tokens (the AI SDK's usage of every model call), the cost
 * when a cost function priced them, and the runs dispatched below it.
 */
export type AgentToolUsage = {
  inputTokens: number;
  outputTokens: number;
  /** The runs dispatched in the subtree, every level counted (not the run itself). */
  runs: number;
  /** When the tree's root prices usage (`maxCost` budgets). */
  cost?: number;
  /**
   * The same tokens by model (and provider, when known), for the model calls whose model said who it is: what an
   * AG-UI `RUN_FINISHED` reports as its `usage`. Absent when no call named its model.
   */
  models?: AgentToolModelUsage[];
};

/**
 * What the calls of one model spent (see `AgentToolUsage.models`).
 *
 * @experimental New API: it may change without a major version.
 */
export type AgentToolModelUsage = { model: string; provider?: string; inputTokens: number; outputTokens: number };

/** Why a budget ran out. */
export type AgentToolBudgetExhaustion = "tokens" | "cost" | "deadline" | "runs";

/**
 * The data part a run's usage so far travels in, in its durable log: one chunk after each change, holding the whole
 * subtree's total (the latest wins), so a parent, a client and a replay all read the same figure.
 */
export const AGENT_USAGE_PART = "data-agent-usage";

/** No usage. */
export const NO_USAGE: Readonly<AgentToolUsage> = Object.freeze({ inputTokens: 0, outputTokens: 0, runs: 0 });

/** The sum of usages (cost only when one of them has it; by model, each model's calls summed). */
export function addUsage(...usages: ReadonlyArray<AgentToolUsage | undefined>): AgentToolUsage {
  let inputTokens = 0;
  let outputTokens = 0;
  let runs = 0;
  let cost: number | undefined;
  const models = new Map<string, AgentToolModelUsage>();
  for (const usage of usages) {
    if (!usage) continue;
    inputTokens += usage.inputTokens;
    outputTokens += usage.outputTokens;
    runs += usage.runs;
    if (usage.cost !== undefined) cost = (cost ?? 0) + usage.cost;
    for (const model of usage.models ?? []) {
      const key = `${model.provider ?? ""}\u0000${model.model}`;
      const sum = models.get(key);
      models.set(
        key,
        sum
          ? {
              ...sum,
              inputTokens: sum.inputTokens + model.inputTokens,
              outputTokens: sum.outputTokens + model.outputTokens,
            }
          : { ...model },
      );
    }
  }
  return {
    inputTokens,
    outputTokens,
    runs,
    ...(cost !== undefined ? { cost } : {}),
    ...(models.size > 0 ? { models: [...models.values()] } : {}),
  };
}

/** The tokens a usage counts against `maxTokens`: input and output. */
export function usageTokens(usage: AgentToolUsage): number {
  return usage.inputTokens + usage.outputTokens;
}

/**
 * The chunk that records a run's usage so far. It has a fixed id, so the AI SDK's assembly keeps one usage part in the
 * run's message (the latest), not one per model call. `own` (optional) is the run's own share — its model calls, and
 * as `runs` the runs it dispatched itself — from which a run resumed after a restart goes on (what its dispatched
 * runs spent is read again from their rows).
 */
export function usageChunk(usage: AgentToolUsage, own?: AgentToolUsage): UIMessageChunk {
  return { type: AGENT_USAGE_PART, id: "usage", data: own ? { ...usage, own } : usage } as UIMessageChunk;
}

/** A `data-agent-usage` chunk's `own` share (see `usageChunk`), or `null` when it has none. Never throws. */
export function readOwnUsage(body: unknown): AgentToolUsage | null {
  if (readUsageChunk(body) === null) return null;
  return readUsageChunk({ type: AGENT_USAGE_PART, data: (body as { data: { own?: unknown } }).data.own });
}

/** The usage a `data-agent-usage` chunk holds, or `null` for any other chunk (or a malformed one). Never throws. */
export function readUsageChunk(body: unknown): AgentToolUsage | null {
  if (typeof body !== "object" || body === null || (body as { type?: unknown }).type !== AGENT_USAGE_PART) return null;
  const data = (body as { data?: unknown }).data;
  if (typeof data !== "object" || data === null) return null;
  const { inputTokens, outputTokens, runs, cost, models } = data as Record<string, unknown>;
  if (!isCount(inputTokens) || !isCount(outputTokens) || !isCount(runs)) return null;
  const byModel = Array.isArray(models) ? models.flatMap(readModelUsage) : [];
  return {
    inputTokens,
    outputTokens,
    runs,
    ...(isCount(cost) ? { cost } : {}),
    ...(byModel.length > 0 ? { models: byModel } : {}),
  };
}

/** One entry of `AgentToolUsage.models` (none for a malformed one). */
function readModelUsage(value: unknown): AgentToolModelUsage[] {
  if (typeof value !== "object" || value === null) return [];
  const { model, provider, inputTokens, outputTokens } = value as Record<string, unknown>;
  if (typeof model !== "string" || !isCount(inputTokens) || !isCount(outputTokens)) return [];
  return [{ model, ...(typeof provider === "string" ? { provider } : {}), inputTokens, outputTokens }];
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}
