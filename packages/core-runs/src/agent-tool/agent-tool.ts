import { asSchema, type FlexibleSchema, type JSONValue, jsonSchema, type Tool, tool, type UIMessage } from "ai";
import { errorMessage } from "../errors.js";
import type {
  AgentToolApproval,
  AgentToolDisplay,
  AgentToolEventFrame,
  AgentToolFailure,
  AgentToolProgressSnapshot,
  RunStatus,
} from "../protocol/index.js";
import type { AgentToolChildReference } from "../registry/agent-type.js";
import { resolveAgentType } from "../registry/agent-type.js";
import type { AgentToolRegistry } from "../registry/run-registry.js";
import { failure } from "../registry/run-result.js";
import { RunMessageFollower } from "./run-message-follower.js";

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
  /**
   * Stream the child's answer as the AI SDK's preliminary tool results, so that a page with nothing but `useChat`
   * shows the child working inside the tool call's part: the tool's output becomes an
   * `AgentToolPreliminaryOutput` (the child's message so far, its status and progress), updated as the child's
   * durable chunks arrive, and its last value (also stored with the parent's message, so a reload shows the same)
   * holds the `result`. The model still gets only the result: the summary, the validated output or the failure.
   *
   * Each update carries the whole message so far, as preliminary results do: for long child answers the parent's
   * event socket (`@agent-tools/client`) sends less. Default `false`.
   */
  preliminaryResults?: boolean;
};

/** What `toModelOutput` returns (the AI SDK does not export the type by name). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool<unknown, unknown>["toModelOutput"]>>>;

/** What the model gets back from an agent tool: the summary (or validated output), or a failure value. */
export type AgentToolOutput<TOutput> = string | TOutput | AgentToolFailure;

/**
 * The output of an agent tool with `preliminaryResults`: a preliminary value each time the child's answer grows,
 * then the final value, with `result`.
 */
export type AgentToolPreliminaryOutput<TOutput> = {
  runId: string;
  agentType: string;
  status: RunStatus;
  /** The child's assistant message so far, assembled from its durable log in sequence order. */
  message: UIMessage | null;
  /** The child's newest progress report, if it gave one. */
  progress: AgentToolProgressSnapshot | null;
  /**
   * The tool calls that needed approval in the child's tree (its own, and its descendants' with their `path`), each
   * in its latest state: a `pending` one is answered with the parent's approve route (`registry.answerApproval`).
   */
  approvals: AgentToolApproval[];
  /** On the final value only: what the model gets (the summary, the validated output, or a failure value). */
  result?: AgentToolOutput<TOutput>;
};

/** What the model sees of a preliminary-results output: its `result`, as the tool without the option returns it. */
export function agentToolModelOutput<TOutput>(output: AgentToolPreliminaryOutput<TOutput>): ToolResultOutput {
  const { result } = output;
  if (result === undefined) {
    return { type: "text", value: `The ${output.agentType} run ${output.runId} has no result yet (${output.status}).` };
  }
  return typeof result === "string" ? { type: "text", value: result } : { type: "json", value: result as JSONValue };
}

/** The runId `agentTool` uses for a tool call: stable across a re-run of the same turn. */
export function agentToolRunId(toolCallId: string): string {
  return `agent-tool:${toolCallId}`;
}

/**
 * An AI SDK tool that runs a child agent through `registry` and returns its summary (or, with `outputSchema`,
 * its validated output). runId = `agent-tool:<toolCallId>`, so re-running the same turn re-attaches to (or
 * collects) the same run instead of starting a second child; the tool call's abort signal cancels the child.
 * Failures come back as `AgentToolFailure` values the model can act on, never as an empty success.
 * With `preliminaryResults: true` the child's answer streams into the tool call's part (see the option).
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
  options: AgentToolOptions<TInput, TOutput> & { preliminaryResults: true },
): Tool<TInput, AgentToolPreliminaryOutput<TOutput>, Record<string, never>>;
export function agentTool<TInput, TOutput = never>(
  registry: AgentToolRegistry,
  child: AgentToolChildReference,
  options: AgentToolOptions<TInput, TOutput> & { preliminaryResults?: false },
): Tool<TInput, AgentToolOutput<TOutput>, Record<string, never>>;
export function agentTool<TInput, TOutput = never>(
  registry: AgentToolRegistry,
  child: AgentToolChildReference,
  options: AgentToolOptions<TInput, TOutput>,
):
  | Tool<TInput, AgentToolOutput<TOutput>, Record<string, never>>
  | Tool<TInput, AgentToolPreliminaryOutput<TOutput>, Record<string, never>> {
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

  type CallOptions = { toolCallId: string; abortSignal?: AbortSignal };

  /** One tool call, start to result. */
  const run = async (
    rawInput: TInput,
    { toolCallId, abortSignal }: CallOptions,
    onFrame?: (frame: AgentToolEventFrame) => void,
  ): Promise<AgentToolOutput<TOutput>> => {
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
      ...(onFrame ? { onFrame } : {}),
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
  };

  /** One tool call as preliminary results: the child's message each time it grows, then the result. */
  async function* stream(
    rawInput: TInput,
    call: CallOptions,
  ): AsyncGenerator<AgentToolPreliminaryOutput<TOutput>, void, undefined> {
    const runId = agentToolRunId(call.toolCallId);
    const follower = new RunMessageFollower(runId);
    let outcome: { result: AgentToolOutput<TOutput> } | null = null;
    const done = run(rawInput, call, (frame) => follower.push(frame)).then((result) => {
      outcome = { result };
    });
    let seen = 0;
    let sent = -1;
    try {
      while (outcome === null) {
        await Promise.race([follower.changedSince(seen), done]);
        // Frames of one batch arrive together: one update per batch, the latest only.
        seen = follower.version;
        if (outcome !== null) break;
        const current = await follower.read();
        if (outcome !== null) break;
        if (seen === sent) continue;
        sent = seen;
        yield { runId, agentType, ...current };
      }
      await done;
      const { result } = outcome as unknown as { result: AgentToolOutput<TOutput> };
      const current = await follower.read();
      yield { runId, agentType, ...current, status: statusOf(result, current.status), result };
    } finally {
      follower.close();
    }
  }

  // `tool()` is the AI SDK's typed identity helper; its conditional types cannot follow our generics, hence the casts.
  if (options.preliminaryResults === true) {
    return tool({
      description: options.description,
      inputSchema: checkOnly,
      execute: stream,
      toModelOutput: ({ output }: { output: AgentToolPreliminaryOutput<TOutput> }) => agentToolModelOutput(output),
    } as unknown as Tool<TInput, AgentToolPreliminaryOutput<TOutput>, Record<string, never>>);
  }
  return tool({
    description: options.description,
    inputSchema: checkOnly,
    execute: (rawInput: TInput, call: CallOptions) => run(rawInput, call),
  } as unknown as Tool<TInput, AgentToolOutput<TOutput>, Record<string, never>>);
}

/** The status a final value reports: a failure's own, `completed` for a success (whatever the frames said). */
function statusOf(result: unknown, followed: RunStatus): RunStatus {
  if (typeof result === "object" && result !== null && (result as { ok?: unknown }).ok === false) {
    const status = (result as { status?: unknown }).status;
    if (typeof status === "string") return status as RunStatus;
  }
  return followed === "starting" || followed === "running" ? "completed" : followed;
}
