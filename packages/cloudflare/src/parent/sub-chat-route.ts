import { createUIMessageStreamResponse, type UIMessageChunk } from "ai";
import type { AgentToolChildStub } from "../adapters/durable-object-child-transport.js";
import { fromNdjson } from "../adapters/ndjson.js";
import type { AgentToolParentRoute } from "./parent-routes.js";
import { badBody } from "./request-body.js";
import { readSubChatRequest } from "./sub-chat-request.js";

/**
 * Talk to a run's child through its parent (the parent checked the run is its own): `sub-chat` sends the body's
 * message into the run's conversation and answers the child's answer as the AI SDK's UI message stream (what
 * `DefaultChatTransport` reads); `sub-messages` answers the conversation so far. A run still running is 409.
 * @internal
 */
export async function serveSubChat(
  request: Request,
  route: Extract<AgentToolParentRoute, { kind: "sub-chat" | "sub-messages" }>,
  child: AgentToolChildStub,
): Promise<Response> {
  if (typeof child.agentToolRunChat !== "function" || typeof child.agentToolRunChatMessages !== "function") {
    return Response.json(
      { error: `The child "${route.agentType}" offers no chat`, code: "UNSUPPORTED" },
      { status: 501 },
    );
  }
  if (route.kind === "sub-messages") return Response.json(await child.agentToolRunChatMessages(route.runId));
  const body = await readSubChatRequest(request);
  if (!body.ok) return badBody(body);
  const result = await child.agentToolRunChat(route.runId, body.message);
  if (!result.ok && result.refusal === "running") {
    const error = "The run is still running: talk to its child once it has ended";
    return Response.json({ error, code: "RUN_STILL_RUNNING" }, { status: 409 });
  }
  if (!result.ok) return new Response("No such run", { status: 404 });
  return createUIMessageStreamResponse({ stream: fromNdjson<UIMessageChunk>(result.answer) });
}
