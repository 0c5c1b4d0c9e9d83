// Approvals: a child's run paused for the answers its turn waits for, answered, expired, or ended while paused.
export type { RunApprovalsHost } from "./child-approvals.js";
export {
  answerRunApproval,
  earliestApprovalDeadline,
  endPausedRun,
  expireRunApprovals,
  pauseRun,
} from "./child-approvals.js";
