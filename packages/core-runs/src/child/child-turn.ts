import { assembleTurnMessage } from "../agent-tool/assemble-message.js";
import { errorMessage } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import { type AgentToolRunInspection, approvalChunk, type ChildRunStatus, type JsonValue } from "../protocol/index.js";
import type { RunRecord, RunRecordPatch } from "../registry/run-record.js";
import type { JournalEntry, JournaledCall, JournalFold } from "../turn/journal-fold.js";
import { runTurn } from "../turn/run-turn.js";
import type { AgentToolChildDefinition, AgentToolTurnContext } from "./child-definition.js";
import { toInputMessage } from "./child-input-message.js";
import { ChildRunJournal } from "./child-journal.js";
import { readChildTurnResult } from "./child-result-hooks.js";
import type { LiveRun } from "./live-run.js";

/** What executing a turn needs from its runner. */
export type ChildTurnHost = {
  readonly definition: AgentToolChildDefinition;
  readonly store: RunStore;
  readonly clock: Clock;
  readonly agentType: string;
  emit: RunEventSink["emit"];
  appendChunk: AgentToolTurnContext["appendChunk"];
  publishEphemeral: AgentToolTurnContext["publishEphemeral"];
  inspection(record: RunRecord): AgentToolRunInspection;
  /** The turn is over and its terminal recorded (or it did nothing): the run is no longer live here. */
  ended(): void;
  /** The turn waits for answers to approvals (journaled): the run pauses until they are answered. */
  pause(record: RunRecord, waiting: JournaledCall[], fold: JournalFold): Promise<void>;
  /** The runner's `yieldToEventLoop` (none: the turn reads its stream without letting the host's loop turn). */
  yieldToEventLoop?: () => Promise<void>;
  /** A cut turn's resume attempt, counted before it does any work; `false`: the run may not go on (it ended). */
  claim?: () => Promise<boolean>;
};

/** How a child turn starts: whether it goes on from the run's log, and the log's entries when read already. */
export type ChildTurnStart = {
  resumed: boolean;
  entries?: readonly JournalEntry[];
  /**
   * Told once the turn has done what it must before anyone reads the run again: a cut turn's attempt counted and its
   * cut voided (or the run paused, or ended).
   */
  ready?: () => void;
};

/**
 * Execute one turn of a run on the turn engine (`runTurn`) with the run's log as its journal: every durable chunk the
 * turn yields goes into the log (written per burst, facts at once), transient ones are published; then the run pauses
 * (approvals to answer) or records its terminal (`completed` with its output and summary, or `error` / `aborted` with
 * why) and delivers it to live tails. A turn that goes on from the log (a cut turn, an approval answered) goes through
 * the same function: the engine finishes what the log holds before its model goes on.
 * @internal
 */
