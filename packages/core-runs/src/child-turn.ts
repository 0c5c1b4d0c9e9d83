import type { UIMessage, UIMessageChunk } from "ai";
import { assembleTurnMessage, type CompletedSteps } from "./assemble-message.js";
import { budgetedModel } from "./budgeted-model.js";
import type { AgentToolChildDefinition, AgentToolTurnContext, AgentToolTurnStream } from "./child-definition.js";
import { toInputMessage } from "./child-input-message.js";
import { readChildTurnResult } from "./child-result-hooks.js";
import { closeCutStep } from "./close-cut-step.js";
import { errorMessage } from "./errors.js";
import type { LiveRun } from "./live-run.js";
import { MAX_BURST_ENTRIES } from "./live-run-log.js";
import type { Clock } from "./ports/clock.js";
import type { RunEventSink } from "./ports/run-event-sink.js";
import type { RunStore } from "./ports/run-store.js";
import type { AgentToolRunInspection, ChildRunStatus } from "./protocol/index.js";
import type { RunRecord, RunRecordPatch } from "./run-record.js";
import { TurnObserver } from "./turn-observer.js";
import type { OpenStep } from "./turn-recovery.js";

/** What a resumed turn goes on from: the steps its cut turn completed, and the cut step when it is kept. */
export type TurnResume = { completed: CompletedSteps; openStep: OpenStep | null };

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
  /** The turn is over and its terminal recorded: the run is no longer live here. */
  ended(): void;
  /** The turn ended on tool calls that need approval: the run pauses until they are answered. */
  pause(
    record: RunRecord,
    waiting: Array<{ approvalId: string; toolCallId: string; toolName: string; input: unknown }>,
  ): Promise<void>;
  /** The runner's `yieldToEventLoop` (none: the turn reads its stream without letting the host's loop turn). */
  yieldToEventLoop?: () => Promise<void>;
};

/**
 * Execute one turn of a run: call the definition's `turn`, append every durable chunk it yields to the live log
 * (written per burst), publish transient ones, and when the stream ends record the run's terminal
 * (`completed` with its output and summary, or `error` / `aborted` with why) and deliver it to live tails. A resumed
 * turn (`resume` set) first finishes the cut step it keeps (its pending tool calls run again, then its `finish-step`),
 * is given the steps its cut-off turn completed, and its summary counts them.
 * @internal
 */
