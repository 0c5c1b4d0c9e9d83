import type { UIMessageChunk } from "ai";
import {
  AGENT_APPROVAL_PART,
  AGENT_STEP_RESET_PART,
  AGENT_TOOL_STARTED_PART,
  AGENT_USAGE_PART,
} from "../protocol/index.js";

/**
 * The data part a turn's journal records its output in (`context.setOutput`), `transient` (no part of the message):
 * a turn whose stream's end is journaled ends with that output after a restart, without calling its model again.
 */
export const AGENT_OUTPUT_PART = "data-agent-output";

/** The chunk recording the turn's output. */
export function outputChunk(value: unknown): UIMessageChunk {
  return { type: AGENT_OUTPUT_PART, data: { value }, transient: true } as UIMessageChunk;
}

/** The output an output chunk records (`{ value }`), or `null` for any other chunk. */
export function readOutputChunk(body: unknown): { value: unknown } | null {
  if (typeof body !== "object" || body === null) return null;
  const { type, data } = body as { type?: unknown; data?: unknown };
  if (type !== AGENT_OUTPUT_PART || typeof data !== "object" || data === null) return null;
  return { value: (data as { value?: unknown }).value };
}

const FACT_TYPES: ReadonlySet<string> = new Set([
  "tool-input-available",
  "tool-input-error",
  "tool-approval-request",
  "tool-approval-response",
  "tool-output-error",
  "tool-output-denied",
  "finish",
  AGENT_APPROVAL_PART,
  AGENT_TOOL_STARTED_PART,
  AGENT_OUTPUT_PART,
  AGENT_STEP_RESET_PART,
]);

/**
 * True for a **fact** of a step: a tool call decided (its input complete), its execution started, its result, an
 * approval asked or answered, the turn's output, its stream's end (`finish`). A journal writes a fact at once, with
 * what waits before it (streaming output goes in its bounded writes), and a fact is durable before anything acts on
 * it. A step's `finish-step` is no fact: it goes with the chunk after it (see `waitsForNext`).
 */
export function isJournalFact(chunk: UIMessageChunk): boolean {
  if (chunk.type === "tool-output-available") return chunk.preliminary !== true;
  return FACT_TYPES.has(chunk.type);
}

/**
 * True for a chunk a journal never writes ahead of what comes right after it: a step's `finish-step` goes with the
 * next chunk, or once the event loop turns (the end of the burst it came in). The AI SDK sends the stream's `finish`
 * right after the turn's last step, so a journal never holds a turn's last step without its end — which a restart
 * would take for a turn cut between two steps, and call its model again. A journal holding a step's `finish-step`
 * last holds a turn cut between steps; one lacking it holds the step under way (kept when it decided calls; done
 * again otherwise).
 */
export function waitsForNext(chunk: UIMessageChunk): boolean {
  return chunk.type === "finish-step";
}

/**
 * True for a chunk that goes into a journal without taking a waiting `finish-step` along (`waitsForNext`): the
 * turn's usage as it changes (a `data-agent-usage`), which may come at any time.
 */
export function ridesAlong(chunk: UIMessageChunk): boolean {
  return chunk.type === AGENT_USAGE_PART;
}
