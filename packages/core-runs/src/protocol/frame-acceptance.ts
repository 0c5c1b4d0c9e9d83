import type { AgentToolEventFrame, AgentToolLifecycleEvent } from "./frames.js";
import { AGENT_MILESTONE_PART } from "./progress-parts.js";
import { isHardTerminalStatus, type RunStatus, type TerminalRunStatus } from "./status.js";
import { type AgentToolVoidedRange, readStepResetChunk, voidedRanges } from "./step-reset.js";
import { isObject } from "./unknown-values.js";

/** The status each terminal frame kind gives its run. @experimental */
export const TERMINAL_STATUS_OF_KIND = Object.freeze({
  finished: "completed",
  error: "error",
  aborted: "aborted",
  interrupted: "interrupted",
} as const satisfies Record<Exclude<AgentToolLifecycleEvent["kind"], "started">, TerminalRunStatus>);

/**
 * What a reader has accepted of one run's frames: its durable sequences (gap-free from 1, the held ones past a gap,
 * the ranges step resets voided) and its lifecycle (the newest revision, the status it gave). Plain, immutable data:
 * `acceptAgentToolFrame` returns a new cursor when a frame changes it.
 * @experimental
 */
export type AgentToolFrameCursor = {
  /** Every sequence from 1 to here is held or voided by a step reset: where a reconnect resumes. */
  readonly contiguous: number;
  /** Held sequences past a gap (above `contiguous + 1`), sorted. Empty unless frames came out of order. */
  readonly ahead: readonly number[];
  /** The ranges step resets voided (sorted within each reset). */
  readonly voided: readonly AgentToolVoidedRange[];
  /** The sequences of the milestones accepted (a milestone in a voided range stays reached, once). */
  readonly milestones: readonly number[];
  /** The newest lifecycle revision accepted (0: none with a revision). */
  readonly revision: number;
  /** The status the lifecycle frames accepted gave the run; `null` before the first. */
  readonly status: RunStatus | null;
};

/** A cursor that has accepted nothing. @experimental */
export const NO_FRAMES_ACCEPTED: AgentToolFrameCursor = Object.freeze({
  contiguous: 0,
  ahead: Object.freeze([]),
  voided: Object.freeze([]),
  milestones: Object.freeze([]),
  revision: 0,
  status: null,
});

/** Whether a frame is accepted, and the cursor after it (the same object when the frame changes nothing). @experimental */
export type AgentToolFrameAcceptance = {
  readonly accepted: boolean;
  readonly cursor: AgentToolFrameCursor;
  /** The ranges an accepted step reset voids: a reader drops the chunks in them it holds, milestones aside. */
  readonly voids: readonly AgentToolVoidedRange[];
};

const NO_VOIDS: readonly AgentToolVoidedRange[] = Object.freeze([]);

/**
 * Whether a reader accepts one frame of a run it follows, and what it then holds: the one rule every reader of the
 * wire applies (SPEC §6). Pure and total; `cleared` frames are every reader's own business (always accepted, the
 * cursor unchanged).
 *
 * - A chunk without a sequence (ephemeral progress) is accepted and changes nothing.
 * - A durable chunk is accepted once per sequence: not when the sequence is held, nor when a step reset voided it —
 *   unless it is a milestone not accepted yet (milestones stay reached). Sequences are held gap-free from 1; those
 *   past a gap wait in `ahead`. An accepted step reset voids its ranges: they count as held (the cursor moves past
 *   those never received) and are returned in `voids`.
 * - A lifecycle frame with a revision is accepted when it is newer than the cursor's. Without one (an older server),
 *   a `started` is accepted only while no lifecycle frame was, and a terminal unless the run is hard terminal.
 * @experimental
 */
