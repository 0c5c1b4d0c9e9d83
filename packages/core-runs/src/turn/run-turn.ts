import { convertToModelMessages, type UIMessageChunk } from "ai";
import { budgetedModel } from "../budget/budgeted-model.js";
import type { AgentToolTurnStream } from "../child/child-definition.js";
import { MAX_BURST_ENTRIES } from "../log/live-run-log.js";
import { isObject } from "../protocol/index.js";
import { callsNeedingApproval, runDecidedCall } from "./decided-call.js";
import { outputChunk } from "./journal-facts.js";
import { foldJournal, type JournalEntry, type JournaledCall, type JournalFold } from "./journal-fold.js";
import { journalTools } from "./journaled-tools.js";
import { planResume, type ResumePlan, undecidedCalls } from "./resume-plan.js";
import type { TurnHost } from "./turn-host.js";
import { TurnRecord } from "./turn-record.js";

/**
 * A turn whose stream is followed lets the host's event loop turn once it has read this many chunks without a pause,
 * then `SECOND_YIELD_GAP` later and every `YIELD_EVERY` (1 024) after that: its first entry is written at once
 * anyway (`LiveRunLog`), so the first chunk waits at most for these to be journaled (microseconds), and a short
 * instant turn (a stub, a cached answer) ends in one commit instead of two (bench/README.md, issue 33, fifth session).
 * Each turn of the loop after a write costs a storage commit here and a hop of the tail to the parent (about a
 * millisecond in workerd): a 2 000-chunk instant turn pays three, not eight (issue 33, sixth session).
 */
export const FIRST_YIELD_AFTER = 64;

/**
 * The chunks a followed instant turn reads between its first yield and its second (then `YIELD_EVERY` between each
 * two): fewer, because its first chunk may still be on its way then — the child's commit and the tail's
 * hop to the parent can come after the host's timer, and the parent waits for the child's stretch to end — so the
 * first chunk waits for at most these, as when every stretch was this long.
 */
export const SECOND_YIELD_GAP = 256;

/**
 * The chunks a followed instant turn reads between two yields after its second: four of the log's bursts (each written
 * as it fills, `MAX_BURST_ENTRIES`), all in one storage commit.
 */
export const YIELD_EVERY = 4 * MAX_BURST_ENTRIES;

/** The result a call gets when its input was still streaming as the turn was cut: the model is told. */
export const NOT_RUN_TEXT =
  "This tool call was not run: the answer was cut off while the model was still writing its input. Call it again if it is still needed.";

/** How a turn came out. */
export type TurnOutcome =
  /** The host's `claim` said no: nothing was done. */
  | { kind: "refused" }
  /** The turn waits for answers to the approvals of `waiting` (journaled: a restart finds them). */
  | { kind: "waiting"; fold: JournalFold; waiting: JournaledCall[]; record: TurnRecord }
  /** The turn is over (its model answered, it failed, or it was aborted): `thrown` when its model turn threw. */
  | { kind: "ended"; fold: JournalFold; thrown: unknown; record: TurnRecord };

/** How a turn starts: whether it goes on from a journal, and that journal's entries when the host read them already. */
export type RunTurnOptions = {
  resumed: boolean;
  entries?: readonly JournalEntry[];
  /**
   * Told once the turn's record exists, after its cut (if any) is voided and before anything else: with the plan it
   * goes on by (a host that answers `whenDecided` asks the record).
   */
  onRecord?(record: TurnRecord, plan: ResumePlan): void;
  /** Told once the host's model turn was called (its stream is about to be read). */
  onModel?(): void;
};

/**
 * Run one model turn on a step journal, for a conversation turn and a child run alike: go on from what the journal
 * holds (never voiding a fact: see `planResume`) — drop the model output still streaming at a cut, tell the model of
 * calls whose input was cut, ask the approvals nobody asked, run the decided calls with no result, close the step —
 * then, unless the turn waits for approvals or is over, call the host's model turn and journal its chunks as they
 * come. A new turn is the same with an empty journal. An approval's answer continues a turn by this same path.
 */
export async function runTurn(host: TurnHost, options: RunTurnOptions): Promise<TurnOutcome> {
  let turn = options;
  for (;;) {
    const outcome = await turnOnce(host, turn);
    if (outcome.kind !== "waiting" || host.signal.aborted) return outcome;
    // An approval answered while the turn still streamed went into the journal: the turn goes on from it, as after a
    // cut (the journal is the truth; an answer never waits for a second continuation).
    await host.journal.durable();
    const entries = await host.journal.read();
    const fold = foldJournal(entries);
    const isAnswered = outcome.waiting.some((call) => {
      const now = fold.calls.get(call.toolCallId);
      return now?.approval?.answer != null && !now.settled;
    });
    if (!isAnswered) return outcome;
    turn = { ...options, resumed: true, entries };
  }
}

