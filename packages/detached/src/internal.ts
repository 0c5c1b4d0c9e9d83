// "@agent-tools/detached/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/detached".
// budgets (pure)
export type { BudgetDecision, BudgetSnapshot, DetachedGiveUpReason, ResolvedBudgets } from "./budget.js";
export {
  DEFAULT_DETACHED_MAX_BUDGET_MS,
  DEFAULT_DETACHED_NO_PROGRESS_BUDGET_MS,
  evaluateBudget,
  noProgressDeadline,
  resolveBudgets,
  watchDeadline,
} from "./budget.js";
export type {
  DetachedFinishMethod,
  DetachedOptions,
  DetachedRuns,
  DetachedRunsOptions,
  RunAgentToolDetachedOptions,
} from "./detach-run.js";
export { DEFAULT_WATCH_AFTER_GIVE_UP_MS, DEFAULT_WATCH_INTERVAL_MS } from "./detach-run.js";
// stored state and the delivery ledger
export type { DeliveryClaim, DetachedMilestoneMode, DetachedRunState } from "./detached-state.js";
export { DETACHED_META_KEY } from "./detached-state.js";
export type { DetachedDeliveryTarget, DetachedRunEvent } from "./events.js";
export type { DeliveryStep, DeliveryStepOptions } from "./finish-delivery.js";
export {
  DEFAULT_DELIVERY_LEASE_MS,
  DEFAULT_MAX_DELIVERY_ATTEMPTS,
  deliveryTarget,
  nextDeliveryStep,
  retryDelayMs,
} from "./finish-delivery.js";
// chat hosts
export type { DetachedMilestonesOption, FormatDetachedMilestone } from "./milestones.js";
export { defaultFormatDetachedMilestone, milestoneMessageId } from "./milestones.js";
export type { DetachedNotifyOption, FormatDetachedCompletion } from "./notify.js";
export { completionMessageId, DEFAULT_DETACHED_SOURCE, defaultFormatDetachedCompletion } from "./notify.js";
// reconcile and events
export type { TickReport } from "./reconcile.js";
