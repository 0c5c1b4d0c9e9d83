const marker = Symbol.for("agent-tools.error");

/** The closed set of misuse and infrastructure error codes. */
export type AgentToolsErrorCode =
  | "INVALID_ARGUMENT"
  | "RUN_NOT_FOUND"
  | "UNKNOWN_AGENT_TYPE"
  | "AGENT_TYPE_MISMATCH"
  | "TRANSPORT_FAILED"
  | "STORE_FAILED"
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

/** A run id the registry does not know. */
export class RunNotFoundError extends AgentToolsError {
  readonly runId: string;
  constructor(runId: string) {
    super("RUN_NOT_FOUND", `No agent-tool run with id "${runId}"`);
    this.name = "RunNotFoundError";
    this.runId = runId;
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
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
