import type { AgUiTurnChunk } from "@agent-tools/ag-ui";
import { AG_UI_TURN_CHUNK_TYPE } from "@agent-tools/ag-ui/internal";
import type { ChatEngine } from "@agent-tools/chat";
import type { UIMessageChunk, WebSocketChatTransportResponse } from "ai";

/**
 * Follow the parent's turn `turnId` as a tab does (the chat engine's `resume`, with a peer of its own): each chunk of
 * its answer, from the first, numbered as the turn holds them (preliminary tool outputs, which it never keeps, are
 * left out). Follows nothing unless `turnId` is the turn in flight. Returns how to stop.
 * @internal
 */
export function followTurn(
  engine: ChatEngine<WebSocket>,
  turnId: string,
  push: (chunk: AgUiTurnChunk) => void,
): () => void {
  if (engine.activeTurnId !== turnId) return () => undefined;
  let index = 0;
  // The engine sends a follower the AI SDK's WebSocket chat frames, as JSON text.
  const peer = {
    send(text: string) {
      const frame = JSON.parse(text) as WebSocketChatTransportResponse;
      if (frame.type !== "chunk" || isPreliminary(frame.chunk)) return;
      push({ type: AG_UI_TURN_CHUNK_TYPE, turnId, index, chunk: frame.chunk });
      index += 1;
    },
  } as unknown as WebSocket;
  engine.resume({ peer, requestId: `ag-ui:${turnId}` });
  return () => engine.disconnect(peer);
}

function isPreliminary(chunk: UIMessageChunk): boolean {
  return chunk.type === "tool-output-available" && (chunk as { preliminary?: boolean }).preliminary === true;
}
