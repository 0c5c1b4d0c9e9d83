import type { UIMessage } from "ai";
import { isObject } from "./unknown-values.js";
import { AGENT_USAGE_PART, type AgentToolUsage, readUsageChunk } from "./usage.js";

/** The `type` of the conversation frames a chat host sends on the parent's event socket (beside agent-tool frames). */
export const AGENT_CHAT_EVENT_TYPE = "agent-chat-event";

/**
 * The error result a tool call gets when the turn it belongs to is stopped before the tool finished (the model and
 * every tab see it; a page can tell such a call from one whose tool failed). The same words are the reason the turn's
 * runs are cancelled with: one fact, one wording.
 */
export const STOPPED_TOOL_CALL_TEXT = "Stopped by the user";

/** The error result a tool call gets when its turn failed or was interrupted before the tool finished. */
export const UNFINISHED_TOOL_CALL_TEXT = "The answer ended before this tool finished";

/** How the last text of an answer that failed starts (its error follows): stored, so every tab and reload sees it. */
export const FAILED_TURN_TEXT = "This answer failed:";

/** How a turn of the parent's conversation ended. */
export type AgentChatTurnStatus = "completed" | "aborted" | "error" | "interrupted";

/**
 * What happened to the parent's conversation, for every open client (a second tab, a page that was away):
 * - `message`: a message was stored outside this client's own request — another tab's user message, a background
 *   run's completion told to the chat — (a client adds or replaces it by id);
 * - `turn-started`: a turn is streaming: a client that is not following it resumes the chat stream to see it live;
 * - `turn-ended`: the turn ended; its answer as stored (`message`), or none;
 * - `history`: the conversation was rewritten (an edit, a regenerate): a client reloads it;
 * - `turn-usage`: what the turn's tree (its model and every run below it) spent so far (also on `turn-ended`).
 */
export type AgentChatEvent =
  | { kind: "message"; message: UIMessage }
  | { kind: "turn-started"; turnId: string; origin: "client" | "server"; resumed: boolean }
  | { kind: "turn-ended"; turnId: string; status: AgentChatTurnStatus; message?: UIMessage; usage?: AgentToolUsage }
  | { kind: "turn-usage"; turnId: string; usage: AgentToolUsage }
  | { kind: "history" };

/** One conversation frame. */
export type AgentChatEventFrame = { type: typeof AGENT_CHAT_EVENT_TYPE; event: AgentChatEvent };

const TURN_STATUSES: readonly string[] = ["completed", "aborted", "error", "interrupted"];

const isMessage = (value: unknown): value is UIMessage =>
  isObject(value) &&
  typeof value["id"] === "string" &&
  (value["role"] === "user" || value["role"] === "assistant" || value["role"] === "system") &&
  Array.isArray(value["parts"]);

/** Read a conversation frame (JSON text or a parsed value); `null` for anything else. Never throws. */
export function parseAgentChatEventFrame(input: unknown): AgentChatEventFrame | null {
  let value = input;
  if (typeof input === "string") {
    if (!input.includes(AGENT_CHAT_EVENT_TYPE)) return null;
    try {
      value = JSON.parse(input);
    } catch {
      return null;
    }
  }
  if (!isObject(value) || value["type"] !== AGENT_CHAT_EVENT_TYPE || !isObject(value["event"])) return null;
  const event = value["event"];
  switch (event["kind"]) {
    case "message":
      return isMessage(event["message"])
        ? { type: AGENT_CHAT_EVENT_TYPE, event: { kind: "message", message: event["message"] } }
        : null;
    case "turn-started": {
      const { turnId, origin, resumed } = event;
      if (typeof turnId !== "string" || (origin !== "client" && origin !== "server") || typeof resumed !== "boolean") {
        return null;
      }
      return { type: AGENT_CHAT_EVENT_TYPE, event: { kind: "turn-started", turnId, origin, resumed } };
    }
    case "turn-ended": {
      const { turnId, status, message } = event;
      if (typeof turnId !== "string" || typeof status !== "string" || !TURN_STATUSES.includes(status)) return null;
      if (message !== undefined && !isMessage(message)) return null;
      const usage = readUsageChunk({ type: AGENT_USAGE_PART, data: event["usage"] });
      return {
        type: AGENT_CHAT_EVENT_TYPE,
        event: {
          kind: "turn-ended",
          turnId,
          status: status as AgentChatTurnStatus,
          ...(message !== undefined ? { message } : {}),
          ...(usage !== null ? { usage } : {}),
        },
      };
    }
    case "turn-usage": {
      const usage = readUsageChunk({ type: AGENT_USAGE_PART, data: event["usage"] });
      const { turnId } = event;
      if (typeof turnId !== "string" || usage === null) return null;
      return { type: AGENT_CHAT_EVENT_TYPE, event: { kind: "turn-usage", turnId, usage } };
    }
    case "history":
      return { type: AGENT_CHAT_EVENT_TYPE, event: { kind: "history" } };
    default:
      return null;
  }
}

/** Serialize a conversation frame to the JSON text the wire carries. */
export function encodeAgentChatEventFrame(frame: AgentChatEventFrame): string {
  return JSON.stringify(frame);
}
