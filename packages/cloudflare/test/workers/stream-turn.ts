import type { LanguageModel, ToolSet, UIMessage } from "ai";
import { convertToModelMessages, isStepCount, streamText, toUIMessageStream } from "ai";

/** A test child's turn: `streamText` over `model` with `tools` (up to 3 steps), as the UI message stream it returns. */
export async function streamTurn(options: {
  model: LanguageModel;
  messages: UIMessage[];
  tools: ToolSet;
  abortSignal: AbortSignal;
}) {
  const { model, messages, tools, abortSignal } = options;
  const result = streamText({
    model,
    messages: await convertToModelMessages(messages, { tools }),
    tools,
    stopWhen: isStepCount(3),
    abortSignal,
  });
  return toUIMessageStream({ stream: result.stream, tools });
}
