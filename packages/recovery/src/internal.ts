// "@agent-tools/recovery/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/recovery".
export type { ReattachDecision, ReattachPolicy, ReattachProgress } from "./reattach-policy.js";
export { evaluateReattach } from "./reattach-policy.js";
export type { RecoveryHandle, RecoveryRowFailure, RecoveryRowReport } from "./recover-agent-tool-runs.js";
// events
export type {
  RecoveryDoneEvent,
  RecoveryDoneFields,
  RecoveryEvent,
  RecoveryRowEvent,
  RecoveryRowFailedEvent,
  RecoveryRowFailedFields,
  RecoveryRowFields,
  RecoveryRowOutcome,
} from "./recovery-events.js";
// options and policy
export type { ResolvedRecoveryOptions } from "./recovery-options.js";
export {
  DEFAULT_AGENT_TOOL_INSPECT_TIMEOUT_MS,
  DEFAULT_AGENT_TOOL_REATTACH_MAX_WINDOW_MS,
  DEFAULT_AGENT_TOOL_REATTACH_NO_PROGRESS_TIMEOUT_MS,
  DEFAULT_AGENT_TOOL_RECOVERY_DEADLINE_MS,
  resolveRecoveryOptions,
} from "./recovery-options.js";