async function turnOnce(host: TurnHost, options: RunTurnOptions): Promise<TurnOutcome> {
  const entries = options.entries ?? (await host.journal.read());
  const before = foldJournal(entries);
  const messages = () => host.transcript(entries.map((entry) => entry.body)).then(toModelMessages(host));
  const plan = planResume(before, await callsNeedingApproval(undecidedCalls(before), host.tools(), messages));
  if (hasWork(plan) && host.claim && !(await host.claim())) return { kind: "refused" };
  const voided = new Set(plan.voided);
  await host.journal.keep(entries, plan.voided);
  const record = new TurnRecord(
    host,
    entries.filter((entry) => !voided.has(entry.sequence)),
  );
  options.onRecord?.(record, plan);
  let thrown: unknown;
  try {
    await goOn(host, record, plan);
    if (plan.next === "model" && !host.signal.aborted) await readStream(host, record, options);
  } catch (error) {
    thrown = error;
  }
  record.stopConsuming();
  const { fold } = record;
  const waiting = [...fold.calls.values()].filter(
    (call) => call.approval !== null && call.approval.answer === null && !call.settled,
  );
  if (waiting.length > 0 && thrown === undefined && !host.signal.aborted && fold.error === undefined) {
    return { kind: "waiting", fold, waiting, record };
  }
  return { kind: "ended", fold, thrown, record };
}

function hasWork(plan: ResumePlan): boolean {
  return (
    plan.next === "model" ||
    plan.voided.length > 0 ||
    plan.notRun.length > 0 ||
    plan.run.length > 0 ||
    plan.ask.length > 0 ||
    plan.closeStep
  );
}

/**
 * Carry out what the plan says before the model goes on: tell it of the calls cut while their input streamed, ask
 * the approvals nobody asked, publish an asked approval the journal lacks the host's chunk for, run the decided calls
 * (in parallel, as the AI SDK runs a step's calls), then close the kept step.
 */
async function goOn(host: TurnHost, record: TurnRecord, plan: ResumePlan): Promise<void> {
  for (const call of plan.notRun) {
    record.append({
      type: "tool-input-error",
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: isObject(call.input) ? call.input : {},
      errorText: NOT_RUN_TEXT,
    });
  }
  for (const call of plan.ask) {
    record.append({
      type: "tool-approval-request",
      approvalId: host.newApprovalId(call.toolCallId),
      toolCallId: call.toolCallId,
    });
  }
  // An approval asked whose host chunk did not reach the journal (a cut between the two): published now, once.
  for (const call of record.fold.calls.values()) {
    const approval = call.approval;
    if (!approval || approval.answer !== null || call.settled || record.fold.approvals.has(approval.approvalId))
      continue;
    const follow = host.approvalAsked?.({
      ...approval,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
    if (follow) record.append(follow);
  }
  if (plan.run.length > 0) {
    const tools = host.tools();
    const messages = await toModelMessages(host)(await host.transcript(record.chunks));
    const results = await Promise.all(
      plan.run.map((call) =>
        runDecidedCall(tools, call, {
          messages,
          abortSignal: host.signal,
          started: record.gate.started,
          preliminary: (chunk) => record.append(chunk),
        }),
      ),
    );
    for (const result of results) record.append(result);
  }
  if (plan.closeStep) record.append({ type: "finish-step" });
  // Ordering invariant: what recovery decided is durable before the model goes on (or the turn waits).
  await host.journal.durable();
}

/** Call the host's model turn and journal its chunks until its stream ends, fails or the turn is aborted. */
async function readStream(host: TurnHost, record: TurnRecord, options: RunTurnOptions): Promise<void> {
  const { signal } = host;
  const messages = await host.transcript(record.chunks);
  const tools = journalTools(host.tools() ?? {}, record.gate);
  // From here the model's calls come through the stream: a tool waits for its call to be journaled.
  record.startConsuming();
  const stream = await host.stream({
    messages,
    tools,
    abortSignal: signal,
    resumed: options.resumed,
    model: (model) => budgetedModel(model, host.budget, { abortSignal: signal }),
    budget: host.budget,
    setOutput: (value) => record.append(outputChunk(value)),
  });
  options.onModel?.();
  const reader = toReader(stream);
  const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    let read = 0;
    let nextYield = FIRST_YIELD_AFTER;
    let gap = SECOND_YIELD_GAP;
    if (signal.aborted) return;
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      if (isTransient(value)) {
        host.publish(value);
        continue;
      }
      record.append(value);
      read += 1;
      // Let what is written so far leave the host before reading on: after the first `FIRST_YIELD_AFTER` chunks,
      // `SECOND_YIELD_GAP` later, then every `YIELD_EVERY`. A stream whose chunks come apart (a model paced by the
      // network) lets the loop turn on its own.
      if (read === nextYield && host.yieldToEventLoop) {
        nextYield += gap;
        gap = YIELD_EVERY;
        await host.yieldToEventLoop();
      }
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.releaseLock?.();
  }
}

function toModelMessages(host: TurnHost) {
  return (messages: Parameters<typeof convertToModelMessages>[0]) => {
    const tools = host.tools();
    return convertToModelMessages(messages, tools ? { tools } : {});
  };
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
