import { type LanguageModelMiddleware, wrapLanguageModel } from "ai";
import { AgentToolsError } from "../errors.js";
import type { RunBudget } from "./run-budget.js";

/** A model `wrapLanguageModel` accepts (the AI SDK's provider models). */
export type WrappableLanguageModel = Parameters<typeof wrapLanguageModel>[0]["model"];

/** What the model is told in its wrap-up call, the one call it gets once its budget is out. */
export const WRAP_UP_INSTRUCTION =
  "Your budget for this task has run out. Do not call any more tools: answer now, in a few sentences, with what you " +
  "have found so far, and say that the work was cut short by the budget.";

/**
 * `model`, spending `budget`: each call's usage (the AI SDK's, from the call's `finish`) is recorded; once the budget
 * is out (by tokens, cost or time, or an ancestor's), the next call is the wrap-up — the model is asked to answer
 * with what it has, and may call no tool — and any call after it is refused. No call starts once `abortSignal` has
 * aborted (a Stop reaches the model before its next step). A run thus passes its budget by two model steps at
 * most: the one under way when it ran out, and the wrap-up.
 */
export function budgetedModel(
  model: WrappableLanguageModel,
  budget: RunBudget,
  options: { abortSignal?: AbortSignal } = {},
): ReturnType<typeof wrapLanguageModel> {
  const { abortSignal } = options;
  const middleware: LanguageModelMiddleware = {
    transformParams: async ({ params }) => {
      if (abortSignal?.aborted) throw abortError(abortSignal);
      const decision = budget.beforeModelCall();
      if (decision === "refuse") {
        throw new AgentToolsError(
          "LIMIT_EXCEEDED",
          `The budget ran out (${budget.exhaustion() ?? "limit"}) and the wrap-up call was made: no more model calls`,
        );
      }
      if (decision === "call") return params;
      return {
        ...params,
        prompt: [...params.prompt, { role: "user", content: [{ type: "text", text: WRAP_UP_INSTRUCTION }] }],
        ...(params.tools !== undefined ? { toolChoice: { type: "none" } } : {}),
      };
    },
    wrapGenerate: async ({ doGenerate, model: called }) => {
      const result = await doGenerate();
      budget.recordModelCall({
        inputTokens: result.usage.inputTokens.total ?? 0,
        outputTokens: result.usage.outputTokens.total ?? 0,
        modelId: called.modelId,
        provider: called.provider,
      });
      return result;
    },
    wrapStream: async ({ doStream, model: called }) => {
      const result = await doStream();
      const counted = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "finish") {
              budget.recordModelCall({
                inputTokens: part.usage.inputTokens.total ?? 0,
                outputTokens: part.usage.outputTokens.total ?? 0,
                modelId: called.modelId,
                provider: called.provider,
              });
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream: counted };
    },
  };
  return wrapLanguageModel({ model, middleware });
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(typeof reason === "string" && reason !== "" ? reason : "Aborted");
  error.name = "AbortError";
  return error;
}
