import type { UIMessageChunk } from "ai";
import { AGENT_MILESTONE_PART } from "./progress-parts.js";

/**
 * The data part a child appends to a run's log when it resumes a turn that was cut off in the middle of a step:
 * `{ type: "data-agent-step-reset", data: { fromSequence, voids? }, transient: true }`, with the next sequence like
 * any entry. It voids entries before it that the resumed turn does not go on from:
 *
 * - with `voids` (`[from, until)` ranges of sequences, sorted, within `fromSequence` and the reset's own sequence):
 *   exactly those — the model output that was still streaming at the cut (a text or reasoning part not ended, a
 *   step in which the model had decided nothing). Everything else of the cut step stays: the facts of the journal
 *   (a call decided, its execution started, its result, an approval asked or answered) are never voided;
 * - without `voids` (logs written before the journal, and log compaction): every entry from `fromSequence` up to
 *   its own sequence.
 *
 * Milestones (`data-agent-milestone`) are never voided: they stay reached.
 *
 * - A reader that holds some of the voided entries drops them (our client rolls its run back over them).
 * - Replay and tails leave the voided entries out for a reader whose cursor is before them, and send the reset
 *   itself to everyone: it also tells a cursor that the sequences it voids will never come.
 * - It is `transient`, so the AI SDK's own assembly (`readUIMessageStream`) makes no part of it; a reader that does
 *   not know it sees a clean stream whenever the voided entries were left out.
 */
export const AGENT_STEP_RESET_PART = "data-agent-step-reset";

/** A range of sequences a step reset voids: `from` up to, not including, `until`. */
export type AgentToolVoidedRange = readonly [from: number, until: number];

/** What a step reset says: which entries before it are void (see `AGENT_STEP_RESET_PART`). */
export type AgentToolStepReset = { fromSequence: number; voids?: readonly AgentToolVoidedRange[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isSequence = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1;

/**
 * The step-reset chunk voiding the entries from `fromSequence` (a positive integer) up to its own sequence, or — with
 * `voids` — only those ranges (`fromSequence` is then the first range's start).
 */
export function stepResetChunk(fromSequence: number, voids?: readonly AgentToolVoidedRange[]): UIMessageChunk {
  const data =
    voids === undefined ? { fromSequence } : { fromSequence, voids: voids.map(([from, until]) => [from, until]) };
  return { type: AGENT_STEP_RESET_PART, data, transient: true } as UIMessageChunk;
}

/**
 * The step reset, to be appended at `resetSequence`, that voids exactly `sequences` (any order, duplicates allowed), as
 * sorted ranges — or in the plain form (no `voids`) when they are every sequence from the first up to the reset;
 * `null` when there is nothing to void.
 */
export function stepResetVoiding(sequences: Iterable<number>, resetSequence: number): UIMessageChunk | null {
  const sorted = [...new Set(sequences)].sort((left, right) => left - right);
  const first = sorted[0];
  if (first === undefined) return null;
  const ranges: Array<[number, number]> = [];
  for (const sequence of sorted) {
    const last = ranges.at(-1);
    if (last && last[1] === sequence) last[1] = sequence + 1;
    else ranges.push([sequence, sequence + 1]);
  }
  if (ranges.length === 1 && ranges[0]?.[1] === resetSequence) return stepResetChunk(first);
  return stepResetChunk(first, ranges);
}

/** The reset a `data-agent-step-reset` chunk carries, or `null` for any other chunk or a malformed one. Never throws. */
export function readStepResetChunk(body: unknown): AgentToolStepReset | null {
  if (!isObject(body) || body["type"] !== AGENT_STEP_RESET_PART || !isObject(body["data"])) return null;
  const fromSequence = body["data"]["fromSequence"];
  if (!isSequence(fromSequence)) return null;
  const voids = body["data"]["voids"];
  if (voids === undefined) return { fromSequence };
  if (!Array.isArray(voids)) return null;
  const ranges: AgentToolVoidedRange[] = [];
  let previousUntil = fromSequence;
  for (const range of voids) {
    if (!Array.isArray(range) || range.length !== 2) return null;
    const [from, until] = range as unknown[];
    if (!isSequence(from) || !isSequence(until) || from < previousUntil || until <= from) return null;
    ranges.push([from, until]);
    previousUntil = until;
  }
  return { fromSequence, voids: ranges };
}

/** The ranges a reset at sequence `resetSequence` voids (none reaches past it). */
export function voidedRanges(reset: AgentToolStepReset, resetSequence: number): AgentToolVoidedRange[] {
  const ranges = reset.voids ?? [[reset.fromSequence, resetSequence] as const];
  return ranges.flatMap(([from, until]) => {
    const end = Math.min(until, resetSequence);
    return from < end ? [[from, end] as const] : [];
  });
}

/**
 * True for an entry the reset at `resetSequence` voids: in one of its ranges, and not a milestone (a milestone stays
 * reached). The one rule every reader of a log applies.
 */
export function isVoidedByReset(
  entry: { sequence: number; body: { type: string } },
  reset: AgentToolStepReset,
  resetSequence: number,
): boolean {
  if (entry.body.type === AGENT_MILESTONE_PART || entry.sequence >= resetSequence) return false;
  return voidedRanges(reset, resetSequence).some(([from, until]) => entry.sequence >= from && entry.sequence < until);
}