export async function runChildTurn(
  host: ChildTurnHost,
  record: RunRecord,
  live: LiveRun,
  resume: TurnResume | null,
): Promise<void> {
  const { runId } = record;
  const { clock, definition } = host;
  const observer = new TurnObserver();
  // A resumed turn's summary and tool bookkeeping start from the steps it had completed.
  const resumedChunks = [...(resume?.completed.chunks ?? []), ...(resume?.openStep?.chunks ?? [])];
  for (const chunk of resumedChunks) observer.observe(chunk);
  const signal = live.controller.signal;
  const log = live.log;
  let output: unknown;
  let thrown: unknown;
  let entries = 0;
  host.emit({
    type: "agent_tool:child:turn:start",
    runId,
    agentType: host.agentType,
    resumed: resume !== null,
    at: clock.now(),
    ...(record.trace !== undefined ? { trace: record.trace } : {}),
  });
  try {
    const messages = [toInputMessage(record.input, runId, definition.formatAgentToolInput)];
    let resumedMessage = resume?.completed.message ?? null;
    if (resume?.openStep) {
      const closing = await closeCutStep({
        pendingToolCalls: resume.openStep.pendingToolCalls,
        tools: resume.openStep.pendingToolCalls.length > 0 ? definition.getTools?.() : undefined,
        conversation: async () => [...messages, ...messageOrNone(await assembleTurnMessage(resumedChunks, runId))],
        abortSignal: signal,
      });
      for (const chunk of closing) {
        observer.observe(chunk);
        log.append(chunk);
        entries += 1;
      }
      resumedMessage = messageOrNone(await assembleTurnMessage([...resumedChunks, ...closing], runId))[0] ?? null;
    }
    if (resumedMessage) messages.push(resumedMessage);
    const stream = await definition.turn({
      runId,
      input: record.input,
      messages,
      resumed: resume !== null,
      milestones: live.milestones,
      abortSignal: signal,
      tree: record.tree ?? null,
      model: (model) => budgetedModel(model, live.budget, { abortSignal: signal }),
      budget: live.budget,
      trace: record.trace ?? null,
      clock,
      setOutput: (value) => {
        output = value;
      },
      appendChunk: host.appendChunk,
      publishEphemeral: host.publishEphemeral,
    });
    const reader = toReader(stream);
    const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      while (!signal.aborted) {
        // The log writes per burst (see LiveRunLog): one append for what the turn yields between two turns of the
        // event loop, however many microtasks each chunk takes.
        const { done, value } = await reader.read();
        if (done || signal.aborted) break;
        if (isTransient(value)) {
          log.publish({ type: "progress", body: value, at: clock.now() });
          continue;
        }
        observer.observe(value);
        log.append(value);
        entries += 1;
        // Let the start answer and what is written so far leave the host before reading on (see the option): after
        // the first entry (written at once) and after each entry that made a full burst's write start.
        if (host.yieldToEventLoop && (entries - 1) % MAX_BURST_ENTRIES === 0) {
          await host.yieldToEventLoop();
        }
      }
    } finally {
      log.finish();
      signal.removeEventListener("abort", onAbort);
      reader.releaseLock?.();
    }
  } catch (error) {
    thrown = error;
  }
  log.finish(); // also when the turn threw before its stream was read
  await log.settled();

  // Tool calls waiting for an approval: the run pauses (it stays running, its tails open) until they are answered.
  const waiting = observer.pendingApprovals;
  if (
    waiting.length > 0 &&
    !signal.aborted &&
    thrown === undefined &&
    observer.error === undefined &&
    log.storeError === undefined
  ) {
    await host.pause(record, waiting);
    return;
  }
  // A cancelled run ends after what it dispatched itself: the tree ends from its leaves up.
  if (signal.aborted) await live.descendantsEnded;
  const ending = await turnEnding({ host, record, signal, storeError: log.storeError, thrown, observer, output });
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
    entries,
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
  observer: TurnObserver;
  output: unknown;
}): Promise<TurnEnding> {
  const { host, record, signal, storeError, thrown, observer } = context;
  if (storeError !== undefined) {
    return { status: "error", error: `The child could not store its log: ${errorMessage(storeError)}` };
  }
  if (signal.aborted) {
    return {
      status: "aborted",
      error: typeof signal.reason === "string" ? signal.reason : errorMessage(signal.reason),
    };
  }
  if (thrown !== undefined) return { status: "error", error: errorMessage(thrown) };
  if (observer.error !== undefined) return { status: "error", error: observer.error };
  if (observer.unexecutedTools.length > 0) {
    return {
      status: "error",
      error: `The child called ${observer.unexecutedTools.map((name) => `"${name}"`).join(", ")}, which has no server-side execution; client-side tools are not available in an agent-tool run`,
    };
  }
  try {
    const result = await readChildTurnResult(host.definition, {
      runId: record.runId,
      input: record.input,
      output: context.output,
      text: observer.text,
    });
    return { status: "completed", ...result };
  } catch (hookError) {
    return { status: "error", error: `Reading the child's output failed: ${errorMessage(hookError)}` };
  }
}

/** The message, unless it is missing or has no part. */
function messageOrNone(message: UIMessage | null): UIMessage[] {
  return message && message.parts.length > 0 ? [message] : [];
}

function isTransient(chunk: UIMessageChunk): boolean {
  return (chunk as { transient?: unknown }).transient === true;
}

function toReader(stream: AgentToolTurnStream): ReadableStreamDefaultReader<UIMessageChunk> {
  if (stream instanceof ReadableStream) return stream.getReader();
  const iterator = stream[Symbol.asyncIterator]();
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  }).getReader();
}
