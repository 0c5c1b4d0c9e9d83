import { DurableObject } from "cloudflare:workers";
import type { ChatTurnContext } from "@agent-tools/chat";
import type {
  AgentToolLifecycleResult,
  AgentToolProgressSnapshot,
  AgentToolRunInfo,
  AgentToolTurnStream,
} from "@agent-tools/core-runs";
import type { AgentToolRegistryOptions, RetainLogsPolicy } from "@agent-tools/core-runs/internal";
import type { AgentToolMilestone } from "@agent-tools/core-runs/protocol";
import type { DetachedRunsOptions } from "@agent-tools/detached/internal";
import type { RecoverAgentToolRunsOptions } from "@agent-tools/recovery";
import type { ToolSet } from "ai";
import type { ChildNamespace } from "../adapters/durable-object-child-transport.js";
import type { AgUiOptions } from "../ag-ui/ag-ui-streams.js";
import type { ParentEventSocketOptions } from "./event-sockets.js";
import type { ParentLifecycleHooks } from "./lifecycle-hooks.js";
import type { AgentToolParentMcp } from "./mcp-route.js";
import type { ParentChatOptions } from "./parent-chat.js";
import type { AgentToolParentRoute } from "./parent-routes.js";
import { RUN_TOKEN_SECRET_BINDING } from "./run-read-tokens.js";

/** While the parent has work in flight, its alarm is never further away than this (10 s). */
export const DEFAULT_PARENT_WAKE_INTERVAL_MS = 10_000;

/**
 * What a parent agent says about itself: the members an `AgentToolParent` subclass overrides (its children, how it
 * answers, its tools, authorization, options and lifecycle hooks), with their defaults. `AgentToolParent` is what
 * it does with them.
 */
export abstract class AgentToolParentDefinition<TEnv = unknown>
  extends DurableObject<TEnv>
  implements ParentLifecycleHooks
{
  /**
   * Static options (`static detachedMaxBudgetMs = 2 * 60 * 60_000;` on the subclass): defaults of
   * detached runs' budgets and start-up recovery's waits, see `AgentToolParentStaticOptions`. What
   * `detachedOptions()` and `recoveryOptions()` return wins over them.
   */
  static detachedMaxBudgetMs?: number;
  static detachedNoProgressBudgetMs?: number;
  static agentToolReattachNoProgressTimeoutMs?: number;
  static agentToolReattachMaxWindowMs?: number;
  static agentToolInspectTimeoutMs?: number;
  static agentToolRecoveryDeadlineMs?: number;

  /** While work is in flight, the alarm wakes the parent at least this often, so a crash is followed by a start-up. */
  protected readonly agentToolWakeIntervalMs: number = DEFAULT_PARENT_WAKE_INTERVAL_MS;

  /** The child agent types this parent runs, by agentType (a class's `static agentType`): their namespaces. */
  protected abstract children(): Record<string, ChildNamespace>;
  /**
   * Answer one turn of the conversation: a stream of `UIMessageChunk`s (e.g. `toUIMessageStream` of `streamText`).
   * Optional: a parent without it has no conversation (only workflow runs, from its own methods); it answers a chat
   * send with an `error` frame saying so, and `sendChatMessage` rejects.
   */
  protected onChatMessage?(context: ChatTurnContext): AgentToolTurnStream | Promise<AgentToolTurnStream>;
  /** The conversation's tools: a turn gets them as `context.tools`, each started once its call is stored. */
  protected getTools(): ToolSet | undefined {
    return undefined;
  }
  /** Refuse a request by returning a response (e.g. 401); every route and upgrade but a drill-in with a run token. */
  protected authorize(
    _request: Request,
    _route: AgentToolParentRoute,
  ): Response | undefined | Promise<Response | undefined> {
    return undefined;
  }
  /** A request to a path the parent does not serve itself (after `authorize`). Default: 404. */
  protected onRequest(_request: Request, _route: AgentToolParentRoute): Response | Promise<Response> {
    return new Response("Not found", { status: 404 });
  }
  /** Options of the registry (cap, input limit, retry policy, …). */
  protected registryOptions(): Partial<Omit<AgentToolRegistryOptions, "store" | "transport" | "hooks" | "broadcast">> {
    return {};
  }
  /** Options of start-up recovery (re-attach windows, deadlines); they win over the class's static options. */
  protected recoveryOptions(): RecoverAgentToolRunsOptions {
    return {};
  }
  /** Options of detached runs (budgets, delivery, formatting); they win over the class's static options. */
  protected detachedOptions(): Partial<
    Omit<DetachedRunsOptions<object>, "registry" | "host" | "scheduler" | "chatHost">
  > {
    return {};
  }
  /**
   * How long finished runs keep their full logs (SPEC §10): past `maxAgeMs` after it finished, or past the newest
   * `maxRuns` finished runs, a run's log is compacted to its final message, milestones and result, in small batches
   * from the alarm. Replay shows clients the same runs. Default: none (full logs are kept until cleared).
   */
  protected retainLogs(): RetainLogsPolicy | undefined {
    return undefined;
  }
  /**
   * The agent tools this parent serves to MCP clients at `…/mcp` (Streamable HTTP, MCP Tasks: `@agent-tools/mcp`), by
   * MCP tool name — `{ tools: { research: { child: Researcher, description, inputSchema } } }`, the same child and
   * options as its `agentTool` — and the endpoint's options. Default: none (the route answers 404). Each request is
   * authorized by `authorize` first.
   */
  protected mcp(): AgentToolParentMcp | undefined {
    return undefined;
  }
  /**
   * Options of the AG-UI streams (`GET …/ag-ui`): how many may be open at once (each follows every frame the parent
   * sends; the next is refused with 429), their heartbeat, and how long one is kept at most.
   */
  protected agUiOptions(): AgUiOptions {
    return {};
  }
  /** Options of the conversation: size and queue limits, write interval, resume attempts. */
  protected chatOptions(): ParentChatOptions {
    return {};
  }
  /**
   * What the event sockets' page requests (paged replay) may cost: requests a socket may make at once and how fast
   * they come back (past them, a request is refused with when to ask again), and the bytes one page of older runs
   * may send. Defaults: 10, one a second, 1 MB.
   */
  protected eventSocketOptions(): ParentEventSocketOptions {
    return {};
  }
  /** The secret run read tokens are signed with (default: the `AGENT_TOOLS_RUN_TOKEN_SECRET` binding). */
  protected runTokenSecret(): string | undefined {
    const value = (this.env as Record<string, unknown> | undefined)?.[RUN_TOKEN_SECRET_BINDING];
    return typeof value === "string" && value !== "" ? value : undefined;
  }

  /** Lifecycle hooks (the seed's names): override to observe runs. Each is isolated: a throwing hook stops nothing. */
  onAgentToolStart?(run: AgentToolRunInfo): void | Promise<void>;
  onAgentToolFinish?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): void | Promise<void>;
  onProgress?(run: AgentToolRunInfo, snapshot: AgentToolProgressSnapshot): void | Promise<void>;
  /** The text told to the chat when a detached run with `notify` finishes (or reaches a milestone); "" sends nothing. */
  formatDetachedCompletion?(run: AgentToolRunInfo, result: AgentToolLifecycleResult): string;
  formatDetachedMilestone?(run: AgentToolRunInfo, milestone: AgentToolMilestone): string;
}
