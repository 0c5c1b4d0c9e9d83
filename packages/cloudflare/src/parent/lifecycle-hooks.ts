import type { AgentToolLifecycleResult, AgentToolProgressSnapshot, AgentToolRunInfo } from "@agent-tools/core-runs";
import type { AgentToolHooks } from "@agent-tools/core-runs/internal";
import type { AgentToolMilestone } from "@agent-tools/core-runs/protocol";

/** The seed's lifecycle hooks a parent subclass may define (each optional). */
export type ParentLifecycleHooks = {
  onAgentToolStart?(run: AgentToolRunInfo): void | Promise<void>;
  onAgentToolFinish?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void | Promise<void>;
  onProgress?(run: AgentToolRunInfo, snapshot: AgentToolProgressSnapshot): void | Promise<void>;
  formatDetachedCompletion?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): string;
  formatDetachedMilestone?(run: AgentToolRunInfo, milestone: AgentToolMilestone): string;
};

/**
 * The registry's hooks and the detached runs' formatters from what a parent defines: only the hooks it has, each
 * calling the parent's method (looked up at call time, so an override is always the one called).
 * @internal
 */
export function parentHookOptions(parent: ParentLifecycleHooks): {
  hooks: AgentToolHooks;
  formatters: Pick<ParentLifecycleHooks, "formatDetachedCompletion" | "formatDetachedMilestone">;
} {
  return {
    hooks: {
      ...(parent.onAgentToolStart ? { onAgentToolStart: (run) => parent.onAgentToolStart?.(run) } : {}),
      ...(parent.onAgentToolFinish
        ? { onAgentToolFinish: (run, result) => parent.onAgentToolFinish?.(run, result) }
        : {}),
      ...(parent.onProgress ? { onProgress: (run, snapshot) => parent.onProgress?.(run, snapshot) } : {}),
    },
    formatters: {
      ...(parent.formatDetachedCompletion
        ? { formatDetachedCompletion: parent.formatDetachedCompletion.bind(parent) }
        : {}),
      ...(parent.formatDetachedMilestone
        ? { formatDetachedMilestone: parent.formatDetachedMilestone.bind(parent) }
        : {}),
    },
  };
}
