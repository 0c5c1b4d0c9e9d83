import type { QueuedMessage, TaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";

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
