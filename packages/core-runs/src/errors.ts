import { stringifyForText } from "./protocol/unknown-values.js";

const marker = Symbol.for("agent-tools.error");

/**
 * The closed set of misuse and infrastructure error codes: `INVALID_ARGUMENT` (misuse of an API), `UNKNOWN_AGENT_TYPE`
 * (a transport has no child of that type), `STORE_FAILED` (storage could not be read), `LIMIT_EXCEEDED` (a request over a
 * documented size or count limit: nothing was written), `INTERNAL` (anything else, normalised at a host boundary by
 * `toAgentToolsError`). Unknown run ids and refused dispatches are values, not errors.
 */
export type AgentToolsErrorCode =
  | "INVALID_ARGUMENT"
  | "UNKNOWN_AGENT_TYPE"
  | "STORE_FAILED"
  | "LIMIT_EXCEEDED"
  | "INTERNAL";

/**
 * Thrown for misuse and infrastructure failures (expected outcomes of a run are values: `AgentToolFailure`).
 * Recognize it across module copies with `AgentToolsError.isInstance`.
 */
export class AgentToolsError extends Error {
  readonly [marker] = true;
  readonly code: AgentToolsErrorCode;

  constructor(code: AgentToolsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentToolsError";
    this.code = code;
  }

  static isInstance(value: unknown): value is AgentToolsError {
    return typeof value === "object" && value !== null && (value as { [marker]?: unknown })[marker] === true;
  }
}

/** Normalise anything thrown at a boundary into an `AgentToolsError`, keeping the original as `cause`. */
export function toAgentToolsError(value: unknown, code: AgentToolsErrorCode = "INTERNAL"): AgentToolsError {
  if (AgentToolsError.isInstance(value)) return value;
  return new AgentToolsError(code, errorMessage(value), { cause: value });
}

/** A human-readable message for anything thrown. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  return stringifyForText(value);
}
