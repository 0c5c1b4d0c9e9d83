import type { UIMessage, UIMessageChunk } from "ai";
import type {
  AgentToolLogEntry,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolRunInspection,
  AgentToolTailItem,
  ChildRunStatus,
} from "./run-types.js";
import { isObject } from "./unknown-values.js";

/**
 * Drill-in: a WebSocket to one child run, reached through its parent's route (by default `sub/<agentType>/<runId>`
 * under the parent agent's URL). The child sends one {@link AgentToolChildMessagesFrame} with its conversation so
 * far, then one {@link AgentToolChildChunkFrame} per tail item, in order: durable log entries after the snapshot,
 * ephemeral progress, and last (when the run ends) its terminal inspection, after which the child closes the socket
 * (code 1000). A client that loses the socket opens a new one and gets the conversation again: no cursor is needed.
 */
export const AGENT_TOOL_CHILD_MESSAGES_TYPE = "child-messages";
export const AGENT_TOOL_CHILD_CHUNK_TYPE = "child-chunk";

/**
 * The child's conversation when the drill-in socket opened: its input as a user message and the assistant message
 * assembled from its log (without the entries a step reset voids), and the run's inspection (`null` for a run the
 * child does not know). The assistant message holds the log up to `run.lastSequence` (both come from one read of the
 * log); the chunk frames that follow carry the entries after it.
 */
export type AgentToolChildMessagesFrame = {
  type: typeof AGENT_TOOL_CHILD_MESSAGES_TYPE;
  runId: string;
  messages: UIMessage[];
  run: AgentToolRunInspection | null;
};

/** One item of the child's tail, live. */
export type AgentToolChildChunkFrame = {
  type: typeof AGENT_TOOL_CHILD_CHUNK_TYPE;
  runId: string;
  item: AgentToolTailItem;
};

/** A message on a drill-in socket. */
export type AgentToolDrillInFrame = AgentToolChildMessagesFrame | AgentToolChildChunkFrame;

/** The result of parsing a drill-in frame: never throws. */
export type ParseAgentToolDrillInFrameResult =
  | { ok: true; frame: AgentToolDrillInFrame }
  | { ok: false; error: string };

/** Serialize a drill-in frame to the JSON text the wire carries. */
export function encodeAgentToolDrillInFrame(frame: AgentToolDrillInFrame): string {
  return JSON.stringify(frame);
}

const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isSequence = (value: unknown): value is number => isCount(value) && value >= 1;
const CHILD_STATUSES: readonly unknown[] = ["running", "completed", "error", "aborted"] satisfies ChildRunStatus[];
const MESSAGE_ROLES: readonly unknown[] = ["system", "user", "assistant"] satisfies UIMessage["role"][];

/**
 * A chunk body read as untrusted data: a `UIMessageChunk` given as an object or (the seed system's form) as its JSON
 * text. `null` for anything else (not JSON, not an object, no string `type`). Never throws.
 */
export function readUIMessageChunkBody(body: unknown): UIMessageChunk | null {
  let value = body;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return isObject(value) && typeof value["type"] === "string" ? (value as UIMessageChunk) : null;
}

/** A message with an id, a known role and its well-formed parts (a malformed part is dropped, not the message). */
function readMessage(raw: unknown): UIMessage | null {
  if (!isObject(raw) || typeof raw["id"] !== "string" || !MESSAGE_ROLES.includes(raw["role"])) return null;
  const parts = raw["parts"];
  if (!Array.isArray(parts)) return null;
  const kept = parts.filter((part) => isObject(part) && typeof part["type"] === "string");
  return { ...raw, parts: kept } as UIMessage;
}

function readMilestone(raw: unknown): AgentToolMilestone | null {
  if (!isObject(raw) || !isSequence(raw["sequence"]) || typeof raw["name"] !== "string" || !isTime(raw["at"])) {
    return null;
  }
  return raw as AgentToolMilestone;
}

function readProgress(raw: unknown): AgentToolProgressSnapshot | undefined {
  return isObject(raw) && isTime(raw["at"]) ? (raw as AgentToolProgressSnapshot) : undefined;
}