export function acceptAgentToolFrame(
  cursor: AgentToolFrameCursor,
  frame: AgentToolEventFrame,
): AgentToolFrameAcceptance {
  const { event } = frame;
  if (event.kind === "cleared") return { accepted: true, cursor, voids: NO_VOIDS };
  if (event.kind === "chunk") return acceptChunk(cursor, frame.sequence, event.body);
  const isNewer =
    frame.revision !== undefined
      ? frame.revision > cursor.revision
      : event.kind === "started"
        ? cursor.status === null
        : cursor.status === null || !isHardTerminalStatus(cursor.status);
  if (!isNewer) return { accepted: false, cursor, voids: NO_VOIDS };
  const status: RunStatus = event.kind === "started" ? "running" : TERMINAL_STATUS_OF_KIND[event.kind];
  const revision = Math.max(cursor.revision, frame.revision ?? 0);
  const next = status === cursor.status && revision === cursor.revision ? cursor : { ...cursor, status, revision };
  return { accepted: true, cursor: next, voids: NO_VOIDS };
}

function acceptChunk(
  cursor: AgentToolFrameCursor,
  sequence: number | undefined,
  body: unknown,
): AgentToolFrameAcceptance {
  if (sequence === undefined) return { accepted: true, cursor, voids: NO_VOIDS };
  const isMilestone = chunkType(body) === AGENT_MILESTONE_PART;
  if (isMilestone && cursor.milestones.includes(sequence)) return { accepted: false, cursor, voids: NO_VOIDS };
  let next: AgentToolFrameCursor;
  if (isVoided(cursor, sequence)) {
    if (!isMilestone) return { accepted: false, cursor, voids: NO_VOIDS };
    next = cursor;
  } else {
    const held = holdSequence(cursor, sequence);
    if (held === null) return { accepted: false, cursor, voids: NO_VOIDS };
    next = held;
  }
  if (isMilestone) next = { ...next, milestones: insertSorted(next.milestones, sequence) };
  const reset = readStepResetChunk(body);
  const voids = reset ? voidedRanges(reset, sequence) : NO_VOIDS;
  if (voids.length > 0) next = closeGaps({ ...next, voided: [...next.voided, ...voids] });
  return { accepted: true, cursor: next, voids };
}

/** The chunk body's `type` (a body may come as a JSON string), or `null`. */
function chunkType(body: unknown): string | null {
  if (typeof body === "string") {
    try {
      return chunkType(JSON.parse(body));
    } catch {
      return null;
    }
  }
  return isObject(body) && typeof body["type"] === "string" ? body["type"] : null;
}

const isVoided = (cursor: AgentToolFrameCursor, sequence: number): boolean =>
  cursor.voided.some(([from, until]) => sequence >= from && sequence < until);

/** Index of `value` in a sorted array, or `-(insertion point) - 1` when absent. */
function binarySearch(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const item = sorted[middle] ?? 0;
    if (item === value) return middle;
    if (item < value) low = middle + 1;
    else high = middle - 1;
  }
  return -low - 1;
}

function insertSorted(sorted: readonly number[], value: number): readonly number[] {
  const found = binarySearch(sorted, value);
  if (found >= 0) return sorted;
  const at = -found - 1;
  return [...sorted.slice(0, at), value, ...sorted.slice(at)];
}

/** Record a durable sequence as held; `null` when it already was (a duplicate). */
function holdSequence(cursor: AgentToolFrameCursor, sequence: number): AgentToolFrameCursor | null {
  if (sequence <= cursor.contiguous) return null;
  if (binarySearch(cursor.ahead, sequence) >= 0) return null;
  if (sequence !== cursor.contiguous + 1) return { ...cursor, ahead: insertSorted(cursor.ahead, sequence) };
  return closeGaps({ ...cursor, contiguous: sequence });
}

/** Move `contiguous` on over the held sequences and voided ranges that now follow on. */
function closeGaps(cursor: AgentToolFrameCursor): AgentToolFrameCursor {
  let contiguous = cursor.contiguous;
  let ahead = cursor.ahead;
  for (;;) {
    const next = contiguous + 1;
    const range = cursor.voided.find(([from, until]) => next >= from && next < until);
    if (range) contiguous = range[1] - 1;
    else if (ahead[0] === next) contiguous = next;
    else break;
    let absorbed = 0;
    while ((ahead[absorbed] ?? Number.POSITIVE_INFINITY) <= contiguous) absorbed += 1;
    if (absorbed > 0) ahead = ahead.slice(absorbed);
  }
  return contiguous === cursor.contiguous && ahead === cursor.ahead ? cursor : { ...cursor, contiguous, ahead };
}
