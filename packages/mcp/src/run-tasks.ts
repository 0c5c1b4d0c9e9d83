import {
  type AgentToolApproval,
  type AgentToolEventFrame,
  type AgentToolRegistry,
  type RegistryExtension,
  readApprovalChunk,
} from "@agent-tools/core-runs";
import { type AgentToolChildReference, type RunRecord, toAgentToolResult } from "@agent-tools/core-runs/internal";
import {
  type AgentToolApprovalAnswer,
  isTerminalStatus,
  type TerminalRunStatus,
} from "@agent-tools/core-runs/protocol";
import type { CallToolResult, Task } from "@modelcontextprotocol/sdk/types.js";
import { ApprovalFold } from "./pending-approvals.js";
import { taskOfRun } from "./task-of-run.js";
import { toolResultOf } from "./tool-result.js";

/** The key of the registry's `meta` a run dispatched as an MCP task keeps its tool's name under. */
export const MCP_TASK_META_KEY = "agent-tools/mcp";

/** What a task's run keeps of it: the MCP tool it was called as. */
export type McpTaskState = { tool: string };

/** How many tasks a `tasks/list` page holds. */
export const MCP_TASK_PAGE_SIZE = 50;

export type RunTasksOptions = {
  registry: AgentToolRegistry;
  /** The `pollInterval` a live task suggests, in milliseconds. */
  pollIntervalMs: number;
  /** A new task's id (its run's id). Default: `crypto.randomUUID()`. */
  generateTaskId?: () => string;
};

/** Why a call could not become a task (its input refused before any run exists, say). */
export type TaskStartRefusal = { ok: false; error: string };

/**
 * MCP tasks as runs of a parent's registry, through the registry's extension seam: a task id is a run id, a task is
 * a pure function of the run's row and the approvals its tree waits for (read from the parent's copy of its log), a
 * result is the run's result. Nothing about a task is kept but the run, so a task survives whatever the run survives,
 * and reading it never starts, resumes or re-runs a child.
 */
export class RunTasks {
  readonly #registry: AgentToolRegistry;
  readonly #extension: RegistryExtension<McpTaskState>;
  readonly #pollIntervalMs: number;
  readonly #generateTaskId: () => string;
  /** The approvals of each task's tree, folded from its log as far as it was read (in this process). */
  readonly #approvals = new Map<string, ApprovalFold>();

  constructor(options: RunTasksOptions) {
    this.#registry = options.registry;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#generateTaskId = options.generateTaskId ?? (() => crypto.randomUUID());
    this.#extension = options.registry.extension<McpTaskState>({
      key: MCP_TASK_META_KEY,
      read: (value) => {
        const tool = (value as { tool?: unknown } | null)?.tool;
        return typeof tool === "string" ? { tool } : null;
      },
    });
  }

  /**
   * Dispatch `child` with `input` as the task of tool `tool`: a run at the top of a tree of its own (no chat turn's
   * Stop or budget reaches it), driven by the registry like any other and re-attached after a restart. Resolves the
   * new task at once, or why it was refused.
   */
  async start(
    tool: string,
    child: AgentToolChildReference,
    input: unknown,
  ): Promise<{ ok: true; task: Task } | TaskStartRefusal> {
    const runId = this.#generateTaskId();
    const admitted = await this.#extension.admit(child, {
      runId,
      input,
      state: { tool },
      tree: { rootId: runId, ancestors: [] },
    });
    if (!admitted.ok) return { ok: false, error: admitted.failure.error };
    this.#approvals.set(runId, new ApprovalFold());
    return { ok: true, task: await this.#taskOf(admitted.record) };
  }

  /** The task `taskId`, or `null` when no run of this registry was dispatched as an MCP task under that id. */
  async task(taskId: string): Promise<Task | null> {
    const record = await this.#record(taskId);
    return record ? this.#taskOf(record) : null;
  }

  /** The tool result of a finished task, or `null` for an unknown or unfinished one. */
  async result(taskId: string): Promise<CallToolResult | null> {
    const record = await this.#record(taskId);
    if (!record || !isTerminalStatus(record.status)) return null;
    return toolResultOf(toAgentToolResult(record as RunRecord & { status: TerminalRunStatus }));
  }

  /** The approvals task `taskId`'s tree waits for, oldest first (none for an unknown or finished task). */
  async pending(taskId: string): Promise<AgentToolApproval[]> {
    const record = await this.#record(taskId);
    return record && !isTerminalStatus(record.status) ? this.#pendingOf(record.runId) : [];
  }

  /**
   * Cancel task `taskId` as a Stop does: the run is cancelled (its child first cancels what it dispatched, so the tree
   * ends from its leaves up) and resolves once it has ended. `false` for an unknown or finished task.
   */
  async cancel(taskId: string, reason: string): Promise<boolean> {
    const record = await this.#record(taskId);
    if (!record || isTerminalStatus(record.status)) return false;
    const cancelled = await this.#registry.cancelAgentTool(taskId, reason);
    await this.#registry.waitForAgentToolRun(taskId);
    return cancelled;
  }

  /** Answer approval `approvalId` of task `taskId`'s tree, as `POST …/approve/<runId>/<approvalId>` does. */
  answer(taskId: string, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean> {
    return this.#registry.answerApproval(taskId, approvalId, answer);
  }

  /** A page of the tasks, oldest first; `cursor` is the `nextCursor` of the page before. */
  async list(cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(start) || start < 0) throw new Error(`Unknown cursor "${cursor}"`);
    const records = (await this.#extension.listRuns()).filter((record) => this.#extension.stateOf(record) !== null);
    const page = records.slice(start, start + MCP_TASK_PAGE_SIZE);
    const tasks = await Promise.all(page.map((record) => this.#taskOf(record)));
    const next = start + page.length;
    return next < records.length ? { tasks, nextCursor: String(next) } : { tasks };
  }

  /**
   * A frame of the parent's runs, as it is broadcast: an approval of a task's tree is folded at once (before the
   * parent has written its copy of the log). Resolves whether the frame changed what a task's status is made of.
   */
  observe(frame: AgentToolEventFrame): boolean {
    const { event } = frame;
    if (event.kind === "cleared") {
      for (const runId of event.runIds) this.#approvals.delete(runId);
      return false;
    }
    const fold = this.#approvals.get(event.runId);
    if (!fold) return false;
    if (event.kind !== "chunk") return true;
    const approval = readApprovalChunk(event.body);
    if (!approval) return false;
    fold.see(approval, frame.sequence);
    return true;
  }

  async #record(taskId: string): Promise<RunRecord | null> {
    const record = await this.#extension.getRun(taskId);
    return record && this.#extension.stateOf(record) !== null ? record : null;
  }

  async #taskOf(record: RunRecord): Promise<Task> {
    const pending = isTerminalStatus(record.status) ? [] : await this.#pendingOf(record.runId);
    return taskOfRun(record, pending, this.#pollIntervalMs);
  }

  async #pendingOf(runId: string): Promise<AgentToolApproval[]> {
    let fold = this.#approvals.get(runId);
    if (!fold) {
      fold = new ApprovalFold();
      this.#approvals.set(runId, fold);
    }
    fold.add(await this.#extension.readLog(runId, { afterSequence: fold.lastSequence }));
    return fold.pending();
  }
}
