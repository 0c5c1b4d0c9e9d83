import { AgentToolsError } from "../errors.js";

/**
 * How a child is named in `runAgentTool(Child, …)`: its agentType string, or a class (or object) with a
 * `static agentType` — preferred, since class names do not survive minification — or else its class name.
 */
export type AgentToolChildReference = string | { readonly agentType: string } | { readonly name: string };

/** The agentType a child reference names. Throws `INVALID_ARGUMENT` for an empty one. */
export function resolveAgentType(child: AgentToolChildReference): string {
  let agentType: unknown;
  if (typeof child === "string") agentType = child;
  else if ("agentType" in child && typeof child.agentType === "string") agentType = child.agentType;
  else if ("name" in child) agentType = child.name;
  if (typeof agentType !== "string" || agentType.length === 0) {
    throw new AgentToolsError("INVALID_ARGUMENT", "A child must have a non-empty agentType (or class name)");
  }
  return agentType;
}
