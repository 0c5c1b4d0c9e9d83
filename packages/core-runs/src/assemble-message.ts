import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import type { AgentToolLogEntry } from "./protocol/index.js";

/** Build the assistant message that a sequence of chunks describes, with the AI SDK's own assembly. */
export async function assembleMessage(
  chunks: readonly UIMessageChunk[],
  fallbackId: string,
): Promise<UIMessage | null> {
  if (chunks.length === 0) return null;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream({ stream, terminateOnError: false })) message = state;
  if (!message) return null;
  return { ...message, id: message.id || fallbackId };
}

/** What a cut-off turn had completed: its chunks up to the last finished step, and their assistant message. */
export type CompletedSteps = { chunks: UIMessageChunk[]; message: UIMessage | null };

/**
 * The steps a cut-off turn completed: the logged chunks up to the last `finish-step` (model steps with their tool
 * calls and results) and the assistant message they make. The unfinished step after it is left out, so a resumed
 * `streamText` does it again from its start.
 */
export async function completedSteps(entries: readonly AgentToolLogEntry[], runId: string): Promise<CompletedSteps> {
  let end = -1;
  entries.forEach((entry, index) => {
    if (entry.body.type === "finish-step") end = index;
  });
  const chunks = entries.slice(0, end + 1).map((entry) => entry.body);
  const message = await assembleMessage(
    chunks.filter((chunk) => !chunk.type.startsWith("data-")),
    `agent-tool-${runId}-output`,
  );
  return { chunks, message };
}
