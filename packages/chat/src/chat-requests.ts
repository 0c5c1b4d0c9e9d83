import { safeValidateWebSocketChatTransportRequest, type UIMessage, type WebSocketChatTransportResponse } from "ai";
import type { ChatEngine } from "./chat-engine.js";
import { mergeChatSend } from "./merge-chat-send.js";

/** The frames of the AI SDK's WebSocket chat protocol a peer may send, as a host receives them. */
export type ChatRequestText = string | ArrayBuffer | ArrayBufferView;

/** What handling a peer's requests needs besides the engine. */
export type ChatRequestContext<TPeer> = {
  engine: ChatEngine<TPeer>;
  /** Send a frame to the peer (must not throw). */
  send(peer: TPeer, frame: WebSocketChatTransportResponse): void;
  /** Whether the peer may make one more `resume` now (a host's per-peer budget); default: always. */
  mayResume?(peer: TPeer): boolean;
};

/** What a peer that resumes too often is told. */
export const TOO_MANY_RESUMES_TEXT = "Too many resume requests on this connection; try again in a moment";

/**
 * One frame from a peer, in the AI SDK's `WebSocketChatTransport` protocol: `send` (merged with the stored
 * conversation: a stale client never replaces what is stored; a message over `maxMessageBytes` is refused before
 * anything is written), `resume` (follow the turn in flight from its start; budgeted per peer) and `abort`. A
 * malformed frame is answered with an `error` frame and changes nothing. Resolves once a send's turn has ended.
 */
export async function handleChatRequest<TPeer>(
  context: ChatRequestContext<TPeer>,
  peer: TPeer,
  text: ChatRequestText,
): Promise<void> {
  const { engine, send } = context;
  let value: unknown;
  try {
    value = JSON.parse(typeof text === "string" ? text : new TextDecoder().decode(text));
  } catch {
    return send(peer, { type: "error", requestId: "", errorText: "Malformed frame: not JSON" });
  }
  const validation = await safeValidateWebSocketChatTransportRequest({ value });
  if (!validation.success) {
    const requestId = (value as { requestId?: unknown } | null)?.requestId;
    return send(peer, {
      type: "error",
      requestId: typeof requestId === "string" ? requestId : "",
      errorText: `Invalid request: ${validation.error.message}`,
    });
  }
  const request = validation.data;
  switch (request.type) {
    case "resume":
      if (context.mayResume && !context.mayResume(peer)) {
        return send(peer, { type: "error", requestId: request.requestId, errorText: TOO_MANY_RESUMES_TEXT });
      }
      engine.resume({ peer, requestId: request.requestId });
      return;
    case "abort":
      engine.abort(peer, request.requestId);
      return;
    case "send": {
      const { requestId } = request;
      const messages = request.messages as UIMessage[];
      const last = messages.at(-1);
      const tooLarge = last?.role === "user" ? engine.checkMessage(last) : null;
      if (tooLarge) return send(peer, { type: "error", requestId, errorText: tooLarge.message });
      const sent = { trigger: request.trigger, messageId: request.messageId, messages };
      const decision = mergeChatSend(await engine.messages(), sent);
      switch (decision.kind) {
        case "refuse":
          return send(peer, { type: "error", requestId, errorText: decision.error });
        case "duplicate":
          // A resend of a message already stored: follow its turn if it is still streaming; it is never run twice.
          engine.resume({ peer, requestId });
          return;
        default:
          // Decided again when its turn starts: a turn in flight may change what is stored before then. A refusal
          // (a full queue) was sent to the peer as an error frame.
          await engine.send({ peer, requestId }, (stored) => mergeChatSend(stored, sent)).catch(() => undefined);
          return;
      }
    }
  }
}
