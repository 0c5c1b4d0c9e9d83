import { AGENT_TOOL_EVENT_TYPE } from "@agent-tools/core-runs/protocol";
import { createMcpTaskEndpoint, type McpTaskEndpoint } from "@agent-tools/mcp";
import type { McpAgentTool, McpTaskEndpointOptions } from "@agent-tools/mcp/internal";
import type { ParentRouteParts } from "./parent-route-parts.js";

/** What a parent serves over MCP: its tools, by MCP tool name, and the endpoint's options. */
export type AgentToolParentMcp = {
  tools: Readonly<Record<string, McpAgentTool>>;
} & Omit<McpTaskEndpointOptions, "registry" | "tools">;

/**
 * The parent's MCP endpoint (`@agent-tools/mcp`), built on its first request over the parent's registry and fed the
 * frames of its runs (their progress and status reach the MCP clients that created them). `null` without MCP tools.
 */
export class ParentMcp {
  #endpoint: McpTaskEndpoint | null | undefined;
  readonly #definition: () => AgentToolParentMcp | undefined;

  constructor(definition: () => AgentToolParentMcp | undefined) {
    this.#definition = definition;
  }

  /** Answer a request of `…/mcp` (404 when the parent serves no MCP tools). */
  serve(request: Request, parts: ParentRouteParts): Promise<Response> {
    const endpoint = this.#endpointOf(parts);
    if (!endpoint) return Promise.resolve(new Response("Not found", { status: 404 }));
    return endpoint.handle(request);
  }

  #endpointOf(parts: ParentRouteParts): McpTaskEndpoint | null {
    if (this.#endpoint !== undefined) return this.#endpoint;
    const definition = this.#definition();
    if (!definition || Object.keys(definition.tools).length === 0) {
      this.#endpoint = null;
      return null;
    }
    const endpoint = createMcpTaskEndpoint({ ...definition, registry: parts.registry });
    parts.events.listen((frame) => {
      if (frame.type === AGENT_TOOL_EVENT_TYPE) endpoint.observe(frame);
    });
    this.#endpoint = endpoint;
    return endpoint;
  }
}
