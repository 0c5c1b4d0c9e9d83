import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { DeliveryLedger } from "@agent-tools/detached";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import type { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import type { UIMessage } from "ai";
import type { FaultPoint, FaultReport } from "../../src/agents/fault-points.js";
import { agentFrames, framesOfRun, isTerminalKind, runIdOf } from "../harness/demo.js";
import {
  base,
  type ChildReplay,
  type ConversationView,
  chunksOfRequest,
  drillChild,
  fetchJsonWithin,
  type HookCounts,
  hooksOf,
  listMessages,
  listRuns,
  openEvents,
  type ResumeView,
  type RunRow,
  replayChildRun,
  requestEnded,
  resumeWithAiSdk,
  sendChat,
  textOfMessage,
  viewConversation,
  waitForFault,
} from "./kill-observe.js";

// The kill scenarios of issue 17, as functions of a running demo host: drive a chat turn to a fault point (or to a
// random moment), kill the runtime there, start it again, and return what a client then observes. The deterministic
// tests (kill-parent-turn, kill-delivery) assert on one kill per point; the kill matrix runs many and counts.

/** The turn every parent-turn scenario runs: the Assistant's text, its `importData` tool (an awaited Importer run),
 * then its answer. */
export const USER_TEXT = "import the data";
/** Scripted models with no pace: the fault points, not timing, decide where a turn is cut. */
export const BINDINGS: Record<string, string> = { DEMO_PACE_MS: "0" };
/** Text deltas that go out before a streaming fault point holds. */
export const DELTAS = 2;

/** The fault points of a parent turn (the delivery's is `delivery-answer`, its own scenario). */
export const TURN_POINTS = [
  "before-user-message",
  "parent-streaming",
  "child-streaming",
  "after-tool-result",
] as const satisfies readonly FaultPoint[];
export type TurnPoint = (typeof TURN_POINTS)[number];

/** Everything observed of a parent turn after the restart. */
export type TurnOutcome = {
  conversation: ConversationView;
  resume: ResumeView;
  runs: RunRow[];
  importerRuns: RunRow[];
  replay: ChildReplay | null;
  hooks: HookCounts | undefined;
  childTurns: { turns: number; resumedTurns: number } | null;
};

/** A kill of a parent turn: where it was cut, and what followed. */
export type TurnKill = {
  chatId: string;
  userMessageId: string;
  /** What the client had seen when the runtime was killed (see `stageSeen`). */
  stage: string;
  /** The id of the assistant message the client had begun to receive, if any. */
  partialId: string | null;
  reached: FaultReport | null;
  outcome: TurnOutcome;
};

const isImporterStarted = (frame: AgentToolEventFrame) =>
  frame.event.kind === "started" && frame.event.agentType === "Importer";

/** Boot on the same folder with a fault point armed (or none). Nothing is in flight: a plain restart. */
export function armFault(host: MiniflareHost, point: FaultPoint | null, bindings = BINDINGS): Promise<void> {
  return host.restart(
    point === null ? bindings : { ...bindings, DEMO_FAULT_POINT: point, DEMO_FAULT_TEXT_DELTAS: String(DELTAS) },
  );
}

/** A client sends the turn's message and follows it; its event socket watches. */
export async function startTurn(host: MiniflareHost, chatId: string) {
  const events = await openEvents(host, chatId);
  const chat = await sendChat(host, chatId, USER_TEXT, { requestId: `r-${chatId}`, userMessageId: `u-${chatId}` });
  return { chat, events };
}

/** After the restart: a fresh client connects, resumes the turn in flight (AI SDK), and reads what is stored. */
export async function observeTurn(host: MiniflareHost, chatId: string): Promise<TurnOutcome> {
  const events = await openEvents(host, chatId);
  try {
    const resume = await resumeWithAiSdk(host, chatId);
    const conversation = viewConversation(await listMessages(host, chatId), USER_TEXT);
    const runs = await listRuns(host, chatId);
    const importerRuns = runs.filter((run) => run.agentType === "Importer");
    const run = importerRuns[0];
    const replay = run ? await replayChildRun(host, chatId, run.runId) : null;
    const hooks = run ? await hooksOf(host, chatId, run.runId) : undefined;
    const drill = run ? await drillChild(host, chatId, "Importer", run.runId) : null;
    return {
      conversation,
      resume,
      runs,
      importerRuns,
      replay,
      hooks,
      childTurns: drill ? { turns: drill.turns, resumedTurns: drill.resumedTurns } : null,
    };
  } finally {
    events.close();
  }
}

/** The uninterrupted turn, to compare kills with. */
export async function runReference(host: MiniflareHost, chatId = "reference"): Promise<TurnOutcome> {
  const { chat, events } = await startTurn(host, chatId);
  await chat.waitFor((messages) => requestEnded(messages, `r-${chatId}`), 60_000);
  chat.close();
  events.close();
  return observeTurn(host, chatId);
}

/** What the client had seen of the turn when it was cut, from its sockets. */
export function stageSeen(chat: RecordingSocket, events: RecordingSocket, requestId: string): string {
  const chunks = chunksOfRequest(chat.messages, requestId);
  const started = agentFrames(events.messages).find(isImporterStarted);
  const importer = started ? framesOfRun(events.messages, runIdOf(started)) : [];
  if (requestEnded(chat.messages, requestId)) return "turn ended";
  if (importer.some((frame) => isTerminalKind(frame.event.kind))) return "after the tool result";
  if (importer.some((frame) => frame.event.kind === "chunk" && frame.event.body.type === "text-delta")) {
    return "child streaming";
  }
  if (started) return "child started";
  if (chunks.some((chunk) => chunk.type === "text-delta")) return "parent streaming";
  if (chunks.length > 0) return "turn started";
  return "before any answer";
}

/** Wait until the Importer run has logged `count` text deltas (they reach the parent's event socket from its log). */
async function importerDeltas(events: RecordingSocket, count: number): Promise<void> {
  const seen = (messages: unknown[]) => {
    const started = agentFrames(messages).find(isImporterStarted);
    if (!started) return 0;
    return framesOfRun(messages, runIdOf(started)).filter(
      (frame) => frame.event.kind === "chunk" && frame.event.body.type === "text-delta",
    ).length;
  };
  await events.waitFor((messages) => seen(messages) >= count, 60_000);
}

/**
 * Kill the runtime once a turn reached `point` (its fault point armed first), start it again without it, and
 * observe. At `before-user-message` nothing was stored: the client sends its message again, with the same id.
 */
export async function killAtTurnPoint(host: MiniflareHost, point: TurnPoint, chatId: string): Promise<TurnKill> {
  await armFault(host, point);
  const { chat, events } = await startTurn(host, chatId);
  const requestId = `r-${chatId}`;
  let reached: FaultReport | null = null;
  if (point === "child-streaming") await importerDeltas(events, DELTAS);
  else reached = await waitForFault(host, chatId);
  const stage = stageSeen(chat, events, requestId);
  const start = chunksOfRequest(chat.messages, requestId).find((chunk) => chunk.type === "start");
  await host.killAndRestart(BINDINGS);
  chat.close();
  events.close();
  if (point === "before-user-message") await resend(host, chatId);
  return {
    chatId,
    userMessageId: `u-${chatId}`,
    stage,
    partialId: start?.type === "start" ? (start.messageId ?? null) : null,
    reached,
    outcome: await observeTurn(host, chatId),
  };
}

/** The client sends its message again after the restart (same message id), and follows the answer to its end. */
async function resend(host: MiniflareHost, chatId: string): Promise<void> {
  const chat = await sendChat(host, chatId, USER_TEXT, { requestId: "r-resend", userMessageId: `u-${chatId}` });
  await chat.waitFor((messages) => requestEnded(messages, "r-resend"), 60_000);
  chat.close();
}

/**
 * Kill the runtime `delayMs` after a client sent the turn's message (no fault point: wherever the turn then is),
 * start it again, and observe. The client sends its message again if it was not stored.
 */
export async function killAtRandomMoment(host: MiniflareHost, chatId: string, delayMs: number): Promise<TurnKill> {
  const { chat, events } = await startTurn(host, chatId);
  // The delay only picks where to cut; nothing waits on it.
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const requestId = `r-${chatId}`;
  const stage = stageSeen(chat, events, requestId);
  const start = chunksOfRequest(chat.messages, requestId).find((chunk) => chunk.type === "start");
  await host.killAndRestart();
  chat.close();
  events.close();
  const stored = viewConversation(await listMessages(host, chatId), USER_TEXT);
  if (stored.userMessages === 0) await resend(host, chatId);
  return {
    chatId,
    userMessageId: `u-${chatId}`,
    stage: stored.userMessages === 0 ? `${stage} (message not stored: sent again)` : stage,
    partialId: start?.type === "start" ? (start.messageId ?? null) : null,
    reached: null,
    outcome: await observeTurn(host, chatId),
  };
}

/** How a kill of a parent turn came out, as the figures count it. */
export type TurnVerdict = {
  userMessageOnce: boolean;
  toolCallOnce: boolean;
  /** One child run, bound to the stored tool call, terminal; its log gap-free; its hooks called once. */
  childRunOnce: boolean;
  /** `resumed` only when the answer is the uninterrupted run's; `other` for any other answer. */
  answer: ConversationView["answer"] | "other";
  /** The answer is the message the client had begun to receive (same id), when it had begun one. */
  partialFinished: boolean;
  clientError: boolean;
  childReplayEqual: boolean;
};

export function judgeTurn(kill: TurnKill, reference: TurnOutcome): TurnVerdict {
  const { conversation, resume, importerRuns, replay, hooks, runs } = kill.outcome;
  const toolCallId = conversation.toolCalls[0]?.toolCallId;
  return {
    userMessageOnce: conversation.userMessageIds.length === 1 && conversation.userMessageIds[0] === kill.userMessageId,
    toolCallOnce: conversation.toolCalls.length === 1 && conversation.toolCalls[0]?.state === "output-available",
    childRunOnce:
      importerRuns.length === 1 &&
      importerRuns[0]?.runId === `agent-tool:${toolCallId}` &&
      runs.every((run) => run.status === "completed") &&
      replay?.gapFree === true &&
      replay.conflicts === 0 &&
      replay.terminal === "finished" &&
      hooks?.start === 1 &&
      JSON.stringify(hooks.finish) === JSON.stringify({ completed: 1 }),
    answer:
      conversation.answer === "resumed" && conversation.answerText !== reference.conversation.answerText
        ? "other"
        : conversation.answer,
    partialFinished: kill.partialId === null || kill.partialId === conversation.answerId,
    clientError: resume.error !== null,
    childReplayEqual: replay !== null && replay.text === reference.replay?.text,
  };
}

// ------------------------------------------------------------------------------------------------ the delivery

type BackgroundRun = { runId: string; status: string; revision: number; delivery: DeliveryLedger };
type AgentChatFrame = { type: string; event?: { kind?: string; origin?: string } };

const COMPLETION_SOURCE = "background-import";
const ANSWER_SOURCE = "assistant:server-turn";

const bySource = (messages: UIMessage[], source: string) =>
  messages.filter((message) => (message.metadata as { source?: string } | undefined)?.source === source);

/** A kill in the middle of a background run's delivery, and what followed. */
export type DeliveryKill = {
  chatId: string;
  runId: string;
  /** The claim's lease end when the runtime was killed (epoch ms). */
  leaseEnd: number;
  /** The id of the answer the connected client had begun to receive. */
  partialId: string | null;
  /** The delivery's ledger once settled after the restart, and when (epoch ms) that was seen. */
  settled: BackgroundRun | null;
  settledSeenAt: number;
  resume: ResumeView;
  messages: UIMessage[];
  completions: UIMessage[];
  answers: UIMessage[];
};

/**
 * A background import's completion is told to the chat and the model answers it in a server turn, which a connected
 * client follows (the `resume` a tab sends on `turn-started`); the runtime is killed once the answer has streamed
 * `DELTAS` text deltas (`delivery-answer` armed), started again, and the client reconnects.
 */
export async function killDuringDelivery(host: MiniflareHost, chatId: string): Promise<DeliveryKill> {
  await armFault(host, "delivery-answer");
  const events = await openEvents(host, chatId);
  const chat = await sendChat(host, chatId, "please import the data in the background", {
    requestId: "r-start",
    userMessageId: `u-${chatId}`,
  });
  await chat.waitFor((messages) => requestEnded(messages, "r-start"), 60_000);
  await events.waitFor(
    (messages) =>
      (messages as AgentChatFrame[]).some(
        (frame) =>
          frame.type === "agent-chat-event" && frame.event?.kind === "turn-started" && frame.event.origin === "server",
      ),
    60_000,
  );
  chat.send({ type: "resume", requestId: "r-follow", id: chatId, headers: {}, body: {} });
  await waitForFault(host, chatId);
  await chat.waitFor(
    (messages) => chunksOfRequest(messages, "r-follow").filter((chunk) => chunk.type === "text-delta").length >= DELTAS,
  );
  const start = chunksOfRequest(chat.messages, "r-follow").find((chunk) => chunk.type === "start");
  const claimed = (await host.fetchJson<BackgroundRun[]>(`${base(chatId)}/background`))[0];
  const leaseEnd = claimed?.delivery.claim?.notBefore ?? 0;
  await host.killAndRestart(BINDINGS);
  chat.close();
  events.close();

  // The client reconnects: its event socket wakes the Assistant, and it resumes the chat as the AI SDK does.
  const reconnected = await openEvents(host, chatId);
  const resume = await resumeWithAiSdk(host, chatId);
  const settled = await fetchJsonWithin<BackgroundRun>(
    host,
    `${base(chatId)}/background/settled?runId=${encodeURIComponent(claimed?.runId ?? "")}`,
    // Waiting past the lease's end would only show the old behaviour (a retry when the lease ran out).
    Math.max(1_000, leaseEnd - Date.now() + 5_000),
  ).catch(() => null);
  const settledSeenAt = Date.now();
  reconnected.close();
  const messages = await listMessages(host, chatId);
  return {
    chatId,
    runId: claimed?.runId ?? "",
    leaseEnd,
    partialId: start?.type === "start" ? (start.messageId ?? null) : null,
    settled,
    settledSeenAt,
    resume,
    messages,
    completions: bySource(messages, COMPLETION_SOURCE),
    answers: bySource(messages, ANSWER_SOURCE),
  };
}

/** How a kill during a delivery came out, as the figures count it. */
export type DeliveryVerdict = {
  /** Settled (delivered) before the claim's lease ran out, i.e. at start-up. */
  deliveredAtStartUp: boolean;
  /** One completion message and one answer to it, right after it. */
  exactlyOnce: boolean;
  /** The answer the client had begun to receive is the one stored whole (same id), with the expected text. */
  partialFinished: boolean;
  clientError: boolean;
};

export function judgeDelivery(kill: DeliveryKill): DeliveryVerdict {
  const { completions, answers, messages, settled } = kill;
  const ids = messages.map((message) => message.id);
  const completionText = textOfMessage(completions[0]);
  return {
    deliveredAtStartUp:
      settled !== null &&
      settled.delivery.settledRevision === settled.revision &&
      settled.delivery.claim === undefined &&
      kill.settledSeenAt < kill.leaseEnd,
    exactlyOnce:
      completions.length === 1 &&
      answers.length === 1 &&
      ids.indexOf(answers[0]?.id ?? "") === ids.indexOf(completions[0]?.id ?? "") + 1,
    partialFinished:
      answers[0]?.id === kill.partialId &&
      textOfMessage(answers[0]) === `Update on your background task: ${completionText}`,
    clientError: kill.resume.error !== null,
  };
}
