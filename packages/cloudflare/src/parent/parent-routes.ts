/**
 * A request to a parent agent, by what it asks for. Paths are the part after the parent's own address
 * (`/agents/<parent>/<name>`): the events socket at the root, the chat socket at `/chat`, a Stop of the conversation's
 * turn in flight at `/chat/stop/<turnId>` (or the id of the answer it streams), the stored conversation at `/messages`, the runs at `/runs`,
 * `/cancel/<runId>` (an optional JSON body `{ "reason": "…" }`), an answer to an approval asked in a run's tree at
 * `POST /approve/<runId>/<approvalId>` (`{ "approved": boolean, "reason"?: "…" }`), `/clear`, drill-in at `/sub/<agentType>/<runId>` (and
 * a run read token for it at `/sub/<agentType>/<runId>/token`), talking to that run's child at
 * `POST /sub/<agentType>/<runId>/chat` and the conversation so far at `GET /sub/<agentType>/<runId>/messages`, and the
 * conversation and its runs as an AG-UI event stream (Server-Sent Events) at `GET /ag-ui` (or `POST`, as AG-UI's
 * `HttpAgent` sends it), and the MCP endpoint (Streamable HTTP: `POST`, `GET` and `DELETE` at `/mcp`, served when the
 * parent has `mcpTools()`). Anything else is `other`, for the host's own routes.
 */
export type AgentToolParentRoute =
  | { kind: "events" }
  | { kind: "chat" }
  | { kind: "chat-stop"; turnId: string }
  | { kind: "messages" }
  | { kind: "runs" }
  | { kind: "cancel"; runId: string }
  | { kind: "approve"; runId: string; approvalId: string }
  | { kind: "clear" }
  | { kind: "drill-in"; agentType: string; runId: string }
  | { kind: "token"; agentType: string; runId: string }
  | { kind: "sub-chat"; agentType: string; runId: string }
  | { kind: "sub-messages"; agentType: string; runId: string }
  | { kind: "ag-ui" }
  | { kind: "mcp" }
  | { kind: "other"; path: string };

/** How many leading path segments name the parent (`/agents/<parent>/<name>`). */
export const PARENT_PATH_SEGMENTS = 3;

/** The route of a request (pure; the method and upgrade decide what a path means). */
export function parseParentRoute(request: { method: string; url: string; isUpgrade: boolean }): AgentToolParentRoute {
  const segments = new URL(request.url).pathname.split("/").filter((segment) => segment !== "");
  const rest = segments.slice(PARENT_PATH_SEGMENTS).map(decodeSegment);
  const path = `/${rest.join("/")}`;
  const [first, second, third, fourth] = rest;
  const { method, isUpgrade } = request;
  if (rest.length === 0 && isUpgrade) return { kind: "events" };
  if (first === "chat" && rest.length === 1 && isUpgrade) return { kind: "chat" };
  if (first === "chat" && second === "stop" && third !== undefined && rest.length === 3 && method === "POST") {
    return { kind: "chat-stop", turnId: third };
  }
  if (first === "messages" && rest.length === 1 && method === "GET") return { kind: "messages" };
  if (first === "runs" && rest.length === 1 && method === "GET") return { kind: "runs" };
  if (first === "ag-ui" && rest.length === 1 && (method === "GET" || method === "POST")) return { kind: "ag-ui" };
  if (first === "mcp" && rest.length === 1 && !isUpgrade && ["GET", "POST", "DELETE"].includes(method)) {
    return { kind: "mcp" };
  }
  if (first === "clear" && rest.length === 1 && method === "POST") return { kind: "clear" };
  if (first === "cancel" && second !== undefined && rest.length === 2 && method === "POST") {
    return { kind: "cancel", runId: second };
  }
  if (first === "approve" && second !== undefined && third !== undefined && rest.length === 3 && method === "POST") {
    return { kind: "approve", runId: second, approvalId: third };
  }
  if (first === "sub" && second !== undefined && third !== undefined) {
    if (rest.length === 3) return { kind: "drill-in", agentType: second, runId: third };
    const run = { agentType: second, runId: third };
    if (rest.length === 4 && fourth === "token" && method === "GET") return { kind: "token", ...run };
    if (rest.length === 4 && fourth === "chat" && method === "POST") return { kind: "sub-chat", ...run };
    if (rest.length === 4 && fourth === "messages" && method === "GET") return { kind: "sub-messages", ...run };
  }
  return { kind: "other", path };
}

/**
 * The routes a run read token opens (instead of the parent's authorization): reading one run, its drill-in and its
 * conversation. Talking to its child (`sub-chat`) is not reading: it needs the parent's authorization.
 */
export function readsRun(
  route: AgentToolParentRoute,
): route is Extract<AgentToolParentRoute, { kind: "drill-in" | "sub-messages" }> {
  return route.kind === "drill-in" || route.kind === "sub-messages";
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
