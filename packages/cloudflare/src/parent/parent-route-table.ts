import {
  type AgentToolRegistry,
  type Clock,
  errorMessage,
  getDefaultRunEventHub,
  type RunEventSink,
} from "@agent-tools/core-runs";
import type { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { runReadTokenStatus } from "../auth/run-read-token.js";
import { readCancelRequest } from "./cancel-request.js";
import type { ParentEventSockets } from "./event-sockets.js";
import type { ParentChat } from "./parent-chat.js";
import { type AgentToolParentRoute, parseParentRoute } from "./parent-routes.js";
import type { RunReadTokens } from "./run-read-tokens.js";
import { serveSubChat } from "./sub-chat-route.js";

/** What serving a parent's routes needs: its parts, and the subclass's hooks. */
export type ParentRouteHost = {
  registry: AgentToolRegistry;
  transport: DurableObjectChildTransport;
  chat: ParentChat;
  events: ParentEventSockets;
  tokens: RunReadTokens;
  clock: Clock;
  sink?: RunEventSink;
  authorize(request: Request, route: AgentToolParentRoute): Response | undefined | Promise<Response | undefined>;
  onRequest(request: Request, route: AgentToolParentRoute): Response | Promise<Response>;
};

/**
 * Serve one request to a parent: route it, authorize it (a drill-in with a run read token is checked by the token
 * instead), and answer. A handler that throws is answered `500 { error: "Internal error", id }`: the detail never
 * reaches the client; it is reported with that id as an `agent_tool:http:error` event.
 * @internal
 */
export async function serveParentRequest(request: Request, host: ParentRouteHost): Promise<Response> {
  const isUpgrade = request.headers.get("Upgrade")?.toLowerCase() === "websocket";
  const route = parseParentRoute({ method: request.method, url: request.url, isUpgrade });
  try {
    const token = readsRun(route) ? new URL(request.url).searchParams.get("token") : null;
    if (readsRun(route) && token !== null) {
      const check = await host.tokens.check(token, route.agentType, route.runId);
      if (!check.ok) {
        return new Response(`Run read token refused (${check.refusal})`, { status: runReadTokenStatus(check.refusal) });
      }
    } else {
      const refused = await host.authorize(request, route);
      if (refused) return refused;
    }
    return await serveRoute(request, route, host);
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

async function serveRoute(request: Request, route: AgentToolParentRoute, host: ParentRouteHost): Promise<Response> {
  const { registry, chat } = host;
  switch (route.kind) {
    case "events":
      return host.events.connect(request, registry);
    case "chat":
      return chat.accept();
    case "chat-stop":
      return Response.json({ stopped: chat.engine.stop(route.turnId) });
    case "messages":
      return Response.json(await chat.engine.messages());
    case "runs":
      return Response.json(await registry.listAgentToolRuns());
    case "cancel": {
      const body = await readCancelRequest(request);
      if (!body.ok) return Response.json({ error: body.error, code: "INVALID_ARGUMENT" }, { status: 400 });
      return Response.json({ cancelled: await registry.cancelAgentTool(route.runId, body.reason) });
    }
    case "clear":
      return Response.json(await registry.clearAgentToolRuns());
    case "token":
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      return Response.json(await host.tokens.sign(route.agentType, route.runId));
    case "drill-in": {
      // Only to this parent's own runs: a guessed run id creates no child.
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      const target = new URL(request.url);
      target.search = `?runId=${encodeURIComponent(route.runId)}`;
      const stub = host.transport.stub({ agentType: route.agentType, runId: route.runId });
      return stub.fetch(new Request(target.toString(), request));
    }
    case "sub-chat":
    case "sub-messages":
      if (!(await registry.hasAgentToolRun(route.agentType, route.runId))) return noSuchRun();
      return serveSubChat(request, route, host.transport.stub({ agentType: route.agentType, runId: route.runId }));
    case "other":
      return host.onRequest(request, route);
  }
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

function noSuchRun(): Response {
  return new Response("No such run", { status: 404 });
}
