import type { ToolExecutionOptions, ToolSet } from "ai";

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;

/**
 * The tools, each of which starts only once its call is stored (`whenStored(toolCallId)`): a tool with effects outside
 * the object (a message sent, a payment, a child started) never runs for a call a crash could lose. After a crash the
 * resumed turn runs the same call again, with the same `toolCallId`, so a tool can make its effect idempotent by that
 * id; without the wait, the resumed turn would not know the call and its model would decide a new one, with a new id.
 *
 * An `execute` that is an async generator function (a tool with preliminary results) stays one; any other is awaited
 * after the wait, so it must not return an async iterable without being a generator function. Tools without
 * `execute` (client-side) are left as they are.
 */
export function runAfterCallStored<TTools extends ToolSet>(
  tools: TTools,
  whenStored: (toolCallId: string) => Promise<void>,
): TTools {
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
        ? async function* (input: unknown, options: ToolExecutionOptions<unknown>) {
            await whenStored(options.toolCallId);
            yield* run(input, options) as AsyncIterable<unknown>;
          }
        : async (input: unknown, options: ToolExecutionOptions<unknown>) => {
            await whenStored(options.toolCallId);
            return run(input, options);
          },
    };
  }
  return guarded as TTools;
}

function isAsyncGeneratorFunction(value: unknown): boolean {
  return Object.prototype.toString.call(value) === "[object AsyncGeneratorFunction]";
}
