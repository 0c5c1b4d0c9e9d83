import type { AgentToolApproval } from "@agent-tools/core-runs";
import type { AgentToolChildReference } from "@agent-tools/core-runs/internal";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AnySchema, ZodRawShapeCompat } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import {
  ErrorCode,
  McpError,
  type ProgressToken,
  RELATED_TASK_META_KEY,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { approvalAnswerOf, approvalElicitation } from "./approval-elicitation.js";
import { PROGRESS_META_KEY } from "./progress-notification.js";
import { RunTaskStore } from "./run-task-store.js";
import type { RunTasks } from "./run-tasks.js";
import { TaskProgress } from "./task-progress.js";
import { TaskSideChannel } from "./task-side-channel.js";

/** An agent tool served as an MCP tool: the child it runs, and what MCP clients see of it. */
export type McpAgentTool = {
  child: AgentToolChildReference;
  description: string;
  /** The arguments, as a zod object (checked before any run exists; they become the child's input). */
  inputSchema: AnySchema | ZodRawShapeCompat;
  title?: string;
};

export type McpSessionOptions = {
  tasks: RunTasks;
  tools: Readonly<Record<string, McpAgentTool>>;
  serverInfo: { name: string; version: string };
  /** How often a blocked `tasks/result` looks at its task again (the tasks' suggested `pollInterval`). */
  pollIntervalMs: number;
  /** How long an elicitation waits for its answer before it is withdrawn (and asked again on the next `tasks/result`). */
  elicitationTimeoutMs: number;
};

/**
 * One MCP session: an SDK `McpServer` whose tools run agent tools as tasks (`taskSupport: "optional"`: a client
 * without tasks gets the result when the run ends), with the parent's runs as its task store. It remembers which tasks
 * it created and their progress tokens, to send their progress and status to its client while it is connected.
 * @internal
 */
export class McpSession {
  readonly server: McpServer;
  readonly #tasks: RunTasks;
  readonly #elicitationTimeoutMs: number;
  /** The tasks this session created: their progress token (if the call gave one), what was told of their progress. */
  readonly #created = new Map<
    string,
    { token: ProgressToken | undefined; sent: number; told: TaskProgress; status: string }
  >();
  /** The approvals asked of this session's client and not answered yet (their elicitations are out). */
  readonly #asked = new Set<string>();

  constructor(options: McpSessionOptions) {
    this.#tasks = options.tasks;
    this.#elicitationTimeoutMs = options.elicitationTimeoutMs;
    const sideChannel = new TaskSideChannel((taskId) => this.#askPending(taskId));
    this.server = new McpServer(options.serverInfo, {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new RunTaskStore(options.tasks),
      taskMessageQueue: sideChannel,
      defaultTaskPollInterval: options.pollIntervalMs,
      // Validates elicitation answers without code generation (none in Workers).
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    });
    for (const [name, tool] of Object.entries(options.tools)) this.#register(name, tool);
  }

  /** Whether this session created task `taskId`. */
  owns(taskId: string): boolean {
    return this.#created.has(taskId);
  }

  /**
   * Tell the client of a chunk of the run of a task this session created (on its standalone stream, if it has one
   * open), when it tells something new (`TaskProgress`): a milestone once, a progress report that changes the bar.
   * `sequence` is the chunk's place in the run's log (a durable chunk).
   */
  progress(taskId: string, body: unknown, sequence: number | undefined): void {
    const created = this.#created.get(taskId);
    if (!created || created.token === undefined) return;
    const news = created.told.news(body, sequence);
    if (!news) return;
    created.sent += 1;
    const params = {
      progressToken: created.token,
      progress: created.sent,
      message: news.message,
      _meta: { [RELATED_TASK_META_KEY]: { taskId }, [PROGRESS_META_KEY]: news.snapshot },
    };
    this.server.server.notification({ method: "notifications/progress", params }).catch(() => undefined);
  }

  /** Tell the client a task it created changed status (`notifications/tasks/status`), once per status. */
  status(task: Task): void {
    const created = this.#created.get(task.taskId);
    if (!created || created.status === task.status) return;
    created.status = task.status;
    this.server.server.notification({ method: "notifications/tasks/status", params: task }).catch(() => undefined);
  }

  #register(name: string, tool: McpAgentTool): void {
    const task = async (args: unknown, extra: { _meta?: { progressToken?: ProgressToken } }) => {
      const started = await this.#tasks.start(name, tool.child, args);
      if (!started.ok) throw new McpError(ErrorCode.InvalidParams, started.error);
      const { taskId, status } = started.task;
      this.#created.set(taskId, { token: extra._meta?.progressToken, sent: 0, told: new TaskProgress(), status });
      return { task: started.task };
    };
    const handler = {
      createTask: task,
      getTask: async (_args: unknown, extra: { taskId: string }) => {
        const found = await this.#tasks.task(extra.taskId);
        if (!found) throw new McpError(ErrorCode.InvalidParams, `No task ${extra.taskId}`);
        return found;
      },
      getTaskResult: async (_args: unknown, extra: { taskId: string }) => {
        const result = await this.#tasks.result(extra.taskId);
        if (!result) throw new McpError(ErrorCode.InvalidParams, `Task ${extra.taskId} has no result yet`);
        return result;
      },
    };
    this.server.experimental.tasks.registerToolTask(
      name,
      {
        description: tool.description,
        inputSchema: tool.inputSchema,
        execution: { taskSupport: "optional" },
        ...(tool.title !== undefined ? { title: tool.title } : {}),
      },
      handler as never,
    );
  }

  /** Queue an elicitation for each approval task `taskId` waits for that this session's client was not asked yet. */
  async #askPending(taskId: string): Promise<void> {
    if (!this.server.server.getClientCapabilities()?.elicitation?.form) return;
    for (const approval of await this.#tasks.pending(taskId)) {
      if (this.#asked.has(approval.approvalId)) continue;
      this.#asked.add(approval.approvalId);
      void this.#ask(taskId, approval);
    }
  }

  async #ask(taskId: string, approval: AgentToolApproval): Promise<void> {
    try {
      const result = await this.server.server.elicitInput(approvalElicitation(approval), {
        relatedTask: { taskId },
        timeout: this.#elicitationTimeoutMs,
      });
      const answer = approvalAnswerOf(result);
      if (answer) await this.#tasks.answer(taskId, approval.approvalId, answer);
    } catch {
      // Withdrawn (timed out, the task ended, the session closed): asked again on the next `tasks/result`.
      this.#asked.delete(approval.approvalId);
    }
  }
}
