import { wrapToolExecutes } from "@agent-tools/core-runs";
import type { ToolExecutionOptions, ToolSet } from "ai";
import { type ChatLimits, checkSize } from "./chat-limits.js";

/** How tools are guarded. */
export type GuardToolsOptions = {
  /**
   * Resolves once the call `toolCallId` is stored (the engine's `whenToolCallStored`): for a tool given to a model
   * outside a turn's `context.tools` (those the turn engine journals itself). None: the tool does not wait.
   */
  whenStored?: (toolCallId: string) => Promise<void>;
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
  const { limits } = options;
  const whenStored = options.whenStored ?? (() => Promise.resolve());
  const check = (limit: "maxToolInputBytes" | "maxToolOutputBytes", value: unknown, what: string) => {
    const error = limits ? checkSize(limit, value, limits as ChatLimits, what) : null;
    if (error) throw error;
  };
  return wrapToolExecutes(tools, {
    async before(name, input, callOptions: ToolExecutionOptions<unknown>) {
      check("maxToolInputBytes", input, `The input of "${name}"`);
      await whenStored(callOptions.toolCallId);
    },
    after: (name, output) => check("maxToolOutputBytes", output, `The output of "${name}"`),
  });
}