export async function runChildTurn(
  host: ChildTurnHost,
  record: RunRecord,
  live: LiveRun,
  start: ChildTurnStart,
): Promise<void> {
  const { runId } = record;
  const { clock, definition } = host;
  const signal = live.controller.signal;
  const log = live.log;
  let signalled = false;
  const ready = () => {
    if (signalled) return;
    signalled = true;
    start.ready?.();
  };
  host.emit({
    type: "agent_tool:child:turn:start",
    runId,
    agentType: host.agentType,
    resumed: start.resumed,
    at: clock.now(),
    ...(record.trace !== undefined ? { trace: record.trace } : {}),
  });
  // A run whose approvals were answered goes on on the log its paused turn finished.
  log.reopen();
  const inputMessage = toInputMessage(record.input, runId, definition.formatAgentToolInput, definition);
  const outcome = await runTurn(
    {
      journal: new ChildRunJournal({ store: host.store, live }),
      tools: () => definition.getTools?.(),
      transcript: async (chunks) => [inputMessage, ...messageOrNone(await assembleTurnMessage(chunks, runId))],
      stream: (context) =>
        definition.turn({
          ...context,
          runId,
          input: record.input,
          milestones: live.milestones,
          tree: record.tree ?? null,
          trace: record.trace ?? null,
          clock,
          appendChunk: host.appendChunk,
          publishEphemeral: host.publishEphemeral,
        }),
      budget: live.budget,
      signal,
      publish: (chunk) => log.publish({ type: "progress", body: chunk, at: clock.now() }),
      newApprovalId: (toolCallId) => `approval-${toolCallId}`,
      approvalAsked: (request) =>
        approvalChunk({
          approvalId: request.approvalId,
          toolCallId: request.toolCallId,
          toolName: request.toolName,
          ...(request.input !== undefined ? { input: request.input as JsonValue } : {}),
          path: [],
          status: "pending",
          at: clock.now(),
        }),
      ...(host.yieldToEventLoop ? { yieldToEventLoop: host.yieldToEventLoop } : {}),
      ...(host.claim ? { claim: host.claim } : {}),
    },
    {
      resumed: start.resumed,
      ...(start.entries ? { entries: start.entries } : {}),
      // An inspect or tail waiting for the wake goes on once the turn reached its model (or runs decided calls, which
      // may take long, in the background), or paused again.
      onRecord: (_record, plan) => {
        if (plan.run.length > 0) ready();
      },
      onModel: ready,
    },
  ).catch((error: unknown) => ({ kind: "failed" as const, error }));
  try {
    definition.onTurnEnd?.(runId);
  } catch {
    // a definition's hook never breaks the run
  }
  log.finish(); // also when the turn threw before its stream was read
  await log.settled();
  if (outcome.kind === "refused") {
    host.ended();
    ready();
    return;
  }
  if (outcome.kind === "waiting" && log.storeError === undefined) {
    await host.pause(record, outcome.waiting, outcome.fold);
    ready();
    return;
  }
  ready();
  // A cancelled run ends after what it dispatched itself: the tree ends from its leaves up.
  if (signal.aborted) await live.descendantsEnded;
  const ending = await turnEnding({
    host,
    record,
    signal,
    storeError: log.storeError,
    ...(outcome.kind === "failed"
      ? { thrown: outcome.error }
      : { thrown: outcome.kind === "ended" ? outcome.thrown : undefined, fold: outcome.fold }),
  });
  const now = clock.now();
  const patch: RunRecordPatch = {
    status: ending.status,
    revision: record.revision + 1,
    completedAt: now,
    updatedAt: now,
    lastSequence: log.lastSequence,
    milestones: live.milestones,
    ...(ending.summary !== undefined ? { summary: ending.summary } : {}),
    ...(ending.error !== undefined ? { error: ending.error } : {}),
    ...(ending.status === "completed" && ending.output !== undefined ? { output: ending.output } : {}),
    usage: live.budget.total(),
    // A run that waited for approvals no longer does.
    ...(record.awaitingApproval !== undefined ? { awaitingApproval: [] } : {}),
    // Cut short by its budget: the parent records it interrupted (budget-exceeded), with what it gave.
    ...(live.budget.hasWrappedUp ? { budgetExceeded: live.budget.exhaustion() ?? "tokens" } : {}),
  };
  let final = { ...record, ...patch } as RunRecord;
  try {
    final = (await host.store.updateRun(runId, patch)) ?? final;
  } catch {
    // The terminal is still delivered to live tails; a later wake repairs the stored row.
  }
  host.ended();
  host.emit({
    type: "agent_tool:child:turn:finish",
    runId,
    agentType: host.agentType,
    status: ending.status,
    entries: outcome.kind === "failed" ? 0 : outcome.record.appended,
    at: now,
  });
  log.deliverFinal({ type: "terminal", inspection: host.inspection(final) });
}

type TurnEnding = { status: ChildRunStatus; error?: string; summary?: string; output?: unknown };

/** How a turn ended: the store's failure, a cancel, a throw, an in-band error, a headless tool call, or its result. */
async function turnEnding(context: {
  host: ChildTurnHost;
  record: RunRecord;
  signal: AbortSignal;
  storeError: unknown;
  thrown: unknown;
  fold?: JournalFold;
}): Promise<TurnEnding> {
  const { host, record, signal, storeError, thrown, fold } = context;
  if (storeError !== undefined) {
    return { status: "error", error: `The child could not store its log: ${errorMessage(storeError)}` };
  }
  if (signal.aborted) {
    return {
      status: "aborted",
      error: typeof signal.reason === "string" ? signal.reason : errorMessage(signal.reason),
    };
  }
  if (thrown !== undefined || fold === undefined) return { status: "error", error: errorMessage(thrown) };
  if (fold.error !== undefined) return { status: "error", error: fold.error };
  const unexecuted = unexecutedTools(fold);
  if (unexecuted.length > 0) {
    return {
      status: "error",
      error: `The child called ${unexecuted.map((name) => `"${name}"`).join(", ")}, which has no server-side execution; client-side tools are not available in an agent-tool run`,
    };
  }
  try {
    const result = await readChildTurnResult(host.definition, {
      runId: record.runId,
      input: record.input,
      output: fold.output?.value,
      text: fold.text,
    });
    return { status: "completed", ...result };
  } catch (hookError) {
    return { status: "error", error: `Reading the child's output failed: ${errorMessage(hookError)}` };
  }
}

/** Names of tools the turn called that got no server-side result (nor an approval to wait for), in call order. */
function unexecutedTools(fold: JournalFold): string[] {
  const names = [...fold.calls.values()]
    .filter((call) => call.decided && !call.settled && !call.providerExecuted && call.approval === null)
    .map((call) => call.toolName);
  return [...new Set(names)];
}

/** The message, unless it is missing or has no part. */
function messageOrNone(message: Awaited<ReturnType<typeof assembleTurnMessage>>) {
  return message && message.parts.length > 0 ? [message] : [];
}
