import type {
  AgentToolEndCause,
  AgentToolInterruptedReason,
  AgentToolTraceContext,
  AgentToolUsage,
  DispatchRejection,
  RunStatus,
  TerminalRunStatus,
} from "../protocol/index.js";

export type { DispatchRejection } from "../protocol/index.js";

/**
 * Typed events core emits through its `RunEventSink`. Payloads carry ids and typed fields, never inputs,
 * outputs or prose in a typed field. `at` is the server's time.
 */
export type CoreRunEvent =
  | {
      type: "agent_tool:run:dispatch";
      runId: string;
      agentType: string;
      parentToolCallId?: string;
      detached: boolean;
      /** The trace context kept on the run's row, when one was set. */
      trace?: AgentToolTraceContext;
      at: number;
    }
  | { type: "agent_tool:run:start"; runId: string; agentType: string; at: number }
  | { type: "agent_tool:run:rejected"; runId: string; agentType: string; rejection: DispatchRejection; at: number }
  | {
      type: "agent_tool:run:finish";
      runId: string;
      agentType: string;
      status: TerminalRunStatus;
      reason?: AgentToolInterruptedReason;
      /** Why the run ended (absent only for a run cleared while live). */
      cause?: AgentToolEndCause;
      previousStatus: RunStatus;
      durationMs: number;
      /** What the run and its subtree spent, when it reported it (tokens, cost, runs). */
      usage?: AgentToolUsage;
      at: number;
    }
  | {
      type: "agent_tool:run:reattach";
      runId: string;
      agentType: string;
      afterSequence: number;
      /** When the run was dispatched (its row's `startedAt`, epoch ms). */
      startedAt: number;
      /** The trace context kept on the run's row, when one was set. */
      trace?: AgentToolTraceContext;
      at: number;
    }
  | { type: "agent_tool:hook:error"; hook: string; runId: string; agentType: string; errorName: string; at: number }
  | {
      type: "agent_tool:replay";
      runs: number;
      frames: number;
      cleared: number;
      withCursors: boolean;
      /** A paged replay (a page of the retained runs, SPEC §6). */
      paged?: true;
      at: number;
    }
  | { type: "agent_tool:clear"; runIds: string[]; at: number }
  | {
      type: "agent_tool:run:progress";
      runId: string;
      agentType: string;
      fraction?: number;
      phase?: string;
      milestone?: string;
      /** The milestone's log sequence (milestones only). */
      sequence?: number;
      at: number;
    }
  | {
      type: "agent_tool:child:turn:start";
      runId: string;
      agentType: string;
      resumed: boolean;
      /** The trace context the parent sent with the run, when one was. */
      trace?: AgentToolTraceContext;
      at: number;
    }
  | {
      type: "agent_tool:child:recover";
      runId: string;
      agentType: string;
      attempt: number;
      outcome: "resumed" | "gave-up";
      at: number;
    }
  | {
      type: "agent_tool:child:turn:finish";
      runId: string;
      agentType: string;
      status: "completed" | "error" | "aborted";
      entries: number;
      at: number;
    };

/** Events from extension packages (progress, detached, recovery) share the namespace and the sink. */
export type ExtensionRunEvent = { type: `agent_tool:${string}`; at: number; runId?: string; [field: string]: unknown };

export type RunEvent = CoreRunEvent | ExtensionRunEvent;
