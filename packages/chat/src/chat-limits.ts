import { AgentToolsError } from "@agent-tools/core-runs";
import { inputByteLength } from "@agent-tools/core-runs/internal";
import { definedProps } from "@agent-tools/core-runs/protocol";

/**
 * The conversation's size and queue limits. Each is checked before anything is written, so a request over a limit
 * changes nothing and gets a clear error (`ChatLimitError` for a caller in code, an `error` frame for a client).
 */
export type ChatLimits = {
  /** A user message, as UTF-8 JSON (default 1 MB). A bigger one is refused before its turn starts. */
  maxMessageBytes: number;
  /** A tool call's input, as UTF-8 JSON (default 1 MB): the tool does not run, the call ends with an error. */
  maxToolInputBytes: number;
  /** A tool's output, as UTF-8 JSON (default 1 MB): it is not stored, the call ends with an error instead. */
  maxToolOutputBytes: number;
  /** An answer, about its streamed size (default 8 MB): past it the turn ends as an error, keeping what came. */
  maxAnswerBytes: number;
  /** Sends waiting for the turn in flight (default 8): one more is refused. */
  maxQueuedSends: number;
};

export const DEFAULT_CHAT_LIMITS: Readonly<ChatLimits> = Object.freeze({
  maxMessageBytes: 1_000_000,
  maxToolInputBytes: 1_000_000,
  maxToolOutputBytes: 1_000_000,
  maxAnswerBytes: 8_000_000,
  maxQueuedSends: 8,
});

/** Which limit a value went over. */
export type ChatLimitName = Exclude<keyof ChatLimits, "maxQueuedSends"> | "maxQueuedSends";

/**
 * Thrown to a caller in code (and sent as a client's `error` frame text) when a request is over a `ChatLimits` limit.
 * Carries the limit, the size found and the maximum; nothing was written.
 */
export class ChatLimitError extends AgentToolsError {
  readonly limit: ChatLimitName;
  /** The size found (bytes; for `maxQueuedSends`, the sends waiting). */
  readonly actual: number;
  readonly maximum: number;

  constructor(limit: ChatLimitName, actual: number, maximum: number, message: string) {
    super("LIMIT_EXCEEDED", message);
    this.name = "ChatLimitError";
    this.limit = limit;
    this.actual = actual;
    this.maximum = maximum;
  }
}

/** The limits, with the defaults where `overrides` says nothing; a bad value is a clear error. */
export function resolveChatLimits(overrides: Partial<ChatLimits> = {}): ChatLimits {
  const limits = { ...DEFAULT_CHAT_LIMITS, ...definedProps(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isSafeInteger(value) && value > 0)) {
      throw new AgentToolsError("INVALID_ARGUMENT", `Chat limit ${name} must be a positive integer, got ${value}`);
    }
  }
  return limits;
}

/** A value's size as UTF-8 JSON (`Infinity` when it cannot be serialized: it never fits). */
export function jsonBytes(value: unknown): number {
  return (typeof value === "string" ? inputByteLength(JSON.stringify(value)) : inputByteLength(value)) ?? Infinity;
}

/** The error for a value over a size limit, or `null` when it fits. `what` names the value for the message. */
export function checkSize(
  limit: Exclude<ChatLimitName, "maxQueuedSends">,
  value: unknown,
  limits: ChatLimits,
  what: string,
): ChatLimitError | null {
  const actual = jsonBytes(value);
  const maximum = limits[limit];
  if (actual <= maximum) return null;
  const shown = Number.isFinite(actual) ? `${formatBytes(actual)}` : "not serializable";
  return new ChatLimitError(
    limit,
    actual,
    maximum,
    `${what} is too large (${shown}; the limit is ${formatBytes(maximum)})`,
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} bytes`;
}
