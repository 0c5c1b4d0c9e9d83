// The turn engine: one model turn on a step journal, for a conversation turn and a child run alike (see
// docs/decisions/2026-12-04-turn-engine.md).
export type { DecidedCallOptions } from "./decided-call.js";
export { callsNeedingApproval, noToolText, runDecidedCall } from "./decided-call.js";
export {
  AGENT_OUTPUT_PART,
  isJournalFact,
  outputChunk,
  readOutputChunk,
  ridesAlong,
  waitsForNext,
} from "./journal-facts.js";
export type { JournalEntry, JournaledApproval, JournaledCall, JournalFold } from "./journal-fold.js";
export { emptyFold, foldEntry, foldJournal } from "./journal-fold.js";
export type { ToolJournalGate } from "./journaled-tools.js";
export { journalTools } from "./journaled-tools.js";
export type { ResumePlan } from "./resume-plan.js";
export { planResume, undecidedCalls } from "./resume-plan.js";
export type { RunTurnOptions, TurnOutcome } from "./run-turn.js";
export { NOT_RUN_TEXT, runTurn } from "./run-turn.js";
export type { DispatchedFrom, TreeBindingOptions, TreeNode } from "./tree-binding.js";
export { bindChildRuns, bindConversationTurns, TreeBinding, turnRootId } from "./tree-binding.js";
export type { TurnApprovalRequest, TurnHost, TurnStreamContext } from "./turn-host.js";
export type { TurnJournal } from "./turn-journal.js";
export { TurnRecord } from "./turn-record.js";
export type { ToolExecuteWrapper } from "./wrap-tools.js";
export { wrapToolExecutes } from "./wrap-tools.js";
