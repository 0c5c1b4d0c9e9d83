import type { AgentToolChildDefinition } from "./child-definition.js";
import type { Clock } from "./ports/clock.js";

/**
 * Cancel what run `runId` dispatched itself (`definition.onCancel`); resolves once that ended, or after `timeoutMs`
 * (never rejects): a cancelled run records its own end after this, so a tree ends from its leaves up. @internal
 */
export function cancelDescendants(
  options: { definition: AgentToolChildDefinition; clock: Clock; timeoutMs: number },
  runId: string,
  reason: string,
): Promise<void> {
  const { definition, clock } = options;
  const onCancel = definition.onCancel;
  if (!onCancel) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = clock.setTimeout(resolve, options.timeoutMs);
    const settle = () => {
      clock.clearTimeout(timer);
      resolve();
    };
    Promise.resolve()
      .then(() => onCancel.call(definition, runId, reason))
      .then(settle, settle);
  });
}
