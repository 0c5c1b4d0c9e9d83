import type { UIMessage } from "ai";
import { assembleMessage } from "../agent-tool/assemble-message.js";
import { omitVoidedEntries } from "../log/voided-entry-filter.js";
import type { RunStore } from "../ports/run-store.js";
import {
  type AgentToolApproval,
  type AgentToolRunInspection,
  type ChildRunStatus,
  definedProps,
  outputMessageId,
} from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import { toInputMessage } from "./child-input-message.js";
import type { ChildConversationSnapshot } from "./child-runner-options.js";
import type { LiveRun } from "./live-run.js";

/** A run's inspection, from its row and — while it is live here — what its live run holds. @internal */
export function runInspection(record: RunRecord, live?: LiveRun): AgentToolRunInspection {
  const status: ChildRunStatus =
    record.status === "starting" || record.status === "interrupted" ? "running" : record.status;
  const waiting = waitingFor(record, live);
  return {
    runId: record.runId,
    status,
    milestones: [...(live?.milestones ?? record.milestones ?? [])],
    lastSequence: live?.log.lastSequence ?? record.lastSequence,
    startedAt: record.startedAt,
    ...definedProps({
      summary: record.summary,
      output: record.output,
      error: record.error,
      progress: record.progress,
      completedAt: record.completedAt,
      usage: record.usage,
      budgetExceeded: record.budgetExceeded,
    }),
    ...(waiting.length > 0 ? { awaitingApproval: waiting } : {}),
  };
}

/** The approvals a run waits for: those still pending in its log (its own and its descendants'), or its row's. */
function waitingFor(record: RunRecord, live: LiveRun | undefined): AgentToolApproval[] {
  if (!live) return record.status === "running" ? (record.awaitingApproval ?? []) : [];
  return live.pendingApprovals();
}

/**
 * A run's conversation and the log sequence it holds, from one read of the log (void entries left out): its input
 * as a user message, then the assistant message its log makes. @internal
 */
export async function runConversation(options: {
  store: RunStore;
  definition: AgentToolChildDefinition;
  record: RunRecord;
  live: LiveRun | undefined;
}): Promise<ChildConversationSnapshot> {
  const { store, definition, record, live } = options;
  const { runId } = record;
  const messages: UIMessage[] = [toInputMessage(record.input, runId, definition.formatAgentToolInput, definition)];
  const entries = await store.readLog(runId);
  const lastSequence = entries.at(-1)?.sequence ?? 0;
  const bodies = omitVoidedEntries(entries).map((entry) => entry.body);
  const assistant = await assembleMessage(bodies, outputMessageId(runId));
  if (assistant) messages.push(assistant);
  const current = (await store.getRun(runId)) ?? record;
  return { messages, lastSequence, run: { ...runInspection(current, live), lastSequence } };
}
