import type { ChatLimitError } from "@agent-tools/chat";
import type { ChatLimits } from "@agent-tools/chat/internal";
import { createUIMessageStreamResponse, type UIMessage, type UIMessageChunk } from "ai";
import type { AgentToolChildStub } from "../adapters/durable-object-child-transport.js";
import { fromNdjson } from "../adapters/ndjson.js";
import type { AgentToolParentRoute } from "./parent-routes.js";
import { badBody } from "./request-body.js";
import { readSubChatRequest } from "./sub-chat-request.js";

/** The `Retry-After` (seconds) of a message refused because too many of its run's messages wait already. */
export const SUB_CHAT_RETRY_AFTER_SECONDS = 5;

/** What a message to a child through its parent is held to: the parent's own chat's limits (`ChatEngine`'s). */
export type SubChatLimits = {
  limits: Readonly<Pick<ChatLimits, "maxQueuedSends">>;
  /** The error for a message over `maxMessageBytes`, or `null` when it fits. */
  checkMessage(message: UIMessage): ChatLimitError | null;
};

/**
 * Talk to a run's child through its parent (the parent checked the run is its own): `sub-chat` sends the body's
 * message into the run's conversation and answers the child's answer as the AI SDK's UI message stream (what
 * `DefaultChatTransport` reads); `sub-messages` answers the conversation so far. A run still running is 409.
 *
 * A message is held to the parent chat's limits: over `maxMessageBytes` it is refused (413) before anything is sent or
 * stored; while `maxQueuedSends` of the run's messages wait for their turn, one more is refused (429, `Retry-After`);
 * and one whose client goes away before its turn (the request's `signal`, which workerd aborts with the
 * `enable_request_signal` compatibility flag) is withdrawn: it never runs and nothing of it is stored.
 * @internal
 */
export async function serveSubChat(
  request: Request,
  route: Extract<AgentToolParentRoute, { kind: "sub-chat" | "sub-messages" }>,
  child: AgentToolChildStub,
  chat: SubChatLimits,
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
  const tooLarge = chat.checkMessage(body.message);
  if (tooLarge) return badBody({ status: 413, error: tooLarge.message });
  const { signal } = request;
  if (signal.aborted) return clientGone();
  // The child names the message's wait by this id: withdrawn by it when the client goes away before its turn.
  const requestId = crypto.randomUUID();
  const withdraw = () => void child.agentToolRunChatWithdraw?.(requestId).catch(() => undefined);
  signal.addEventListener("abort", withdraw, { once: true });
  let result: Awaited<ReturnType<typeof child.agentToolRunChat>>;
  try {
    result = await child.agentToolRunChat(route.runId, body.message, {
      maxQueuedSends: chat.limits.maxQueuedSends,
      requestId,
    });
  } finally {
    signal.removeEventListener("abort", withdraw);
  }
  if (result.ok) return createUIMessageStreamResponse({ stream: fromNdjson<UIMessageChunk>(result.answer) });
  switch (result.refusal) {
    case "running": {
      const error = "The run is still running: talk to its child once it has ended";
      return Response.json({ error, code: "RUN_STILL_RUNNING" }, { status: 409 });
    }
    case "queue-full":
      return Response.json(
        { error: result.error, code: "LIMIT_EXCEEDED" },
        { status: 429, headers: { "retry-after": String(SUB_CHAT_RETRY_AFTER_SECONDS) } },
      );
    case "dropped":
      return clientGone();
    case "unknown-run":
      return new Response("No such run", { status: 404 });
  }
}

/** What a request whose client went away is answered (nobody reads it). */
function clientGone(): Response {
  return Response.json({ error: "The client went away before its message's turn", code: "CANCELLED" }, { status: 499 });
}
