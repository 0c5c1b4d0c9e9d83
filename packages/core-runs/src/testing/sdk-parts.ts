import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { convertArrayToReadableStream } from "ai/test";

/**
 * The parts the AI SDK's own `readUIMessageStream` makes of `chunks`: the reference to compare an assembly of the
 * same chunks with (a client's, a replay's). With `onError`, what the SDK reports goes there (in-band `error` chunks
 * too).
 *
 * @experimental
 */
export async function sdkParts(
  chunks: readonly UIMessageChunk[],
  onError?: (error: unknown) => void,
): Promise<UIMessage["parts"]> {
  // A last chunk that makes the SDK emit what it holds without changing a part (it emits on some chunks only: not on
  // `start-step`, for one), so a comparison sees the end of the stream.
  const flush: UIMessageChunk = { type: "message-metadata", messageMetadata: { flush: true } };
  const stream = convertArrayToReadableStream([...chunks, flush]);
  let parts: UIMessage["parts"] = [];
  for await (const message of readUIMessageStream(onError ? { stream, onError } : { stream })) parts = message.parts;
  return parts;
}
