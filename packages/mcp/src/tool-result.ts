import type { AgentToolResult } from "@agent-tools/core-runs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * The MCP tool result of a finished run: a success is its summary as text (and its output as `structuredContent`
 * when that is a JSON object); a failure is its error text with `isError` (the task is then `failed` or `cancelled`).
 */
export function toolResultOf(result: AgentToolResult): CallToolResult {
  if (!result.ok) return { content: [{ type: "text", text: result.error }], isError: true };
  const { output } = result;
  const structured =
    typeof output === "object" && output !== null && !Array.isArray(output)
      ? { structuredContent: output as Record<string, unknown> }
      : {};
  return { content: [{ type: "text", text: result.summary }], ...structured, isError: false };
}
