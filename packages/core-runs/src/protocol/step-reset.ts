import type { UIMessageChunk } from "ai";

/**
 * The data part a child appends to a run's log when it resumes a turn that was cut off in the middle of a step:
 * `{ type: "data-agent-step-reset", data: { fromSequence }, transient: true }`, with the next sequence like any
 * entry. It voids the entries of the cut step, every entry from `fromSequence` up to its own sequence except
 * milestones (`data-agent-milestone`, which stay reached), because the resumed turn does that step again.
 *
 * - A reader that holds some of the voided entries drops them (our client rolls its run back to `fromSequence`).
 * - Replay and tails leave the voided entries out for a reader whose cursor is before them, and send the reset
 *   itself to everyone: it also tells a cursor that the sequences it voids will never come.
 * - It is `transient`, so the AI SDK's own assembly (`readUIMessageStream`) makes no part of it; a reader that does
 *   not know it sees a clean stream whenever the voided entries were left out.
 */
export const AGENT_STEP_RESET_PART = "data-agent-step-reset";

/** What a step reset says: the entries from `fromSequence` up to the reset's own sequence are void. */
export type AgentToolStepReset = { fromSequence: number };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The step-reset chunk voiding the entries from `fromSequence` (a positive integer) up to its own sequence. */
export function stepResetChunk(fromSequence: number): UIMessageChunk {
  return { type: AGENT_STEP_RESET_PART, data: { fromSequence }, transient: true } as UIMessageChunk;
}

/** The reset a `data-agent-step-reset` chunk carries, or `null` for any other chunk or a malformed one. Never throws. */
export function readStepResetChunk(body: unknown): AgentToolStepReset | null {
  if (!isObject(body) || body["type"] !== AGENT_STEP_RESET_PART || !isObject(body["data"])) return null;
  const fromSequence = body["data"]["fromSequence"];
  return typeof fromSequence === "number" && Number.isSafeInteger(fromSequence) && fromSequence >= 1
    ? { fromSequence }
    : null;
}
