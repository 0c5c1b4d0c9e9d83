import type { UIMessage } from "ai";
import { stringifyForText } from "../protocol/unknown-values.js";

/** Turns a run's input into the child's user message. Return a string for a plain text message. */
export type FormatAgentToolInput = (input: unknown, context: { runId: string }) => UIMessage | string;

/** The id of the user message a run's input becomes. */
export function inputMessageId(runId: string): string {
  return `agent-tool-${runId}-input`;
}

/** The default `formatAgentToolInput`: a string as is, anything else as pretty JSON. */
export function defaultFormatAgentToolInput(input: unknown): string {
  return stringifyForText(input, 2);
}

/**
 * Build the input user message with the child's formatter (or the default), called on `owner` (the definition that
 * has it: a definition whose hooks are methods reads its object through `this`).
 */
export function toInputMessage(
  input: unknown,
  runId: string,
  format?: FormatAgentToolInput,
  owner?: unknown,
): UIMessage {
  const formatted = format ? format.call(owner, input, { runId }) : defaultFormatAgentToolInput(input);
  if (typeof formatted !== "string") return formatted;
  return { id: inputMessageId(runId), role: "user", parts: [{ type: "text", text: formatted }] };
}
