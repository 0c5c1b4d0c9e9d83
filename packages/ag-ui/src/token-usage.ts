import type { TokenUsage } from "@ag-ui/core";
import type { AgentToolUsage } from "@agent-tools/core-runs/protocol";

/**
 * A usage as AG-UI's `RUN_FINISHED.usage`: one entry per model (and provider), or, when no model call named its
 * model, one entry of the totals; none when nothing was spent.
 */
export function tokenUsage(usage: AgentToolUsage | undefined): TokenUsage[] {
  if (!usage || usage.inputTokens + usage.outputTokens === 0) return [];
  const entry = (inputTokens: number, outputTokens: number) => ({
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
  });
  const models = usage.models ?? [];
  const named = models.map((model) => ({
    ...(model.provider !== undefined ? { provider: model.provider } : {}),
    model: model.model,
    ...entry(model.inputTokens, model.outputTokens),
  }));
  // Calls that named no model: their share as an entry of its own.
  const rest = entry(
    usage.inputTokens - models.reduce((sum, model) => sum + model.inputTokens, 0),
    usage.outputTokens - models.reduce((sum, model) => sum + model.outputTokens, 0),
  );
  return rest.totalTokens > 0 && rest.inputTokens >= 0 && rest.outputTokens >= 0 ? [...named, rest] : named;
}

/**
 * What was spent between two readings of one turn's usage (`before` the earlier): what an AG-UI run that continues an
 * interrupted one reports, as AG-UI asks (only the calls it made itself).
 */
export function usageSince(now: AgentToolUsage, before: AgentToolUsage | undefined): AgentToolUsage {
  if (!before) return now;
  const key = (model: { provider?: string; model: string }) => `${model.provider ?? ""}\u0000${model.model}`;
  const earlier = new Map((before.models ?? []).map((model) => [key(model), model]));
  const models = (now.models ?? []).flatMap((model) => {
    const was = earlier.get(key(model));
    const inputTokens = model.inputTokens - (was?.inputTokens ?? 0);
    const outputTokens = model.outputTokens - (was?.outputTokens ?? 0);
    return inputTokens + outputTokens > 0 ? [{ ...model, inputTokens, outputTokens }] : [];
  });
  return {
    inputTokens: Math.max(0, now.inputTokens - before.inputTokens),
    outputTokens: Math.max(0, now.outputTokens - before.outputTokens),
    runs: Math.max(0, now.runs - before.runs),
    ...(models.length > 0 ? { models } : {}),
  };
}
