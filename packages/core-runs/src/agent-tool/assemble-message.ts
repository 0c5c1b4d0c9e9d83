import { createUIMessageStream, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { omitVoidedEntries } from "../log/voided-entry-filter.js";
import { type AgentToolLogEntry, outputMessageId } from "../protocol/index.js";

/**
 * Appended to the chunks so that `readUIMessageStream`, which emits a snapshot on some chunks only (not on
 * `start-step`, for one), emits everything the chunks made; its part is taken off again.
 */
const END_OF_CHUNKS = "data-agent-tools-end-of-chunks";

/**
 * Build the assistant message that a sequence of chunks describes, with the AI SDK's own assembly: every chunk
 * counts, also those of an unfinished message after the SDK's last snapshot. `null` when the chunks make no message
 * (none, or only chunks that make no part, such as `start` and `finish`).
 *
 * The message is built once, in linear time: the SDK's `createUIMessageStream` keeps one message state and hands it to
 * `onEnd`, where `readUIMessageStream` copies the whole message at each chunk (quadratic in a turn of many tool
 * calls). Chunks that start a second message, that the SDK cannot apply, or that make no part go through
 * `readUIMessageStream`, whose answer for them is the reference.
 */
export async function assembleMessage(
  chunks: readonly UIMessageChunk[],
  fallbackId: string,
): Promise<UIMessage | null> {
  if (chunks.length === 0) return null;
  if (startsOneMessage(chunks)) {
    const message = await assembleOnce(chunks);
    if (message && message.parts.length > 0) return { ...message, id: message.id || fallbackId };
  }
  return assembleBySnapshots(chunks, fallbackId);
}

/** True when the chunks' `start`s name at most one message id (`readUIMessageStream` starts over at another). */
function startsOneMessage(chunks: readonly UIMessageChunk[]): boolean {
  let id: string | undefined;
  for (const chunk of chunks) {
    if (chunk.type !== "start" || chunk.messageId === undefined) continue;
    if (id !== undefined && chunk.messageId !== id) return false;
    id = chunk.messageId;
  }
  return true;
}

/** The SDK's message state after every chunk, copied once; `null` when it could not apply one. */
async function assembleOnce(chunks: readonly UIMessageChunk[]): Promise<UIMessage | null> {
  let message: UIMessage | null = null;
  const stream = createUIMessageStream({
    execute: ({ writer }) => {
      for (const chunk of chunks) writer.write(chunk);
    },
    // No id of its own: the chunks' `start` names it, else the caller's fallback does.
    generateId: () => "",
    onEnd: ({ responseMessage }) => {
      message = structuredClone(responseMessage);
    },
  });
  const reader = stream.getReader();
  try {
    for (;;) if ((await reader.read()).done) break;
  } catch {
    return null;
  }
  return message;
}

/** `readUIMessageStream`'s last snapshot (with the end marker, so that it holds every chunk). */
async function assembleBySnapshots(chunks: readonly UIMessageChunk[], fallbackId: string): Promise<UIMessage | null> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.enqueue({ type: END_OF_CHUNKS, data: null } as UIMessageChunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  let snapshots = 0;
  for await (const state of readUIMessageStream({ stream, terminateOnError: false })) {
    message = state;
    snapshots += 1;
  }
  if (!message) return null;
  const isEnd = message.parts.at(-1)?.type === END_OF_CHUNKS;
  const parts = isEnd ? message.parts.slice(0, -1) : message.parts;
  // Only the end marker made a snapshot, and the chunks made no part: they describe no message.
  if (isEnd && snapshots === 1 && parts.length === 0) return null;
  return { ...message, parts, id: message.id || fallbackId };
}

/** What a cut-off turn had completed: its chunks up to the last finished step, and their assistant message. */
export type CompletedSteps = { chunks: UIMessageChunk[]; message: UIMessage | null };

/**
 * The steps a cut-off turn completed: the logged chunks up to the last `finish-step` (model steps with their tool
 * calls and results) and the assistant message they make, leaving out the entries an earlier resume voided. The
 * unfinished step after it is left out, so a resumed `streamText` does it again from its start.
 */
export async function completedSteps(entries: readonly AgentToolLogEntry[], runId: string): Promise<CompletedSteps> {
  const kept = omitVoidedEntries(entries);
  let end = -1;
  kept.forEach((entry, index) => {
    if (entry.body.type === "finish-step") end = index;
  });
  const chunks = kept.slice(0, end + 1).map((entry) => entry.body);
  return { chunks, message: await assembleTurnMessage(chunks, runId) };
}

/** The assistant message a run's turn chunks make (data parts, ours among them, left out), as a resumed turn gets it. */
export function assembleTurnMessage(chunks: readonly UIMessageChunk[], runId: string): Promise<UIMessage | null> {
  return assembleMessage(
    chunks.filter((chunk) => !chunk.type.startsWith("data-")),
    outputMessageId(runId),
  );
}
