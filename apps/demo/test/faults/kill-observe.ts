import type { AgentToolEventFrame } from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { type UIMessage, type UIMessageChunk, WebSocketChatTransport } from "ai";
import type { FaultReport } from "../../src/agents/fault-points.js";
import { chatSendRequest, demoWsUrl, framesOfRun, isTerminalKind, voidedSequences } from "../harness/demo.js";

// What the kill tests (issue 17) observe of the Assistant after the runtime was killed and started again, the way
// a client sees it: the stored conversation (`/messages`), the AI SDK's WebSocket chat transport resuming the turn
// in flight, the event socket's replay of every child run, the runs, the hook journal. Each observation is data,
// so that the deterministic tests assert on it and the kill matrix counts it.

/** The text of the interrupted-turn line (`INTERRUPTED_TURN_TEXT` of @agent-tools/cloudflare). */
export const INTERRUPTED_LINE = "This answer was interrupted before it could finish.";

/** A chat socket frame of the AI SDK's WebSocket chat protocol. */
export type ChatFrame = { type: string; requestId?: string; sequence?: number; chunk?: UIMessageChunk };
export type RunRow = { runId: string; agentType: string; status: string; parentToolCallId?: string };
export type HookCounts = { runId: string; start: number; finish: Record<string, number> };
type ToolPart = { type: string; toolCallId: string; state?: string };
type ChildDrill = { turns: number; resumedTurns: number; run: { status: string } | null };

export const base = (chatId: string) => `/agents/assistant/${chatId}`;

