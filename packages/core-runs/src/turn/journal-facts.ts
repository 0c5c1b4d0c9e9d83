import type { UIMessageChunk } from "ai";
import { AGENT_APPROVAL_PART, AGENT_STEP_RESET_PART, AGENT_TOOL_STARTED_PART } from "../protocol/index.js";

/**
 * The data part a turn's journal records its output in (`context.setOutput`), `transient` (no part of the message):
 * a turn whose last step is journaled ends with that output after a restart, without calling its model again.
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
  "finish-step",
  AGENT_APPROVAL_PART,
  AGENT_TOOL_STARTED_PART,
  AGENT_OUTPUT_PART,
  AGENT_STEP_RESET_PART,
]);

/**
 * True for a **fact** of a step: a tool call decided (its input complete), its execution started, its result, an
 * approval asked or answered, a step finished, the turn's output. A journal writes a fact at once (streaming output
 * goes in its bounded writes), and a fact is durable before anything acts on it.
 */
export function isJournalFact(chunk: UIMessageChunk): boolean {
  if (chunk.type === "tool-output-available") return chunk.preliminary !== true;
  return FACT_TYPES.has(chunk.type);
}
