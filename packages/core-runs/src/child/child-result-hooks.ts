import { AgentToolsError } from "../errors.js";
import type { AgentToolChildDefinition } from "./child-definition.js";

/** A completed turn's result, as its definition's hooks make it. */
export type ChildTurnResult = { output: unknown; summary: string };

const OUTPUT_SIGNATURE = "getAgentToolOutput({ runId, input, output })";
const SUMMARY_SIGNATURE = "getAgentToolSummary({ runId, output, text })";

/**
 * Read a completed turn's output and summary through the definition's `getAgentToolOutput` and
 * `getAgentToolSummary` (defaults: what the turn passed to `setOutput`; the turn's text, else the output as text).
 *
 * Both hooks take one context object. Code written for positional hooks (`getAgentToolOutput(runId)`,
 * `getAgentToolSummary(runId, output)`), untyped and ported as is, would read an object as the runId and complete
 * with no output and an empty summary. So a summary hook that declares two parameters, or a hook that uses its
 * context as a string (a runId in a query, a key, a template), throws an `AgentToolsError` naming the hook and its
 * signature instead: the run ends `error` with that message.
 * @internal
 */
export async function readChildTurnResult(
  definition: Pick<AgentToolChildDefinition, "getAgentToolOutput" | "getAgentToolSummary">,
  turn: { runId: string; input: unknown; output: unknown; text: string },
): Promise<ChildTurnResult> {
  const { runId, input, text } = turn;
  let { output } = turn;
  if (definition.getAgentToolOutput) {
    output = await definition.getAgentToolOutput(hookContext({ runId, input, output }, OUTPUT_SIGNATURE));
  }
  if (!definition.getAgentToolSummary) return { output, summary: text || outputAsText(output) };
  if (definition.getAgentToolSummary.length >= 2) throw positionalHookError(SUMMARY_SIGNATURE, "(runId, output)");
  return { output, summary: definition.getAgentToolSummary(hookContext({ runId, output, text }, SUMMARY_SIGNATURE)) };
}

/** The context object, refusing to be turned into a string: only a hook that takes it for the runId does that. */
function hookContext<TContext extends object>(context: TContext, signature: string): TContext {
  return Object.defineProperty(context, Symbol.toPrimitive, {
    value: () => {
      throw positionalHookError(signature, "(runId)");
    },
    enumerable: false,
  });
}

function positionalHookError(signature: string, positional: string): AgentToolsError {
  const name = signature.slice(0, signature.indexOf("("));
  return new AgentToolsError(
    "INVALID_ARGUMENT",
    `${name} takes one context object, not a positional ${positional}: write ${signature}`,
  );
}

function outputAsText(output: unknown): string {
  if (output === undefined || output === null) return "";
  if (typeof output === "string") return output;
  try {
    return JSON.stringify(output) ?? "";
  } catch {
    return String(output);
  }
}
