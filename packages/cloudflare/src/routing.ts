import { AgentToolsError } from "@agent-tools/core-runs";
import { PARENT_PATH_SEGMENTS } from "./parent/parent-routes.js";

/** What the router needs of a Durable Object namespace (a `DurableObjectNamespace` has it). */
type ParentNamespace = {
  idFromName(name: string): unknown;
  get(id: never): { fetch(request: Request): Promise<Response> };
};

/** A request addressed to a parent agent: `/<prefix>/<parent>/<name>/…`. */
export type AgentToolRequestTarget = { parent: string; name: string };

export type AgentToolRouterOptions<TEnv> = {
  /**
   * The parent agents, by the path segment that names them, to the binding of their Durable Object namespace:
   * `{ assistant: "ASSISTANT" }` routes `/agents/assistant/<name>/…` to the object named `<name>`.
   */
  parents: Readonly<Record<string, keyof TEnv & string>>;
  /** The first path segment (default `"agents"`, as the seed's agent URLs). */
  prefix?: string;
  /**
   * Refuse a request before it reaches a parent (e.g. check a session). The parent's own `authorize` runs too, for
   * every route; this one runs in the Worker, before a Durable Object is even addressed.
   */
  authorize?: (
    request: Request,
    target: AgentToolRequestTarget,
    env: TEnv,
  ) => Response | undefined | Promise<Response | undefined>;
};

/** The parent a path addresses, or `null` (pure). */
export function matchAgentToolPath(pathname: string, prefix = "agents"): AgentToolRequestTarget | null {
  const segments = pathname.split("/").filter((segment) => segment !== "");
  if (segments.length < PARENT_PATH_SEGMENTS || segments[0] !== prefix) return null;
  const [, parent, rawName] = segments as [string, string, string];
  let name: string;
  try {
    name = decodeURIComponent(rawName);
  } catch {
    return null;
  }
  return name === "" ? null : { parent, name };
}

/**
 * Route a Worker request to the parent agent it addresses (by parent and name, as `/agents/<parent>/<name>/…`):
 * resolves the parent's response, or `null` for a request that is not for a known parent (serve it yourself).
 *
 * @example
 * export default {
 *   async fetch(request, env) {
 *     return (await routeAgentToolRequest(request, env, { parents: { assistant: "ASSISTANT" } })) ??
 *       new Response("Not found", { status: 404 });
 *   },
 * } satisfies ExportedHandler<Env>;
 */
export async function routeAgentToolRequest<TEnv>(
  request: Request,
  env: TEnv,
  options: AgentToolRouterOptions<TEnv>,
): Promise<Response | null> {
  const target = matchAgentToolPath(new URL(request.url).pathname, options.prefix);
  if (!target || !Object.hasOwn(options.parents, target.parent)) return null;
  const binding = options.parents[target.parent] as keyof TEnv & string;
  const namespace = env[binding] as unknown as ParentNamespace | undefined;
  if (!namespace || typeof namespace.idFromName !== "function") {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `No Durable Object namespace bound as "${binding}" (for parent "${target.parent}")`,
    );
  }
  const refused = await options.authorize?.(request, target, env);
  if (refused) return refused;
  return namespace.get(namespace.idFromName(target.name) as never).fetch(request);
}
