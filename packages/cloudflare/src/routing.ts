import { AgentToolsError } from "@agent-tools/core-runs";
import { PARENT_PATH_SEGMENTS, parseParentRoute, readsRun } from "./parent/parent-routes.js";
import {
  RUN_TOKEN_SECRET_BINDING,
  RunReadTokens,
  runReadTokenRefused,
  runTokenConfigError,
} from "./parent/run-read-tokens.js";

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
   * Refuse a request before it reaches a parent (e.g. check a session). It runs in the Worker, before a Durable
   * Object is even addressed, so a refused request creates no object; the parent's own `authorize` runs too. A
   * drill-in (or `…/messages`) carrying a run read token (`?token=`) is checked here instead, with the secret: a
   * valid token goes through without this hook, a bad one is refused (401/403) before any object is addressed.
   */
  authorize?: (
    request: Request,
    target: AgentToolRequestTarget,
    env: TEnv,
  ) => Response | undefined | Promise<Response | undefined>;
  /**
   * The secret run read tokens are signed with, for checking them in the Worker (default: the
   * `AGENT_TOOLS_RUN_TOKEN_SECRET` binding, as the parent's default `runTokenSecret()`). Without one, a request with
   * a token goes to `authorize` like any other.
   */
  runTokenSecret?: (env: TEnv) => string | undefined;
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
  const id = namespace.idFromName(target.name);
  const forward = () => namespace.get(id as never).fetch(request);
  if (options.authorize) {
    const checked = await checkRunReadToken(request, String(id), options.runTokenSecret?.(env) ?? secretOf(env));
    if (checked) return checked.ok ? forward() : checked.refused;
    const refused = await options.authorize(request, target, env);
    if (refused) return refused;
  }
  return forward();
}

/**
 * A reading request's run read token, checked (the parent checks it again, and the run's generation): `null` when
 * the request carries none, or there is no secret to check it with.
 */
async function checkRunReadToken(
  request: Request,
  parentId: string,
  secret: string | undefined,
): Promise<{ ok: true } | { ok: false; refused: Response } | null> {
  const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
  const route = parseParentRoute({ method: request.method, url: request.url, isUpgrade });
  const token = readsRun(route) ? new URL(request.url).searchParams.get("token") : null;
  if (token === null || secret === undefined || !readsRun(route)) return null;
  const tokens = new RunReadTokens({ parentId, secret: () => secret });
  const misconfigured = tokens.configError();
  if (misconfigured) return { ok: false, refused: runTokenConfigError(misconfigured) };
  const check = await tokens.check(token, route.agentType, route.runId);
  return check.ok ? { ok: true } : { ok: false, refused: runReadTokenRefused(check.refusal) };
}

function secretOf(env: unknown): string | undefined {
  const value = (env as Record<string, unknown> | undefined)?.[RUN_TOKEN_SECRET_BINDING];
  return typeof value === "string" && value !== "" ? value : undefined;
}
