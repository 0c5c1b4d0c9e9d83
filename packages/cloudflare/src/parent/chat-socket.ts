import { safeValidateWebSocketChatTransportRequest, type UIMessage, type WebSocketChatTransportResponse } from "ai";
import type { DurableObjectChatStore } from "../chat/chat-store.js";
import type { ChatTurns } from "../chat/chat-turns.js";
import { mergeChatSend } from "../chat/merge-chat-send.js";

/**
 * One message on a chat socket, in the AI SDK's `WebSocketChatTransport` protocol: `send` (merged with the stored
 * conversation: a stale client never replaces what is stored), `resume` (follow the turn in flight from its start)
 * and `abort`. A malformed frame is answered with an `error` frame and changes nothing.
 * @internal
 */
export async function handleChatSocketMessage(
  ws: WebSocket,
  message: string | ArrayBuffer,
  context: { turns: ChatTurns; store: DurableObjectChatStore },
): Promise<void> {
  const { turns, store } = context;
  let value: unknown;
  try {
    value = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message));
  } catch {
    return reply(ws, { type: "error", requestId: "", errorText: "Malformed frame: not JSON" });
  }
  const validation = await safeValidateWebSocketChatTransportRequest({ value });
  if (!validation.success) {
    const requestId = (value as { requestId?: unknown } | null)?.requestId;
    return reply(ws, {
      type: "error",
      requestId: typeof requestId === "string" ? requestId : "",
      errorText: `Invalid request: ${validation.error.message}`,
    });
  }
  const request = validation.data;
  switch (request.type) {
    case "resume":
      turns.resume({ socket: ws, requestId: request.requestId });
      return;
    case "abort":
      turns.abort(ws, request.requestId);
      return;
    case "send": {
      const follower = { socket: ws, requestId: request.requestId };
      const send = {
        trigger: request.trigger,
        messageId: request.messageId,
        messages: request.messages as UIMessage[],
      };
      const decision = mergeChatSend(store.messages(), send);
      switch (decision.kind) {
        case "refuse":
          return reply(ws, { type: "error", requestId: request.requestId, errorText: decision.error });
        case "duplicate":
          // A resend of a message already stored: follow its turn if it is still streaming; it is never run twice.
          turns.resume(follower);
          return;
        default:
          // Decided again when its turn starts: a turn in flight may change what is stored before then.
          await turns.send(follower, (stored) => mergeChatSend(stored, send));
          return;
      }
    }
  }
}

function reply(ws: WebSocket, frame: WebSocketChatTransportResponse): void {
  try {
    ws.send(JSON.stringify(frame));
  } catch {
    // the client went away
  }
}
