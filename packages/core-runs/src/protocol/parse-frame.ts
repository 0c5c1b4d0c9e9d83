import { isAgentToolInterruptedReason } from "./failure.js";
import { AGENT_TOOL_EVENT_TYPE, type AgentToolEvent, type AgentToolEventFrame } from "./frames.js";
import type { AgentToolDisplay } from "./run-types.js";
import { isObject } from "./unknown-values.js";

/** The result of parsing a frame: never throws. */
export type ParseAgentToolFrameResult = { ok: true; frame: AgentToolEventFrame } | { ok: false; error: string };

type Fields = Record<string, unknown>;

const isSequence = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
const isRevision = isSequence;
const isOptionalString = (value: unknown) => value === undefined || typeof value === "string";

function fail(error: string): ParseAgentToolFrameResult {
  return { ok: false, error };
}

function parseBody(body: unknown): Fields | null {
  // The seed system sends the chunk body as a JSON string; we send an object. Accept both.
  if (typeof body === "string") {
    try {
      const parsed: unknown = JSON.parse(body);
      return isObject(parsed) && typeof parsed["type"] === "string" ? parsed : null;
    } catch {
      return null;
    }
  }
  return isObject(body) && typeof body["type"] === "string" ? body : null;
}

function parseEvent(raw: Fields): AgentToolEvent | string {
  const kind = raw["kind"];
  if (kind === "cleared") return parseCleared(raw);
  const runId = raw["runId"];
  if (typeof runId !== "string" || runId.length === 0) return "event.runId must be a non-empty string";
  const rawCompletedAt = raw["completedAt"];
  if (rawCompletedAt !== undefined && (typeof rawCompletedAt !== "number" || !Number.isFinite(rawCompletedAt))) {
    return "completedAt must be a number";
  }
  const completedAt = typeof rawCompletedAt === "number" ? { completedAt: rawCompletedAt } : {};
  switch (kind) {
    case "started":
      return parseStarted(raw, runId);
    case "chunk": {
      const body = parseBody(raw["body"]);
      if (body === null) return "chunk event needs a body with a string type";
      return { kind, runId, body: body as never };
    }
    case "finished": {
      const summary = raw["summary"] ?? "";
      if (typeof summary !== "string") return "finished summary must be a string";
      return { kind, runId, summary, ...("output" in raw ? { output: raw["output"] } : {}), ...completedAt };
    }
    case "error": {
      const error = raw["error"];
      if (typeof error !== "string") return "error event needs error: string";
      return { kind, runId, error, ...completedAt };
    }
    case "aborted": {
      const error = raw["error"];
      if (!isOptionalString(error)) return "aborted error must be a string";
      return { kind, runId, ...(typeof error === "string" ? { error } : {}), ...completedAt };
    }
    case "interrupted":
      return parseInterrupted(raw, runId, completedAt);
    default:
      // Not String(kind): a null-prototype object (or a throwing toString) would throw.
      return `unknown event kind: ${typeof kind === "string" ? kind : typeof kind}`;
  }
}

function parseCleared(raw: Fields): AgentToolEvent | string {
  const runIds = raw["runIds"];
  if (!Array.isArray(runIds) || !runIds.every((id) => typeof id === "string" && id.length > 0)) {
    return "cleared event needs runIds: string[]";
  }
  return { kind: "cleared", runIds: [...runIds] as string[] };
}

function parseStarted(raw: Fields, runId: string): AgentToolEvent | string {
  const agentType = raw["agentType"];
  if (typeof agentType !== "string" || agentType.length === 0) return "started event needs agentType";
  const displayOrder = raw["displayOrder"] ?? 0;
  if (typeof displayOrder !== "number" || !Number.isFinite(displayOrder)) return "displayOrder must be a number";
  if (!isOptionalString(raw["inputPreview"])) return "inputPreview must be a string";
  const display = raw["display"];
  if (display !== undefined && !isObject(display)) return "display must be an object";
  const startedAt = raw["startedAt"];
  if (startedAt !== undefined && typeof startedAt !== "number") return "startedAt must be a number";
  const detached = raw["detached"];
  if (detached !== undefined && typeof detached !== "boolean") return "detached must be a boolean";
  return {
    kind: "started",
    runId,
    agentType,
    displayOrder,
    ...(typeof raw["inputPreview"] === "string" ? { inputPreview: raw["inputPreview"] } : {}),
    // Parsed from JSON text, so JSON.
    ...(display !== undefined ? { display: display as AgentToolDisplay } : {}),
    ...(typeof startedAt === "number" ? { startedAt } : {}),
    ...(detached === true ? { detached } : {}),
  };
}

function parseInterrupted(raw: Fields, runId: string, completedAt: { completedAt?: number }): AgentToolEvent | string {
  const error = raw["error"];
  const reason = raw["reason"];
  const childStillRunning = raw["childStillRunning"];
  if (typeof error !== "string") return "interrupted event needs error: string";
  if (reason !== undefined && !isAgentToolInterruptedReason(reason)) {
    return "interrupted event's reason must be a known reason";
  }
  if (childStillRunning !== undefined && typeof childStillRunning !== "boolean") {
    return "interrupted event's childStillRunning must be a boolean";
  }
  return {
    kind: "interrupted",
    runId,
    error,
    ...(reason !== undefined ? { reason } : {}),
    ...(childStillRunning !== undefined ? { childStillRunning } : {}),
    ...completedAt,
  };
}

/**
 * Parse one frame from the wire (a JSON string, or an already-parsed value). Never throws: malformed input,
 * unknown kinds and fields of the wrong type come back as `{ ok: false, error }`. Unknown extra fields are
 * dropped; a chunk body sent as a JSON string (the seed system's form) is decoded.
 */
export function parseAgentToolFrame(input: unknown): ParseAgentToolFrameResult {
  try {
    return parseFrame(input);
  } catch {
    // Only an already-parsed value with throwing getters (a proxy, an accessor) gets here; JSON text cannot.
    return fail("frame could not be read");
  }
}

function parseFrame(input: unknown): ParseAgentToolFrameResult {
  let raw: unknown = input;
  if (typeof input === "string") {
    try {
      raw = JSON.parse(input);
    } catch {
      return fail("frame is not valid JSON");
    }
  }
  if (!isObject(raw)) return fail("frame must be a JSON object");
  if (raw["type"] !== AGENT_TOOL_EVENT_TYPE) return fail(`frame type must be "${AGENT_TOOL_EVENT_TYPE}"`);
  const sequence = raw["sequence"];
  const revision = raw["revision"];
  const parentToolCallId = raw["parentToolCallId"];
  if (sequence !== undefined && sequence !== null && !isSequence(sequence)) {
    return fail("sequence must be a positive integer");
  }
  if (revision !== undefined && revision !== null && !isRevision(revision)) {
    return fail("revision must be a positive integer");
  }
  if (parentToolCallId !== undefined && parentToolCallId !== null && typeof parentToolCallId !== "string") {
    return fail("parentToolCallId must be a string");
  }
  if (!isObject(raw["event"])) return fail("frame.event must be an object");
  const event = parseEvent(raw["event"]);
  if (typeof event === "string") return fail(event);
  const frame: AgentToolEventFrame = {
    type: AGENT_TOOL_EVENT_TYPE,
    ...(typeof parentToolCallId === "string" ? { parentToolCallId } : {}),
    ...(isSequence(sequence) ? { sequence } : {}),
    ...(isRevision(revision) ? { revision } : {}),
    ...(raw["replay"] === true ? { replay: true as const } : {}),
    event,
  };
  return { ok: true, frame };
}
