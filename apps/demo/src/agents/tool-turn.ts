import {
  convertToModelMessages,
  isStepCount,
  type LanguageModel,
  streamText,
  type ToolSet,
  toUIMessageStream,
  type UIMessage,
} from "ai";

/**
 * A demo child's turn with tools: `streamText` over `model` (already counted against the run's budget), for at most
 * `maxSteps` steps, as the UI message stream the runner reads.
 */
export async function streamToolTurn(options: {
  model: LanguageModel;
  system: string;
  messages: UIMessage[];
  tools: ToolSet;
  maxSteps: number;
  abortSignal: AbortSignal;
}) {
  const { model, system, messages, tools, maxSteps, abortSignal } = options;
  return toUIMessageStream({
    stream: streamText({
      model,
      system,
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(maxSteps),
      abortSignal,
    }).stream,
    tools,
  });
}
