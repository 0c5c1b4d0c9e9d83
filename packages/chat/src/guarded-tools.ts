import type { ToolExecutionOptions, ToolSet } from "ai";
import { type ChatLimits, checkSize } from "./chat-limits.js";

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;

/** How tools are guarded. */
export type GuardToolsOptions = {
  /** Resolves once the call `toolCallId` is stored (the engine's `whenToolCallStored`). */
  whenStored: (toolCallId: string) => Promise<void>;
  /** Input and output size limits (none when absent). */
  limits?: Pick<ChatLimits, "maxToolInputBytes" | "maxToolOutputBytes">;
};

/**
 * The tools, each of which starts only once its call is stored (`whenStored(toolCallId)`): a tool with effects outside
 * the host (a message sent, a payment, a child started) never runs for a call a crash could lose. After a crash the
 * resumed turn runs the same call again, with the same `toolCallId`, so a tool can make its effect idempotent by that
 * id; without the wait, the resumed turn would not know the call and its model would decide a new one, with a new id.
 *
 * With `limits`, a call whose input is over `maxToolInputBytes` does not run, and an output over `maxToolOutputBytes`
 * is not returned: both throw a `ChatLimitError`, which the AI SDK turns into the call's error result (the model and
 * every tab see why), so nothing over a limit is ever stored.
 *
 * An `execute` that is an async generator function (a tool with preliminary results) stays one (its last value is
 * the output); any other is awaited after the wait, so it must not return an async iterable without being a
 * generator function. Tools without `execute` (client-side) are left as they are.
 */
export function guardTools<TTools extends ToolSet>(tools: TTools, options: GuardToolsOptions): TTools {
  const { whenStored, limits } = options;
  const checkInput = (name: string, input: unknown) => {
    const error = limits ? checkSize("maxToolInputBytes", input, asLimits(limits), `The input of "${name}"`) : null;
    if (error) throw error;
  };
  const checkOutput = (name: string, output: unknown) => {
    const error = limits ? checkSize("maxToolOutputBytes", output, asLimits(limits), `The output of "${name}"`) : null;
    if (error) throw error;
  };
  const guarded: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: unknown }).execute;
    if (typeof execute !== "function") {
      guarded[name] = tool;
      continue;
    }
    const run = execute as Execute;
    guarded[name] = {
      ...tool,
      execute: isAsyncGeneratorFunction(run)
        ? async function* (input: unknown, callOptions: ToolExecutionOptions<unknown>) {
            checkInput(name, input);
            await whenStored(callOptions.toolCallId);
            let last: unknown;
            for await (const value of run(input, callOptions) as AsyncIterable<unknown>) {
              last = value;
              yield value;
            }
            checkOutput(name, last);
          }
        : async (input: unknown, callOptions: ToolExecutionOptions<unknown>) => {
            checkInput(name, input);
            await whenStored(callOptions.toolCallId);
            const output = await run(input, callOptions);
            checkOutput(name, output);
            return output;
          },
    };
  }
  return guarded as TTools;
}

function asLimits(limits: Pick<ChatLimits, "maxToolInputBytes" | "maxToolOutputBytes">): ChatLimits {
  return limits as ChatLimits;
}

function isAsyncGeneratorFunction(value: unknown): boolean {
  return Object.prototype.toString.call(value) === "[object AsyncGeneratorFunction]";
}
