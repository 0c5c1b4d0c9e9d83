import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { ErrorCode, McpError, type Result, type Task } from "@modelcontextprotocol/sdk/types.js";
import type { RunTasks } from "./run-tasks.js";

/** What `tasks/cancel` tells the run (and every client of the parent) it was cancelled for. */
export const MCP_CANCEL_REASON = "Cancelled by the MCP client";

/**
 * The MCP SDK's `TaskStore` over a parent's runs (`RunTasks`): `tasks/get`, `tasks/list` and `tasks/result` read the
 * runs, `tasks/cancel` cancels one. Tasks are the parent's, not a session's (any authorized client may follow one by
 * id, as any may read the parent's runs), so every method ignores the session. A task is only ever created by
 * calling a tool, and its result is its run's: the store writes neither.
 */
export class RunTaskStore implements TaskStore {
  readonly #tasks: RunTasks;

  constructor(tasks: RunTasks) {
    this.#tasks = tasks;
  }

  createTask(): Promise<Task> {
    return Promise.reject(new McpError(ErrorCode.InvalidRequest, "A task is created by calling a tool as a task"));
  }

  getTask(taskId: string): Promise<Task | null> {
    return this.#tasks.task(taskId);
  }

  storeTaskResult(): Promise<void> {
    return Promise.reject(new McpError(ErrorCode.InvalidRequest, "A task's result is its run's"));
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const result = await this.#tasks.result(taskId);
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} has no result yet`);
    return result;
  }

  /** `cancelled` (what `tasks/cancel` records) cancels the run; any other status is the run's own to reach. */
  async updateTaskStatus(taskId: string, status: Task["status"]): Promise<void> {
    if (status === "cancelled") await this.#tasks.cancel(taskId, MCP_CANCEL_REASON);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    return this.#tasks.list(cursor);
  }
}
