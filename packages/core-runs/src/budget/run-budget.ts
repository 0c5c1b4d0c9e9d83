import type { Clock } from "../ports/clock.js";
import {
  type AgentToolBudget,
  type AgentToolBudgetExhaustion,
  type AgentToolUsage,
  addUsage,
  NO_USAGE,
  usageTokens,
} from "../protocol/index.js";

/** What one model call spent, as the AI SDK reports it. */
export type ModelCallUsage = { inputTokens: number; outputTokens: number; modelId?: string; provider?: string };

/** Prices a model call (the root's cost function, for `maxCost`). */
export type AgentToolCostFunction = (usage: ModelCallUsage) => number;

/** What a run may do next with its model. */
export type ModelCallDecision = "call" | "wrap-up" | "refuse";

/**
 * Why a budget is out, as a pure function of the limits, the subtree's usage and the time: `null` while it holds.
 * A limit is reached when the usage meets it (`maxTokens: 100` is out at 100 tokens).
 */
export function budgetExhaustion(
  budget: AgentToolBudget | undefined,
  usage: AgentToolUsage,
  now: number,
): AgentToolBudgetExhaustion | null {
  if (!budget) return null;
  if (budget.maxTokens !== undefined && usageTokens(usage) >= budget.maxTokens) return "tokens";
  if (budget.maxCost !== undefined && (usage.cost ?? 0) >= budget.maxCost) return "cost";
  if (budget.deadline !== undefined && now >= budget.deadline) return "deadline";
  return null;
}

/**
 * What is left of a budget after `usage`: the limits a run dispatched now may live within (narrowed again by
 * `narrowBudget` at dispatch, so a child never gets more than this). `maxRuns` counts the runs still allowed.
 */
export function remainingBudget(
  budget: AgentToolBudget | undefined,
  usage: AgentToolUsage,
): AgentToolBudget | undefined {
  if (!budget) return undefined;
  const left: AgentToolBudget = { ...budget };
  if (budget.maxTokens !== undefined) left.maxTokens = Math.max(0, budget.maxTokens - usageTokens(usage));
  if (budget.maxCost !== undefined) left.maxCost = Math.max(0, budget.maxCost - (usage.cost ?? 0));
  if (budget.maxRuns !== undefined) left.maxRuns = Math.max(0, budget.maxRuns - usage.runs);
  return left;
}

export type RunBudgetOptions = {
  /** The limits the run and its subtree live within (its tree's budget); none: nothing is limited, usage is kept. */
  budget: AgentToolBudget | undefined;
  clock: Clock;
  /** Prices each model call for `maxCost` (usually only the root's). */
  costOf?: AgentToolCostFunction;
  /**
   * A resumed run's own share as its log last recorded it (`own` of its usage chunk: its model calls, and as `runs`
   * the runs it dispatched itself); what its dispatched runs spent comes back with `restore`.
   */
  initial?: AgentToolUsage;
  /** Told whenever the subtree's total changes. */
  onChange?: (usage: AgentToolUsage) => void;
  /** Told once, when the budget runs out (or an ancestor says to wrap up). */
  onExhausted?: (reason: AgentToolBudgetExhaustion) => void;
};

/**
 * One run's (or a chat turn's) budget as it is spent: its own model calls, the subtree totals its dispatched runs
 * report, and the runs it dispatches. Once the budget is out — by its own usage or its children's, by the clock, or
 * because an ancestor's ran out (`exhaust`) — the run gets one more model call, the wrap-up, and no other: a run
 * passes its budget by two model steps at most (the one under way when it ran out, and the wrap-up).
 */
export class RunBudget {
  readonly #options: RunBudgetOptions;
  #own: AgentToolUsage;
  readonly #children = new Map<string, AgentToolUsage>();
  #dispatched = 0;
  #exhausted: AgentToolBudgetExhaustion | null = null;
  #wrapUp: "none" | "used" = "none";

