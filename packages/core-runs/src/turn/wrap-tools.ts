import type { ToolExecutionOptions, ToolSet } from "ai";

type Execute = (input: unknown, options: ToolExecutionOptions<unknown>) => unknown;

/** What runs around each tool's `execute` (see `wrapToolExecutes`). */
export type ToolExecuteWrapper = {
  /** Awaited before `execute` runs; a throw is the call's error (the AI SDK makes it the call's error result). */
  before(name: string, input: unknown, options: ToolExecutionOptions<unknown>): Promise<void> | void;
  /** Given the output (a generator tool's last value); a throw is the call's error. */
  after?(name: string, output: unknown): void;
};

/**
 * The tools with `wrapper` around each `execute`. An `execute` that is an async generator function (a tool with
 * preliminary results) stays one (each value passed on, its last one the output); any other is awaited. Tools without
 * `execute` (client-side) are left as they are, and so is everything else of a tool (`needsApproval` among them).
 */
export function wrapToolExecutes<TTools extends ToolSet>(tools: TTools, wrapper: ToolExecuteWrapper): TTools {
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = (tool as { execute?: unknown }).execute;
    if (typeof execute !== "function") {
      wrapped[name] = tool;
      continue;
    }
    const run = execute as Execute;
    wrapped[name] = {
      ...tool,
      execute: isAsyncGeneratorFunction(run)
        ? async function* (input: unknown, options: ToolExecutionOptions<unknown>) {
            await wrapper.before(name, input, options);
            let last: unknown;
            for await (const value of run(input, options) as AsyncIterable<unknown>) {
              last = value;
              yield value;
            }
            wrapper.after?.(name, last);
          }
        : async (input: unknown, options: ToolExecutionOptions<unknown>) => {
            await wrapper.before(name, input, options);
            const output = await run(input, options);
            wrapper.after?.(name, output);
            return output;
          },
    };
  }
  return wrapped as TTools;
}

function isAsyncGeneratorFunction(value: unknown): boolean {
  return Object.prototype.toString.call(value) === "[object AsyncGeneratorFunction]";
}