/** An inspection with the fields a client reads checked; malformed optional fields are dropped. */
function readInspection(raw: unknown, runId: string): AgentToolRunInspection | string {
  if (!isObject(raw)) return "run must be an object or null";
  if (raw["runId"] !== runId) return "run.runId must be the frame's runId";
  if (!CHILD_STATUSES.includes(raw["status"])) return "run.status must be a child run status";
  if (!isCount(raw["lastSequence"])) return "run.lastSequence must be a non-negative integer";
  if (!isTime(raw["startedAt"])) return "run.startedAt must be a number";
  const milestones = Array.isArray(raw["milestones"]) ? raw["milestones"] : [];
  const progress = readProgress(raw["progress"]);
  const inspection: AgentToolRunInspection = {
    runId,
    status: raw["status"] as ChildRunStatus,
    milestones: milestones.flatMap((item) => readMilestone(item) ?? []),
    lastSequence: raw["lastSequence"],
    startedAt: raw["startedAt"],
    ...(typeof raw["summary"] === "string" ? { summary: raw["summary"] } : {}),
    ...("output" in raw ? { output: raw["output"] } : {}),
    ...(typeof raw["error"] === "string" ? { error: raw["error"] } : {}),
    ...(progress ? { progress } : {}),
    ...(isTime(raw["completedAt"]) ? { completedAt: raw["completedAt"] } : {}),
  };
  return inspection;
}

function readEntry(raw: unknown): AgentToolLogEntry | null {
  if (!isObject(raw) || !isSequence(raw["sequence"]) || !isTime(raw["at"])) return null;
  const body = readUIMessageChunkBody(raw["body"]);
  return body ? { sequence: raw["sequence"], body, at: raw["at"] } : null;
}

function readTailItem(raw: unknown, runId: string): AgentToolTailItem | string {
  if (!isObject(raw)) return "item must be an object";
  switch (raw["type"]) {
    case "entries": {
      if (!Array.isArray(raw["entries"])) return "entries item needs entries: array";
      // A malformed entry is dropped; the batch's other entries still count.
      const entries = raw["entries"].flatMap((entry) => readEntry(entry) ?? []);
      return entries.length > 0 ? { type: "entries", entries } : "entries item has no well-formed entry";
    }
    case "progress": {
      const body = readUIMessageChunkBody(raw["body"]);
      if (!body || !isTime(raw["at"])) return "progress item needs a chunk body and at: number";
      return { type: "progress", body, at: raw["at"], ...(raw["catchUp"] === true ? { catchUp: true as const } : {}) };
    }
    case "terminal": {
      const inspection = readInspection(raw["inspection"], runId);
      return typeof inspection === "string"
        ? inspection.replace(/^run/, "inspection")
        : { type: "terminal", inspection };
    }
    default:
      return "item.type must be entries, progress or terminal";
  }
}

function parseDrillInFrame(input: unknown): ParseAgentToolDrillInFrameResult {
  let raw: unknown = input;
  if (typeof input === "string") {
    try {
      raw = JSON.parse(input);
    } catch {
      return { ok: false, error: "frame is not valid JSON" };
    }
  }
  if (!isObject(raw)) return { ok: false, error: "frame must be a JSON object" };
  const runId = raw["runId"];
  if (typeof runId !== "string" || runId.length === 0) return { ok: false, error: "runId must be a non-empty string" };
  if (raw["type"] === AGENT_TOOL_CHILD_MESSAGES_TYPE) {
    if (!Array.isArray(raw["messages"])) return { ok: false, error: "messages must be an array" };
    const messages = raw["messages"].flatMap((message) => readMessage(message) ?? []);
    const run = raw["run"] === null || raw["run"] === undefined ? null : readInspection(raw["run"], runId);
    if (typeof run === "string") return { ok: false, error: run };
    return { ok: true, frame: { type: AGENT_TOOL_CHILD_MESSAGES_TYPE, runId, messages, run } };
  }
  if (raw["type"] === AGENT_TOOL_CHILD_CHUNK_TYPE) {
    const item = readTailItem(raw["item"], runId);
    if (typeof item === "string") return { ok: false, error: item };
    return { ok: true, frame: { type: AGENT_TOOL_CHILD_CHUNK_TYPE, runId, item } };
  }
  return {
    ok: false,
    error: `frame type must be "${AGENT_TOOL_CHILD_MESSAGES_TYPE}" or "${AGENT_TOOL_CHILD_CHUNK_TYPE}"`,
  };
}

/**
 * Parse one message of a drill-in socket (JSON text, or an already-parsed value). Never throws: anything that is
 * not a drill-in frame comes back as `{ ok: false, error }`. Within a well-formed frame, malformed pieces that can
 * be left out are (a message part, a message, a log entry of a batch, a milestone, an optional field); the
 * `runId` of the inspection must be the frame's.
 */
export function parseAgentToolDrillInFrame(input: unknown): ParseAgentToolDrillInFrameResult {
  try {
    return parseDrillInFrame(input);
  } catch {
    // Only an already-parsed value with throwing getters (a proxy, an accessor) gets here; JSON text cannot.
    return { ok: false, error: "frame could not be read" };
  }
}
