import type { JournaledCall, JournalFold } from "./journal-fold.js";

/**
 * How a turn goes on from its journal (after a cut, after an approval's answer, or — with nothing journaled — from
 * its start). Nothing here voids a fact: only model output still streaming at the cut is dropped.
 */
export type ResumePlan = {
  /**
   * Sequences of model output the turn does not go on from: a step under way in which the model had decided no tool
   * call (done again from its start), or — in a step that decided some — its text and reasoning parts not ended.
   */
  voided: number[];
  /** Calls whose input was still streaming in a kept step: each gets an error result (the model is told). */
  notRun: JournaledCall[];
  /** Decided calls with no result that run now (execution started → result), in the order the model made them. */
  run: JournaledCall[];
  /** Decided calls with no result that need approval and were never asked: asked now, once. */
  ask: JournaledCall[];
  /** The step under way is kept: it is closed (`finish-step`) once its calls are run, asked or told. */
  closeStep: boolean;
  /** Calls waiting for an answer (asked before, or in `ask`): the turn waits for them. */
  waiting: JournaledCall[];
  /**
   * What comes next: the model goes on (`model`), the turn waits for approvals (`wait`), or it is over (`end`: its
   * stream ended after its last step, or the turn failed or was aborted).
   */
  next: "model" | "wait" | "end";
};

/**
 * The calls recovery must decide for, before `planResume`: decided, with no result, no approval asked, not the
 * provider's, and either in the step under way or already started (a call of a finished step with no result and no
 * execution is a client-side tool's: it is left to the client). Whether each needs approval is the tools' to say.
 */
export function undecidedCalls(fold: JournalFold): JournaledCall[] {
  const openIndex = keptOpenStep(fold) ? fold.openStep?.index : undefined;
  return [...fold.calls.values()].filter(
    (call) =>
      call.decided &&
      !call.settled &&
      !call.providerExecuted &&
      call.approval === null &&
      (call.step === openIndex || call.started),
  );
}

/**
 * Plan how a turn goes on from `fold`: pure (tested as data). `requiresApproval` names the calls of
 * `undecidedCalls(fold)` whose tool needs approval (the AI SDK's `needsApproval`).
 */
export function planResume(fold: JournalFold, requiresApproval: ReadonlySet<string>): ResumePlan {
  const open = fold.openStep;
  const isKept = keptOpenStep(fold);
  const voided: number[] = [];
  if (open && !isKept) voided.push(...open.output);
  if (open && isKept) {
    for (const part of open.parts.values()) if (!part.ended) voided.push(...part.sequences);
  }
  const notRun = isKept
    ? [...fold.calls.values()].filter(
        (call) => call.step === open?.index && !call.decided && !call.settled && !call.providerExecuted,
      )
    : [];
  const candidates = undecidedCalls(fold);
  const ask = candidates.filter((call) => requiresApproval.has(call.toolCallId));
  const run = candidates.filter((call) => !requiresApproval.has(call.toolCallId));
  const waiting = [
    ...[...fold.calls.values()].filter(
      (call) => call.approval !== null && call.approval.answer === null && !call.settled,
    ),
    ...ask,
  ];
  return { voided: voided.sort((a, b) => a - b), notRun, run, ask, closeStep: isKept, waiting, next: nextOf(fold) };

  function nextOf(state: JournalFold): ResumePlan["next"] {
    if (state.error !== undefined || state.aborted) return "end";
    if (waiting.length > 0) return "wait";
    // The kept step decided calls, or the step under way is done again: the model goes on.
    if (open) return "model";
    const answered = [...state.calls.values()].some((call) => call.approval?.answer && !call.settled);
    if (answered || run.length > 0) return "model";
    // The turn's stream ended after its last step (its `finish` went with that step's end): it is over. Otherwise it
    // was cut between two steps (or before its first): the model goes on.
    return state.ended ? "end" : "model";
  }
}

/** True when the step under way decided a tool call (not the provider's): it is kept, not done again. */
function keptOpenStep(fold: JournalFold): boolean {
  const open = fold.openStep;
  if (!open) return false;
  return [...fold.calls.values()].some((call) => call.step === open.index && call.decided && !call.providerExecuted);
}
