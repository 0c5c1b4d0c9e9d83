import { type CoreRunEvent, isCoreRunEvent, type RunEvent } from "./channel.js";

/** How many run ids `agent_tool:clear` lists before "+N more". */
const MAX_LISTED_RUN_IDS = 10;

/** Fields every event has; an extension event's other fields are printed as `key=value`. */
const COMMON_FIELDS = new Set(["type", "at", "runId", "agentType"]);

/**
 * One readable line for a run event, for logs: the type, then `agentType/runId`, then the typed fields that
 * matter. Never prints inputs, outputs or objects; a string that is not a plain id or word is quoted with its
 * newlines and control characters escaped, so a line stays one line (nothing a client sent can forge another).
 *
 * @example
 * formatRunEvent(event); // "agent_tool:run:finish Researcher/agent-tool:call-1 completed 120ms"
 * subscribe("agentTool", (event) => console.log(`[agent-tools] ${formatRunEvent(event)}`));
 */
export function formatRunEvent(event: RunEvent): string {
  const parts = isCoreRunEvent(event) ? coreParts(event) : extensionParts(event);
  return [event.type, ...parts].join(" ");
}

function coreParts(event: CoreRunEvent): string[] {
  switch (event.type) {
    case "agent_tool:run:dispatch":
      return [
        subject(event),
        event.detached ? "detached" : "awaited",
        ...(event.parentToolCallId !== undefined ? [`toolCall=${token(event.parentToolCallId)}`] : []),
      ];
    case "agent_tool:run:start":
      return [subject(event)];
    case "agent_tool:run:rejected":
      return [subject(event), token(event.rejection)];
    case "agent_tool:run:finish":
      return [
        subject(event),
        token(event.status),
        ...(event.reason !== undefined ? [token(event.reason)] : []),
        // The child's own result goes unsaid; the parent's reasons are named.
        ...(event.cause !== undefined && event.cause !== "child" ? [`cause=${token(event.cause)}`] : []),
        `${event.durationMs}ms`,
        ...(event.previousStatus === "interrupted" ? ["(repaired)"] : []),
      ];
    case "agent_tool:run:reattach":
      return [subject(event), `after=${event.afterSequence}`];
    case "agent_tool:hook:error":
      return [token(event.hook), subject(event), token(event.errorName)];
    case "agent_tool:replay":
      return [
        `runs=${event.runs}`,
        `frames=${event.frames}`,
        `cleared=${event.cleared}`,
        event.withCursors ? "cursors" : "full",
      ];
    case "agent_tool:clear": {
      const listed = event.runIds.slice(0, MAX_LISTED_RUN_IDS).map(token);
      const more = event.runIds.length - listed.length;
      return [
        `runs=${event.runIds.length}`,
        ...(listed.length > 0 ? [listed.join(",")] : []),
        ...(more > 0 ? [`+${more} more`] : []),
      ];
    }
    case "agent_tool:child:turn:start":
      return [subject(event), ...(event.resumed ? ["resumed"] : [])];
    case "agent_tool:child:turn:finish":
      return [subject(event), token(event.status), `entries=${event.entries}`];
    case "agent_tool:run:progress":
      return [
        subject(event),
        ...(event.milestone !== undefined ? [`milestone=${token(event.milestone)}`] : []),
        ...(event.sequence !== undefined ? [`#${event.sequence}`] : []),
        ...(event.fraction !== undefined ? [`${Math.round(event.fraction * 100)}%`] : []),
        ...(event.phase !== undefined ? [`phase=${token(event.phase)}`] : []),
      ];
    case "agent_tool:child:recover":
      return [subject(event), token(event.outcome), `attempt=${event.attempt}`];
  }
}

function extensionParts(event: RunEvent): string[] {
  const record = event as Record<string, unknown>;
  const parts: string[] = [];
  const runId = record["runId"];
  const agentType = record["agentType"];
  if (typeof runId === "string") {
    parts.push(typeof agentType === "string" ? `${token(agentType)}/${token(runId)}` : token(runId));
  } else if (typeof agentType === "string") {
    parts.push(token(agentType));
  }
  for (const [key, value] of Object.entries(record)) {
    if (COMMON_FIELDS.has(key)) continue;
    const text = scalar(value);
    if (text !== undefined) parts.push(`${key}=${text}`);
  }
  return parts;
}

function subject(event: { agentType: string; runId: string }): string {
  return `${token(event.agentType)}/${token(event.runId)}`;
}

/** A primitive, or an array of primitives, as text; `undefined` for objects (never printed). */
function scalar(value: unknown): string | undefined {
  if (typeof value === "string") return token(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((item) => ["string", "number", "boolean"].includes(typeof item))) {
    return value.map((item) => (typeof item === "string" ? token(item) : String(item))).join(",");
  }
  return undefined;
}

/**
 * Characters JSON leaves as they are that still end a line or steer a terminal: C1 controls (NEL, CSI), DEL, the
 * line and paragraph separators, invisible format characters (bidi overrides). JSON escapes the C0 controls.
 */
const UNSAFE_IN_JSON = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A string field as it prints: as it is when it is plain (ids, enum values), else quoted with every newline and
 * control character escaped, so that a line stays one line and nothing a client sent (a cancel reason, an id) can
 * forge a log line or reach the terminal as an escape sequence.
 */
function token(text: string): string {
  if (/^[\w.:@/+-]+$/.test(text)) return text;
  return JSON.stringify(text).replace(UNSAFE_IN_JSON, (character) => {
    const code = character.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
