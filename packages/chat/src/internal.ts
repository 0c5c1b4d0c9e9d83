// "@agent-tools/chat/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/chat".
export { FAILED_TURN_TEXT } from "@agent-tools/core-runs/protocol";
export type { ChatEngineOptions, ChatFollower, ChatTurnBudget } from "./chat-engine.js";
export {
  DEFAULT_MAX_CHAT_RESUME_ATTEMPTS,
  failedTurnText,
  INTERRUPTED_TURN_TEXT,
  STOP_REASON,
  UNSTORED_TURN_TEXT,
} from "./chat-engine.js";
// limits
export type { ChatLimitName, ChatLimits } from "./chat-limits.js";
export { DEFAULT_CHAT_LIMITS, resolveChatLimits } from "./chat-limits.js";
// the rules, as data
export type { ChatRecoveryPlan } from "./chat-recovery-plan.js";
export { planChatRecovery } from "./chat-recovery-plan.js";
export type { ChatRequestContext, ChatRequestText } from "./chat-requests.js";
export { TOO_MANY_RESUMES_TEXT } from "./chat-requests.js";
export type { GuardToolsOptions } from "./guarded-tools.js";
export { guardTools } from "./guarded-tools.js";
export type { ChatSendDecision, ChatSendRequest } from "./merge-chat-send.js";
export { mergeChatSend } from "./merge-chat-send.js";
// ports
export type { ChatTurnOrigin } from "./ports/chat-store.js";
export type { RequestBudgetOptions } from "./request-budget.js";
export { DEFAULT_CHAT_WRITE_INTERVAL_MS } from "./turn-log-writer.js";
export type { TurnEnd, TurnEvent, TurnPhase, TurnState } from "./turn-machine.js";
export { decideQueueAdmission, isTurnRunning, nextTurnState, QUEUED_TURN, STARTING_TURN } from "./turn-machine.js";
export {
  closeUnfinishedToolCalls,
  repairUnfinishedToolParts,
  STOPPED_TOOL_CALL_TEXT,
  UNFINISHED_TOOL_CALL_TEXT,
} from "./unfinished-tool-calls.js";
