// Budgets: what a run and its subtree spent and may still spend, and the model wrapper that enforces it.
export type { WrappableLanguageModel } from "./budgeted-model.js";
export { budgetedModel, WRAP_UP_INSTRUCTION } from "./budgeted-model.js";
export type { AgentToolCostFunction, ModelCallDecision, ModelCallUsage, RunBudgetOptions } from "./run-budget.js";
export { budgetExhaustion, RunBudget, remainingBudget } from "./run-budget.js";
