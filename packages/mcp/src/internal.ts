// "@agent-tools/mcp/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/mcp".
export {
  APPROVAL_FORM_SCHEMA,
  APPROVAL_META_KEY,
  approvalAnswerOf,
  approvalElicitation,
  approvalQuestion,
} from "./approval-elicitation.js";
export type { McpAgentTool } from "./mcp-session.js";
export {
  DEFAULT_MCP_ELICITATION_TIMEOUT_MS,
  DEFAULT_MCP_MAX_SESSIONS,
  DEFAULT_MCP_POLL_INTERVAL_MS,
  type McpTaskEndpointOptions,
} from "./mcp-task-endpoint.js";
export { ApprovalFold } from "./pending-approvals.js";
export { PROGRESS_META_KEY, progressOfChunk } from "./progress-notification.js";
export { MCP_CANCEL_REASON, RunTaskStore } from "./run-task-store.js";
export {
  MCP_TASK_META_KEY,
  MCP_TASK_PAGE_SIZE,
  type McpTaskState,
  RunTasks,
  type RunTasksOptions,
  type TaskStartRefusal,
} from "./run-tasks.js";
export { isoTime, type TaskRun, taskOfRun } from "./task-of-run.js";
export { TaskSideChannel } from "./task-side-channel.js";
export { toolResultOf } from "./tool-result.js";
