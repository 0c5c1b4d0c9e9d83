import { type Clock, getDefaultRunEventHub } from "@agent-tools/core-runs";
import { errorMessage, type RunEventSink } from "@agent-tools/core-runs/internal";
import type { AgUiOptions } from "../ag-ui/ag-ui-streams.js";
import { isCurrentGeneration } from "../auth/run-read-token.js";
import { serveAgUi } from "./ag-ui-route.js";
import { readApprovalRequest } from "./approval-request.js";
import { readCancelRequest } from "./cancel-request.js";
import type { ParentMcp } from "./mcp-route.js";
import type { ParentRouteParts } from "./parent-route-parts.js";
import { type AgentToolParentRoute, parseParentRoute, readsRun } from "./parent-routes.js";
import { badBody } from "./request-body.js";
import { type RunReadTokens, runReadTokenRefused, runTokenConfigError } from "./run-read-tokens.js";
import { serveSubChat } from "./sub-chat-route.js";

/** What serving a parent's routes needs: its token checker, its parts (wired on demand), and the subclass's hooks. */
export type ParentRouteHost = {
  /** Checks run read tokens; touches no storage. */
  tokens: RunReadTokens;
  /** The parent's parts, wired (storage created, start-up begun) on the first call: only for an authorized request. */
  parts(): ParentRouteParts;
  clock: Clock;
  /** The parent's MCP endpoint (built on its first request). */
  mcp: ParentMcp;
  sink?: RunEventSink;
  authorize(request: Request, route: AgentToolParentRoute): Response | undefined | Promise<Response | undefined>;
  onRequest(request: Request, route: AgentToolParentRoute): Response | Promise<Response>;
  /** The AG-UI streams' options, defaults applied. */
  agUi: Required<AgUiOptions>;
};

/**
 * Serve one request to a parent: route it, authorize it (a drill-in with a run read token is checked by the token
 * instead), and only then wire the parent and answer: a refused request leaves no storage behind. A request that
 * needs run read tokens while their secret is misconfigured is answered 500 with what is wrong (`CONFIG_ERROR`). A handler that throws is answered `500 { error: "Internal error", id }`: the detail never
 * reaches the client; it is reported with that id as an `agent_tool:http:error` event.
 * @internal
 */
export async function serveParentRequest(request: Request, host: ParentRouteHost): Promise<Response> {
  const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
  const route = parseParentRoute({ method: request.method, url: request.url, isUpgrade });
  try {
    const token = readsRun(route) ? new URL(request.url).searchParams.get("token") : null;
    const misconfigured = token !== null || route.kind === "token" ? host.tokens.configError() : null;
    if (misconfigured) return runTokenConfigError(misconfigured);
    const check =
      readsRun(route) && token !== null ? await host.tokens.check(token, route.agentType, route.runId) : null;
    if (check && !check.ok) return runReadTokenRefused(check.refusal);
    const refused = check ? undefined : await host.authorize(request, route);
    if (refused) return refused;
    const parts = host.parts();
    if (check && readsRun(route)) {
      // Of the run's current generation only (not of a run cleared and started again with its id); none: 404 below.
      const run = await parts.registry.getAgentToolRun(route.runId);
      if (run && !isCurrentGeneration(check.claims, run.startedAt)) return runReadTokenRefused("stale");
    }
    return await serveRoute(request, route, parts, host);
  } catch (error) {
    const id = crypto.randomUUID();
    const sink = host.sink ?? getDefaultRunEventHub();
    try {
      sink.emit({
        type: "agent_tool:http:error",
        id,
        route: route.kind,
        message: errorMessage(error),
        at: host.clock.now(),
      });
    } catch {
      // a broken sink never breaks the answer
    }
    return Response.json({ error: "Internal error", id }, { status: 500 });
  }
}

async function serveRoute(
  request: Request,
  route: AgentToolParentRoute,
  parts: ParentRouteParts,
  host: ParentRouteHost,
): Promise<Response> {
  const { registry, chat, transport } = parts;
  switch (route.kind) {
    case "events":
      return parts.events.connect(request, registry);
    case "chat":
      return chat.accept();
    case "chat-stop":
      return Response.json({ stopped: chat.engine.stop(route.turnId) });
    case "messages":
      return Response.json(await chat.engine.messages());
    case "runs":
      return Response.json(await registry.listAgentToolRuns());
    case "ag-ui":
      return serveAgUi(request, parts, host.agUi);
    case "mcp":
      return host.mcp.serve(request, parts);
    case "cancel": {
      const body = await readCancelRequest(request);
      if (!body.ok) return badBody(body);
      return Response.json({ cancelled: await registry.cancelAgentTool(route.runId, body.reason) });
    }
    case "approve": {
      // Only in this parent's own runs; the answer travels down the run's tree to the run that asked.
      if (!(await registry.getAgentToolRun(route.runId))) return noSuchRun();
      const body = await readApprovalRequest(request);
      if (!body.ok) return badBody(body);
      return Response.json({ answered: await registry.answerApproval(route.runId, route.approvalId, body.answer) });
    }
    case "clear":
      return Response.json(await registry.clearAgentToolRuns());
    case "token":
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      return Response.json(await host.tokens.sign(registry, route.agentType, route.runId));
    case "drill-in": {
      // Only to this parent's own runs: a guessed run id creates no child.
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      const target = new URL(request.url);
      target.search = `?runId=${encodeURIComponent(route.runId)}`;
      const stub = transport.stub({ agentType: route.agentType, runId: route.runId });
      return stub.fetch(new Request(target.toString(), request));
    }
    case "sub-chat":
    case "sub-messages":
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      return serveSubChat(
        request,
        route,
        transport.stub({ agentType: route.agentType, runId: route.runId }),
        chat.engine,
      );
    case "other":
      return host.onRequest(request, route);
  }
}

function noSuchRun(): Response {
  return new Response("No such run", { status: 404 });
}
