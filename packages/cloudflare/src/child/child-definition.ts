import { DurableObject } from "cloudflare:workers";
import {
  type AgentToolOutputContext,
  type AgentToolSummaryContext,
  type AgentToolTraceContext,
  type AgentToolTraceRequest,
  type AgentToolTurnContext,
  type AgentToolTurnStream,
  DEFAULT_MAX_RECOVERY_ATTEMPTS,
  type RunRecord,
} from "@agent-tools/core-runs";
import type { ChildNamespace } from "../adapters/durable-object-child-transport.js";

/** Default `agentToolWakeIntervalMs`: while a run is live, the child's alarm wakes it at least this often (5 s). */
export const DEFAULT_CHILD_WAKE_INTERVAL_MS = 5_000;

/** Default `approvalTimeoutMs`: an approval nobody answers within 24 h is denied as expired. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1_000;

/**
 * What a child agent says about itself: the members an `AgentToolChild` subclass overrides (its turn, its tools and
 * hooks, its children, its limits), with their defaults. `AgentToolChild` is what it does with them.
 */
export abstract class AgentToolChildDefinitionBase<TEnv = unknown> extends DurableObject<TEnv> {
  /** How often, at most, the alarm wakes this child while a run is live. */
  protected readonly agentToolWakeIntervalMs: number = DEFAULT_CHILD_WAKE_INTERVAL_MS;
  /**
   * How many times a turn cut by an eviction, a deploy or a crash is resumed before its run ends `error`
   * ("interrupted before the child could finish"). Default 3; `0` never resumes a cut turn.
   */
  protected readonly maxRecoveryAttempts: number = DEFAULT_MAX_RECOVERY_ATTEMPTS;
  /**
   * How long a tool call that needs approval (the AI SDK's `needsApproval`) waits for an answer before it is denied
   * as `expired` and the turn goes on (the model is told). While it waits, the run is paused: no turn runs, nothing is
   * spent, and a restart loses nothing. Default 24 h.
   */
  protected readonly approvalTimeoutMs: number = DEFAULT_APPROVAL_TIMEOUT_MS;

  /** The child's agentType: its class's `static agentType`, else its class name. */
  get agentType(): string {
    const type = this.constructor as { agentType?: unknown; name: string };
    return typeof type.agentType === "string" && type.agentType !== "" ? type.agentType : type.name;
  }

  /**
   * Run one turn of `context.runId`: everything it yields goes into the run's durable log. Give the model
   * `context.tools` (this child's `getTools()`, journaled: each call runs only once the log holds it).
   */
  protected abstract turn(context: AgentToolTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;

  /**
   * The run's structured output, read right after its turn resolves. It takes one context object,
   * `getAgentToolOutput({ runId, input, output })`, not a positional `(runId)`: untyped code that uses
   * the context as the runId ends the run `error` naming this signature. Default: what the turn passed to `setOutput`.
   */
  protected getAgentToolOutput?(context: AgentToolOutputContext): unknown;

  /**
   * The run's summary, read after its output. It takes one context object, `getAgentToolSummary({ runId, output, text })`,
   * not a positional `(runId, output)`: untyped code with two parameters ends the run `error` naming
   * this signature. Default: the turn's assistant text, else the output as text.
   */
  protected getAgentToolSummary?(context: AgentToolSummaryContext): string;

  /**
   * Whether to resume a cut run, asked before each attempt (within `maxRecoveryAttempts`) with the run's row
   * (`recoveryAttempts` counts the attempts so far, `startedAt` when it started). `false`, or a throw, ends the run
   * `error`. Default: always.
   */
  protected shouldKeepRecovering?(run: RunRecord): boolean;

  /**
   * The agent types this child runs as tools itself (its own children), by agentType: their namespaces. Default:
   * none. With them, `this.agentTool(…)` in `getTools()` dispatches runs from the run whose turn calls the tool: each
   * run placed under it in its tree (`context.tree`), inheriting its budget, and cancelled first when it is cancelled.
   */
  protected children?(): Record<string, ChildNamespace>;

  /**
   * The W3C trace context a run this child dispatches continues (see `AgentToolRegistryOptions.traceContext`), asked
   * once per new run with `dispatcher` set to the trace context of the run whose turn dispatches. E.g.
   * `exporter.traceContext` of `@agent-tools/observability`: the run's `execute_tool` and `invoke_agent` spans open
   * under the dispatching run's. Default: none.
   */
  protected traceContext?(run: AgentToolTraceRequest): AgentToolTraceContext | null | undefined;
}
