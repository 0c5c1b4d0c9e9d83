// @agent-tools/recovery: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/recovery/internal": not API.

// recovery
export type { RecoveryReport } from "./recover-agent-tool-runs.js";
export { recoverAgentToolRuns } from "./recover-agent-tool-runs.js";
// options and policy
export type { RecoverAgentToolRunsOptions } from "./recovery-options.js";
