import { asSchema, type FlexibleSchema, jsonSchema, type Tool, tool } from "ai";
import type { AgentToolChildReference } from "./agent-type.js";
import { resolveAgentType } from "./agent-type.js";
import { errorMessage } from "./errors.js";
import type { AgentToolDisplay, AgentToolFailure } from "./protocol/index.js";
import type { AgentToolRegistry } from "./run-registry.js";
import { failure } from "./run-result.js";

export type AgentToolOptions<TInput, TOutput> = {
  description: string;
  /** Validated before any run exists: invalid input never starts a child. */
  inputSchema: FlexibleSchema<TInput>;
  /** When given, a completed run returns its output validated by this schema (a mismatch is a failure value). */
  outputSchema?: FlexibleSchema<TOutput>;
  /** Becomes `display.name` for clients. */
  displayName?: string;
  display?: AgentToolDisplay;
  /** What clients see of the input. Default: the input cut to 500 characters. */
  inputPreview?: (input: TInput) => string;
};

/** What the model gets back from an agent tool: the summary (or validated output), or a failure value. */
export type AgentToolOutput<TOutput> = string | TOutput | AgentToolFailure;

/** The runId `agentTool` uses for a tool call: stable across a re-run of the same turn. */
export function agentToolRunId(toolCallId: string): string {
  return `agent-tool:${toolCallId}`;
}

/**
 * An AI SDK tool that runs a child agent through `registry` and returns its summary (or, with `outputSchema`,
 * its validated output). runId = `agent-tool:<toolCallId>`, so re-running the same turn re-attaches to (or
 * collects) the same run instead of starting a second child; the tool call's abort signal cancels the child.
 * Failures come back as `AgentToolFailure` values the model can act on, never as an empty success.
 *
 * @example
 * const tools = {
 *   research: agentTool(registry, "Researcher", {
 *     description: "Research a topic and summarize the findings",
 *     inputSchema: z.object({ topic: z.string() }),
 *   }),
 * };
 */
export function agentTool<TInput, TOutput = never>(
  registry: AgentToolRegistry,
  child: AgentToolChildReference,
  options: AgentToolOptions<TInput, TOutput>,
): Tool<TInput, AgentToolOutput<TOutput>, Record<string, never>> {
  const agentType = resolveAgentType(child);
  const inputSchema = asSchema(options.inputSchema);
  const outputSchema = options.outputSchema === undefined ? undefined : asSchema(options.outputSchema);
  const display: AgentToolDisplay | undefined =
    options.displayName !== undefined || options.display !== undefined
      ? { ...options.display, ...(options.displayName !== undefined ? { name: options.displayName } : {}) }
      : undefined;

  // The AI SDK checks the input against this schema before calling `execute`, and passes on what it returns. It
  // only checks here and passes the raw input on, so that `execute` parses it exactly once: a transforming
  // schema (e.g. "a,b" → ["a", "b"]) must not be applied twice.
  const checkOnly = jsonSchema<TInput>(() => inputSchema.jsonSchema, {
    validate: async (value) => {
      if (!inputSchema.validate) return { success: true, value: value as TInput };
      const validation = await inputSchema.validate(value);
      return validation.success ? { success: true, value: value as TInput } : validation;
    },
  });

  // `tool()` is the AI SDK's typed identity helper; its conditional types cannot follow our generics, hence the cast.
  return tool({
    description: options.description,
    inputSchema: checkOnly,
    execute: async (
      rawInput: TInput,
      { toolCallId, abortSignal }: { toolCallId: string; abortSignal?: AbortSignal },
    ) => {
      const runId = agentToolRunId(toolCallId);
      // Parsed once, here (the SDK only checked it): invalid input never creates a run, even on a direct call.
      let input = rawInput;
      if (inputSchema.validate) {
        const validation = await inputSchema.validate(rawInput);
        if (!validation.success) {
          return failure(runId, agentType, "error", `Invalid input: ${errorMessage(validation.error)}`);
        }
        input = validation.value;
      }
      const result = await registry.runAgentTool(agentType, {
        input,
        runId,
        parentToolCallId: toolCallId,
        ...(abortSignal ? { signal: abortSignal } : {}),
        ...(display ? { display } : {}),
        ...(options.inputPreview ? { inputPreview: options.inputPreview(input) } : {}),
      });
      if (!result.ok) return result;
      if (!outputSchema) return result.summary;
      const validation = outputSchema.validate
        ? await outputSchema.validate(result.output)
        : ({ success: true, value: result.output as TOutput } as const);
      if (!validation.success) {
        return failure(
          runId,
          agentType,
          "error",
          `The child's output does not match the output schema: ${errorMessage(validation.error)}`,
        );
      }
      return validation.value;
    },
  } as unknown as Tool<TInput, AgentToolOutput<TOutput>, Record<string, never>>);
}
