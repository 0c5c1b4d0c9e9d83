import {
  AGENT_CHAT_EVENT_TYPE,
  type AgentChatEventFrame,
  type AgentChatTurnStatus,
  type AgentToolEventFrame,
  type AgentToolRunInfo,
  type AgentToolUsage,
  FAILED_TURN_TEXT,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";

/** One turn of a stored conversation: what was said before its answer, and the answer (none for the turn in flight). */
type StoredTurn = { said: UIMessage[]; answer: UIMessage | null; runs: string[] };

/**
 * The replay of a parent's conversation, in the order it happened: for each answered turn, its start (its AG-UI run
 * id: the answer's message id), what was said before it, the frames of the runs its answer's tool calls dispatched,
 * and its end with the stored answer; then what was said after the last answer; then the turn in flight — its start,
 * what it spent so far, its runs (its answer's chunks come from whoever follows it). Runs tied to no told turn go first, outside any turn.
 * `from` is how many stored messages the client holds already: those turns are not told again (their runs' frames
 * still come, outside any turn, for a client to drop what it holds). Project it with `followsAnswer`: each run then
 * waits for its tool call in the answer.
 *
 * @experimental New API: it may change without a major version.
 */
export function conversationReplay(options: {
  messages: UIMessage[];
  from: number;
  runs: AgentToolRunInfo[];
  frames: Map<string, AgentToolEventFrame[]>;
  activeTurn: { turnId: string; rootId: string; usage?: AgentToolUsage } | null;
}): Array<AgentToolEventFrame | AgentChatEventFrame> {
  const { messages, runs, frames, activeTurn } = options;
  const turns: StoredTurn[] = [];
  let said: UIMessage[] = [];
  for (const message of messages.slice(options.from)) {
    if (message.role !== "assistant") {
      said.push(message);
      continue;
    }
    turns.push({ said, answer: message, runs: [] });
    said = [];
  }
  const inFlight: StoredTurn = { said, answer: null, runs: [] };
  const byCall = new Map<string, StoredTurn>();
  for (const turn of turns) {
    for (const part of turn.answer?.parts ?? []) {
      const toolCallId = (part as { toolCallId?: unknown }).toolCallId;
      if (typeof toolCallId === "string") byCall.set(toolCallId, turn);
    }
  }
  const outside: string[] = [];
  for (const run of runs) {
    const turn =
      activeTurn && run.tree?.rootId === activeTurn.rootId
        ? inFlight
        : run.parentToolCallId !== undefined
          ? byCall.get(run.parentToolCallId)
          : undefined;
    (turn ? turn.runs : outside).push(run.runId);
  }
  const framesOf = (runIds: string[]) => runIds.flatMap((runId) => frames.get(runId) ?? []);
  const sources: Array<AgentToolEventFrame | AgentChatEventFrame> = [...framesOf(outside)];
  const chat = (event: AgentChatEventFrame["event"]): AgentChatEventFrame => ({ type: AGENT_CHAT_EVENT_TYPE, event });
  for (const turn of turns) {
    const answer = turn.answer as UIMessage;
    sources.push(
      ...turn.said.map((message) => chat({ kind: "message", message })),
      chat({ kind: "turn-started", turnId: answer.id, origin: "client", resumed: false }),
      ...framesOf(turn.runs),
      chat({ kind: "turn-ended", turnId: answer.id, status: statusOf(answer), message: answer }),
    );
  }
  sources.push(...inFlight.said.map((message) => chat({ kind: "message", message })));
  if (activeTurn) {
    const { turnId, usage } = activeTurn;
    sources.push(
      chat({ kind: "turn-started", turnId, origin: "client", resumed: false }),
      ...(usage ? [chat({ kind: "turn-usage", turnId, usage })] : []),
      ...framesOf(inFlight.runs),
    );
  } else {
    sources.push(...framesOf(inFlight.runs));
  }
  return sources;
}

/** How a stored answer's turn ended, as far as the answer tells: failed when it says so, else completed. */
function statusOf(answer: UIMessage): AgentChatTurnStatus {
  const text = answer.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  return text.includes(FAILED_TURN_TEXT) ? "error" : "completed";
}