  constructor(options: RunBudgetOptions) {
    this.#options = options;
    this.#own = options.initial ?? { ...NO_USAGE };
  }

  /** The limits. */
  get budget(): AgentToolBudget | undefined {
    return this.#options.budget;
  }

  /** The run's own share: its model calls, and (as `runs`) the runs it dispatched itself. */
  own(): AgentToolUsage {
    return { ...this.#own, runs: this.#own.runs + this.#dispatched };
  }

  /**
   * A run resumed after a restart: what the runs it dispatched before spent (their stored rows), and how many it
   * dispatched. A child that reported since keeps its newer figure; the count never goes down.
   */
  restore(children: Iterable<readonly [string, AgentToolUsage]>, dispatched: number): void {
    for (const [runId, usage] of children) if (!this.#children.has(runId)) this.#children.set(runId, usage);
    this.#dispatched = Math.max(this.#dispatched, dispatched - this.#own.runs);
    this.#changed();
  }

  /** The subtree's usage so far: its own model calls, its dispatches, and every dispatched run's reported total. */
  total(): AgentToolUsage {
    const children = addUsage(...this.#children.values());
    const total = addUsage(this.#own, children);
    return { ...total, runs: total.runs + this.#dispatched };
  }

  /** Why the budget is out, or `null` while it holds. */
  exhaustion(): AgentToolBudgetExhaustion | null {
    return this.#exhausted ?? budgetExhaustion(this.#options.budget, this.total(), this.#options.clock.now());
  }

  /** What a run dispatched now may spend (see `remainingBudget`). */
  remaining(): AgentToolBudget | undefined {
    const left = remainingBudget(this.#options.budget, this.total());
    // Out: nothing is left to give (and `maxTokens` is the limit every model call checks).
    if (left && this.exhaustion() !== null) return { ...left, maxTokens: 0, maxRuns: 0 };
    return left;
  }

  /** Asked before each model call: `call`, the one `wrap-up` call once the budget is out, then `refuse`. */
  beforeModelCall(): ModelCallDecision {
    const reason = this.exhaustion();
    if (reason === null) return "call";
    this.#markExhausted(reason);
    if (this.#wrapUp === "used") return "refuse";
    this.#wrapUp = "used";
    return "wrap-up";
  }

  /** True once the wrap-up call was given. */
  get hasWrappedUp(): boolean {
    return this.#wrapUp === "used";
  }

  /** A model call ended, having spent `usage`. */
  recordModelCall(usage: ModelCallUsage): void {
    const cost = this.#options.costOf?.(usage);
    const { inputTokens, outputTokens, modelId, provider } = usage;
    this.#own = addUsage(this.#own, {
      inputTokens,
      outputTokens,
      runs: 0,
      ...(cost !== undefined ? { cost } : {}),
      ...(modelId !== undefined
        ? { models: [{ model: modelId, ...(provider !== undefined ? { provider } : {}), inputTokens, outputTokens }] }
        : {}),
    });
    this.#changed();
  }

  /** A dispatched run reported its subtree's total (the latest replaces the one before). */
  recordChild(runId: string, usage: AgentToolUsage): void {
    this.#children.set(runId, usage);
    this.#changed();
  }

  /** This run dispatched one more run. */
  recordDispatch(): void {
    this.#dispatched += 1;
    this.#changed();
  }

  /** An ancestor's budget ran out (or the parent said to wrap up): this run is out too. */
  exhaust(reason: AgentToolBudgetExhaustion): void {
    this.#markExhausted(reason);
  }

  #changed(): void {
    this.#options.onChange?.(this.total());
    const reason = this.exhaustion();
    if (reason !== null) this.#markExhausted(reason);
  }

  #markExhausted(reason: AgentToolBudgetExhaustion): void {
    if (this.#exhausted !== null) return;
    this.#exhausted = reason;
    this.#options.onExhausted?.(reason);
  }
}
