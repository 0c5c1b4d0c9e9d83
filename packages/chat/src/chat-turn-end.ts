import { assembleMessage, errorMessage, foldJournal, planResume } from "@agent-tools/core-runs";
import {
  AGENT_USAGE_PART,
  type AgentChatTurnStatus,
  FAILED_TURN_TEXT,
  usageChunk,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage, UIMessageChunk } from "ai";
import type { ActiveTurn } from "./active-turn.js";
import { UNSTORED_TURN_TEXT } from "./chat-engine-options.js";
import type { ChatRuntime } from "./chat-runtime.js";
import type { StoredChatTurn } from "./ports/chat-store.js";
import type { TurnEnd } from "./turn-machine.js";
import {
  closeUnfinishedToolCalls,
  STOPPED_TOOL_CALL_TEXT,
  UNFINISHED_TOOL_CALL_TEXT,
} from "./unfinished-tool-calls.js";

/** Store the turn's answer and forget the turn; end every follower's stream; tell every client. @internal */
export async function endChatTurn<TPeer>(
  runtime: ChatRuntime<TPeer>,
  active: ActiveTurn<TPeer>,
): Promise<UIMessage | null> {
  // A turn that ends in any other way than its stream's end ends as the machine says (a fail, a stop).
  if (active.state.phase !== "ending") active.apply({ type: "fail", errorText: "The turn ended unexpectedly" });
  await active.writer.dispose();
  const { turnId, assistantMessageId } = active.stored;
  const end = active.state.end ?? "error";
  // Whatever way the turn ended, no tool call is left without a result (a stream may also end early by itself).
  const text = end === "aborted" ? STOPPED_TOOL_CALL_TEXT : UNFINISHED_TOOL_CALL_TEXT;
  const { kept, closing } = closeUnfinishedToolCalls(active.chunks, text, { closeApprovals: end !== "completed" });
  const chunks = [...kept, ...closing];
  // The turn's row goes with its end: the last usage write lands first, and none comes after.
  await active.usage.close();
  // Followers see each call closed before their stream ends; the stored answer has the same.
  for (const chunk of closing) active.push(chunk, { write: false });
  // What the turn's tree spent goes with its answer (a `data-agent-usage` part, with the turn's own share), so that a
  // reload, or a tab opened later, shows it too.
  const spent = usageChunk(active.budget.total(), active.budget.own());
  let answer = await assembleAnswer(chunks, assistantMessageId, spent);
  // A failed answer says so where it is stored, for every tab and every later reload, not only in the sender's
  // error frame.
  if (end === "error") answer = withNotice(answer, assistantMessageId, failedTurnText(active.state.errorText));
  try {
    const stored = answer;
    await runtime.write(() => runtime.options.store.finishTurn(turnId, stored));
    if (stored) runtime.held(stored);
    active.apply({ type: "stored" });
  } catch (error) {
    runtime.storeFailed(turnId, "finish", error);
    answer = await finishWithNotice(runtime, active.stored, chunks, UNSTORED_TURN_TEXT);
    active.apply({ type: "store-failed", errorText: `${UNSTORED_TURN_TEXT} ${errorMessage(error)}` });
  }
  if (runtime.active === active) runtime.active = null;
  const status = turnStatus(active.state.end);
  const errorText = active.state.errorText;
  active.sendToFollowers((requestId) =>
    status === "error"
      ? { type: "error", requestId, errorText: errorText ?? "The answer failed" }
      : { type: "end", requestId },
  );
  runtime.options.announce({
    kind: "turn-ended",
    turnId,
    status,
    ...(answer ? { message: answer } : {}),
    usage: active.budget.total(),
  });
  runtime.emit({
    type: "agent_tool:chat:turn:end",
    turnId,
    status,
    ...(status === "error" && errorText !== undefined ? { errorText } : {}),
  });
  return answer;
}

/**
 * Close a stored turn that will not run again (interrupted too often, or lost): keep what its journal holds (what was
 * still streaming at the cut aside), close its unfinished calls, and say so.
 * @internal
 */
export async function closeChatTurn<TPeer>(
  runtime: ChatRuntime<TPeer>,
  stored: StoredChatTurn,
  notice: string,
  status: AgentChatTurnStatus,
): Promise<void> {
  let kept: UIMessageChunk[] = [];
  try {
    const chunks = await runtime.options.store.turnChunks(stored.turnId);
    const entries = chunks.map((body, index) => ({ sequence: index + 1, body }));
    const voided = new Set(planResume(foldJournal(entries), new Set()).voided);
    kept = entries.filter((entry) => !voided.has(entry.sequence)).map((entry) => entry.body);
  } catch (error) {
    runtime.storeFailed(stored.turnId, "read", error);
  }
  const { kept: closed, closing } = closeUnfinishedToolCalls(kept, UNFINISHED_TOOL_CALL_TEXT);
  const answer = await finishWithNotice(runtime, stored, [...closed, ...closing], notice);
  runtime.options.announce({
    kind: "turn-ended",
    turnId: stored.turnId,
    status,
    ...(answer ? { message: answer } : {}),
  });
  runtime.emit({ type: "agent_tool:chat:turn:end", turnId: stored.turnId, status, errorText: notice });
}

/**
 * Store a turn's answer with `notice` after what it made, or — when even that cannot be stored — the notice alone;
 * resolves what was stored (`null` when nothing could be: the turn stays stored and start-up tries again).
 */
async function finishWithNotice<TPeer>(
  runtime: ChatRuntime<TPeer>,
  stored: StoredChatTurn,
  chunks: UIMessageChunk[],
  notice: string,
): Promise<UIMessage | null> {
  const partial = await assembleAnswer(chunks, stored.assistantMessageId);
  const whole = withNotice(partial, stored.assistantMessageId, notice);
  const bare = withNotice(null, stored.assistantMessageId, notice);
  for (const answer of [whole, bare]) {
    try {
      await runtime.write(() => runtime.options.store.finishTurn(stored.turnId, answer));
      runtime.held(answer);
      return answer;
    } catch (error) {
      runtime.storeFailed(stored.turnId, "finish", error);
    }
  }
  return null;
}

/** A turn's end as a client hears it (`dropped` sends never became turns). */
function turnStatus(end: TurnEnd | undefined): AgentChatTurnStatus {
  return end === undefined || end === "dropped" ? "error" : end;
}

/** The text a failed answer ends with. */
export function failedTurnText(errorText: string | undefined): string {
  return errorText === undefined ? FAILED_TURN_TEXT : `${FAILED_TURN_TEXT} ${errorText}`;
}

/** `answer` (or an empty answer) with a text part `notice` after what it holds. */
function withNotice(answer: UIMessage | null, id: string, notice: string): UIMessage {
  return {
    id,
    role: "assistant",
    ...(answer?.metadata !== undefined ? { metadata: answer.metadata } : {}),
    parts: [...(answer?.parts ?? []), { type: "text", text: notice, state: "done" }],
  };
}

/** The answer the chunks make (with `usage` last, when given), or `null` when they make none. */
async function assembleAnswer(
  chunks: readonly UIMessageChunk[],
  id: string,
  usage?: UIMessageChunk,
): Promise<UIMessage | null> {
  const assembled = await assembleMessage(usage ? [...chunks, usage] : chunks, id);
  return assembled?.parts.some((part) => part.type !== AGENT_USAGE_PART) ? assembled : null;
}
