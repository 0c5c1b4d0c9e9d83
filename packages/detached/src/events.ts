import type { AgentToolInterruptedReason } from "@agent-tools/core-runs";
import type { TerminalRunStatus } from "@agent-tools/core-runs/protocol";

/** How a finished detached run is delivered: a host method, a chat message, or nothing to call. */
export type DetachedDeliveryTarget = "onFinish" | "notify" | "none";

/**
 * Typed events `@agent-tools/detached` emits through the registry's sink (its extension seam), in the
 * `agent_tool:` namespace. Payloads carry ids and typed fields, never inputs, outputs or prose; `at` is server time.
 */
export type DetachedRunEvent =
  | {
      type: "agent_tool:detached:dispatch";
      runId: string;
      agentType: string;
      target: DetachedDeliveryTarget;
      maxBudgetMs: number;
      /** 0 when the no-progress budget is disabled. */
      noProgressBudgetMs: number;
      milestones: number;
      at: number;
    }
  | { type: "agent_tool:detached:rejected"; runId: string; agentType: string; at: number }
  /** A `signal` was passed to a detached dispatch: detached runs ignore it (cancel with `cancelAgentTool`). */
  | { type: "agent_tool:detached:signal_ignored"; runId: string; agentType: string; at: number }
  | {
      type: "agent_tool:detached:delivery_claimed";
      runId: string;
      agentType: string;
      status: TerminalRunStatus;
      revision: number;
      attempt: number;
      leaseUntil: number;
      at: number;
    }
  | {
      type: "agent_tool:detached:delivered";
      runId: string;
      agentType: string;
      status: TerminalRunStatus;
      revision: number;
      attempts: number;
      target: DetachedDeliveryTarget;
      at: number;
    }
  | {
      type: "agent_tool:detached:delivery_retry";
      runId: string;
      agentType: string;
      status: TerminalRunStatus;
      revision: number;
      attempts: number;
      retryAt: number;
      errorName: string;
      at: number;
    }
  | {
      type: "agent_tool:detached:delivery_failed";
      runId: string;
      agentType: string;
      status: TerminalRunStatus;
      revision: number;
      attempts: number;
      errorName: string;
      at: number;
    }
  | {
      type: "agent_tool:detached:budget_exceeded";
      runId: string;
      agentType: string;
      reason: Extract<AgentToolInterruptedReason, "budget-exceeded" | "no-progress">;
      /** The budget that ran out: `maxBudgetMs`, or `noProgressBudgetMs` for `no-progress`. */
      budgetMs: number;
      elapsedMs: number;
      /** True when the child was torn down (`budget-exceeded`, when the cancel reached it). */
      tornDown: boolean;
      at: number;
    }
  | {
      type: "agent_tool:detached:watch_ended";
      runId: string;
      agentType: string;
      reason: AgentToolInterruptedReason;
      /** False when the child could not be reached: it may still run (the run stays `childStillRunning: true`). */
      tornDown: boolean;
      at: number;
    }
  | {
      type: "agent_tool:detached:milestone";
      runId: string;
      agentType: string;
      name: string;
      mode: "narrate" | "react";
      /** False when `formatDetachedMilestone` returned an empty string. */
      told: boolean;
      at: number;
    };

/** Where events go (the extension seam's `emit`). */
export type DetachedEventEmitter = (event: DetachedRunEvent) => void;