/** `host.fetchJson`, bounded: rejects after `timeoutMs` (a long-poll that never answers fails the test). */
export async function fetchJsonWithin<TResult>(host: MiniflareHost, path: string, timeoutMs: number): Promise<TResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`GET ${path}: no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([host.fetchJson<TResult>(path), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Answers once the Assistant's armed fault point is reached (`GET …/fault` waits for it). */
export function waitForFault(host: MiniflareHost, chatId: string, timeoutMs = 60_000): Promise<FaultReport> {
  return fetchJsonWithin<FaultReport>(host, `${base(chatId)}/fault`, timeoutMs);
}

/**
 * Read until `done(value)` holds, at most `timeoutMs`; resolves the last value read either way (the caller asserts
 * on it). For conditions no socket announces (a hook's count, a ledger row).
 */
export async function readUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let value = await read();
  while (!done(value) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** The chat frames of one request among what a chat socket received. */
export const framesOfRequest = (messages: unknown[], requestId: string) =>
  (messages as ChatFrame[]).filter((frame) => frame.requestId === requestId);

/** The chunks of one request, in sequence order. */
export const chunksOfRequest = (messages: unknown[], requestId: string) =>
  framesOfRequest(messages, requestId).flatMap((frame) => (frame.type === "chunk" && frame.chunk ? [frame.chunk] : []));

/** True once a request's stream ended (`end`, `error` or `no-active`). */
export const requestEnded = (messages: unknown[], requestId: string) =>
  framesOfRequest(messages, requestId).some((frame) => ["end", "error", "no-active"].includes(frame.type));

/** A client's `send` of one user message on a fresh chat socket; the socket records what comes back. */
export async function sendChat(
  host: MiniflareHost,
  chatId: string,
  text: string,
  ids: { requestId: string; userMessageId: string },
): Promise<RecordingSocket> {
  const chat = await RecordingSocket.open(demoWsUrl(host, `${base(chatId)}/chat`));
  chat.send(chatSendRequest(text, chatId, ids.requestId, ids.userMessageId));
  return chat;
}

/** The event socket of the chat (its first connection after a restart wakes the Assistant: start-up runs). */
export const openEvents = (host: MiniflareHost, chatId: string) => RecordingSocket.open(demoWsUrl(host, base(chatId)));

/** What the AI SDK's WebSocket chat transport got when it asked to resume the chat's turn in flight. */
export type ResumeView = {
  /** `no-active`: no turn was in flight; `replayed`: the turn was replayed from its start, then followed to its end. */
  kind: "no-active" | "replayed";
  chunks: UIMessageChunk[];
  /** The assistant message the chunks assemble to (null when none). */
  messageId: string | null;
  text: string;
  /** The stream's error, if it ended with one (an `error` frame, a dropped connection). */
  error: string | null;
};

/** Resume the chat's turn in flight as the AI SDK does after a disconnect (`reconnectToStream`), and read it all. */
export async function resumeWithAiSdk(host: MiniflareHost, chatId: string): Promise<ResumeView> {
  const transport = new WebSocketChatTransport<UIMessage>({ url: demoWsUrl(host, `${base(chatId)}/chat`) });
  try {
    const stream = await transport.reconnectToStream({ chatId });
    if (stream === null) return { kind: "no-active", chunks: [], messageId: null, text: "", error: null };
    const chunks: UIMessageChunk[] = [];
    let error: string | null = null;
    try {
      for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const start = chunks.find((chunk) => chunk.type === "start");
    return {
      kind: "replayed",
      chunks,
      messageId: start?.type === "start" ? (start.messageId ?? null) : null,
      text: textOfChunks(chunks),
      error: error ?? errorOfChunks(chunks),
    };
  } finally {
    transport.close();
  }
}

/** The text a run of chunks streams (its text deltas, in order). */
export function textOfChunks(chunks: readonly UIMessageChunk[]): string {
  return chunks.map((chunk) => (chunk.type === "text-delta" ? chunk.delta : "")).join("");
}

function errorOfChunks(chunks: readonly UIMessageChunk[]): string | null {
  const error = chunks.find((chunk) => chunk.type === "error");
  return error?.type === "error" ? error.errorText : null;
}

/** The text of a stored message. */
export const textOfMessage = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

/** What the stored conversation holds of one client turn. */
export type ConversationView = {
  /** How many stored user messages have this text. */
  userMessages: number;
  userMessageIds: string[];
  /** Every tool call in the stored assistant messages. */
  toolCalls: Array<{ toolCallId: string; toolName: string; state: string }>;
  /** The answer after the user message: resumed (the model's), interrupted (closed with the line), or missing. */
  answer: "resumed" | "interrupted" | "missing";
  answerId: string | null;
  answerText: string;
};

/** Read the stored conversation for the turn the user message `userText` started. */
export function viewConversation(messages: readonly UIMessage[], userText: string): ConversationView {
  const users = messages.filter((message) => message.role === "user" && textOfMessage(message) === userText);
  const at = users[0] === undefined ? -1 : messages.indexOf(users[0]);
  const answer = at === -1 ? undefined : messages.slice(at + 1).find((message) => message.role === "assistant");
  const toolCalls = messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts as unknown as ToolPart[])
    .filter((part) => part.type.startsWith("tool-") && typeof part.toolCallId === "string")
    .map((part) => ({
      toolCallId: part.toolCallId,
      toolName: part.type.slice("tool-".length),
      state: part.state ?? "",
    }));
  const answerText = textOfMessage(answer);
  return {
    userMessages: users.length,
    userMessageIds: users.map((message) => message.id),
    toolCalls,
    answer: answer === undefined ? "missing" : answerText.includes(INTERRUPTED_LINE) ? "interrupted" : "resumed",
    answerId: answer?.id ?? null,
    answerText,
  };
}

/** What a fresh client's replay of one child run holds, deduped by sequence. */
export type ChildReplay = {
  runId: string;
  /** The durable log's sequences, deduped: 1..N with no gap? */
  gapFree: boolean;
  /** Sequences seen with two different bodies. */
  conflicts: number;
  lastSequence: number;
  /** The run's last lifecycle event kind (`finished`, …), or null when the replay ended none. */
  terminal: string | null;
  text: string;
};

/** A fresh event socket's replay of `runId` (waits for its terminal frame), read as a client that dedupes. */
export async function replayChildRun(host: MiniflareHost, chatId: string, runId: string): Promise<ChildReplay> {
  const socket = await openEvents(host, chatId);
  try {
    await socket.waitFor(
      (messages) => framesOfRun(messages, runId).some((frame) => isTerminalKind(frame.event.kind)),
      30_000,
    );
    return readChildFrames(runId, framesOfRun(socket.messages, runId));
  } finally {
    socket.close();
  }
}

/** A child run's frames as a client holds them once deduped by sequence. */
export function readChildFrames(runId: string, frames: readonly AgentToolEventFrame[]): ChildReplay {
  const log = new Map<number, UIMessageChunk>();
  let conflicts = 0;
  for (const frame of frames) {
    if (frame.event.kind !== "chunk" || frame.sequence === undefined) continue;
    const body = frame.event.body as UIMessageChunk;
    const known = log.get(frame.sequence);
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(body)) conflicts += 1;
    log.set(frame.sequence, body);
  }
  const sequences = [...log.keys()].sort((a, b) => a - b);
  // A step reset stands for the sequences it voids (a replay leaves them out; a live client drops them).
  const voided = voidedSequences(frames);
  const covered = [...new Set([...sequences, ...voided])].sort((a, b) => a - b);
  const kept = sequences.filter(
    (sequence) => !voided.has(sequence) || log.get(sequence)?.type === "data-agent-milestone",
  );
  const lifecycle = frames.filter((frame) => frame.event.kind !== "chunk");
  return {
    runId,
    gapFree: covered.every((sequence, index) => sequence === index + 1),
    conflicts,
    lastSequence: sequences.at(-1) ?? 0,
    terminal: lifecycle.at(-1)?.event.kind ?? null,
    text: textOfChunks(kept.map((sequence) => log.get(sequence) as UIMessageChunk)),
  };
}

export const listRuns = (host: MiniflareHost, chatId: string) => host.fetchJson<RunRow[]>(`${base(chatId)}/runs`);

export const listMessages = (host: MiniflareHost, chatId: string) =>
  host.fetchJson<UIMessage[]>(`${base(chatId)}/messages`);

/** The hook journal's counts for one run, once its finish hook was called (it runs beside the run's result). */
export async function hooksOf(host: MiniflareHost, chatId: string, runId: string): Promise<HookCounts | undefined> {
  return readUntil(
    async () => (await host.fetchJson<HookCounts[]>(`${base(chatId)}/hooks`)).find((entry) => entry.runId === runId),
    (entry) => Object.keys(entry?.finish ?? {}).length > 0,
  );
}

/** The child's own view of a run (its turns: fresh and resumed). */
export const drillChild = (host: MiniflareHost, chatId: string, agentType: string, runId: string) =>
  host.fetchJson<ChildDrill>(`${base(chatId)}/sub/${agentType}/${encodeURIComponent(runId)}`);
