import type { QueuedMessage, TaskMessageQueue, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
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

/**
 * One session's side channel for its tasks (the SDK's `TaskMessageQueue`): the messages the SDK queues for a task
 * (the elicitations asked for its approvals) until the client's `tasks/result` takes them. Before handing out the
 * next message it asks `askPending` to queue what the task's run waits for — so a pending approval, read from the
 * run, is asked of whoever calls `tasks/result`, after a restart too.
 */
export class TaskSideChannel implements TaskMessageQueue {
  readonly #queues = new Map<string, QueuedMessage[]>();
  readonly #askPending: (taskId: string) => Promise<void>;

  constructor(askPending: (taskId: string) => Promise<void>) {
    this.#askPending = askPending;
  }

  async enqueue(taskId: string, message: QueuedMessage, _sessionId?: string, maxSize?: number): Promise<void> {
    const queue = this.#queues.get(taskId) ?? [];
    if (maxSize !== undefined && queue.length >= maxSize) {
      throw new Error(`Task ${taskId}'s message queue is full (${maxSize})`);
    }
    queue.push(message);
    this.#queues.set(taskId, queue);
  }

  async dequeue(taskId: string): Promise<QueuedMessage | undefined> {
    if ((this.#queues.get(taskId)?.length ?? 0) === 0) await this.#askPending(taskId);
    const queue = this.#queues.get(taskId);
    const message = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(taskId);
    return message;
  }

  async dequeueAll(taskId: string): Promise<QueuedMessage[]> {
    const queue = this.#queues.get(taskId) ?? [];
    this.#queues.delete(taskId);
    return queue;
  }
}
