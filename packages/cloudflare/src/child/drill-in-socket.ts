import type { AgentToolChildRunner } from "@agent-tools/core-runs";
import {
  AGENT_TOOL_CHILD_CHUNK_TYPE,
  AGENT_TOOL_CHILD_MESSAGES_TYPE,
  encodeAgentToolDrillInFrame,
} from "@agent-tools/core-runs/protocol";

/** The server end of a drill-in WebSocket, as far as serving it goes. */
export type DrillInSocket = {
  send(message: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "close", listener: () => void): void;
};

/**
 * Serve a drill-in socket (see `@agent-tools/core-runs/protocol`'s drill-in frames): send the run's conversation
 * and its inspection, then its tail from the very sequence the conversation holds (both come from one read of the
 * log, so no entry is sent twice or missed), and close the socket once the tail ends: `1000` after the run's
 * terminal (nothing more will come), `1011` when the tail ended without it (the client opens a new socket).
 * Resolves once the conversation is sent, with `delivery`: the tail's delivery (for `waitUntil`).
 * @internal
 */
export async function serveDrillIn(
  runner: Pick<AgentToolChildRunner, "getConversation" | "tail">,
  runId: string,
  socket: DrillInSocket,
): Promise<{ delivery: Promise<void> }> {
  const { messages, lastSequence, run } = await runner.getConversation(runId);
  socket.send(encodeAgentToolDrillInFrame({ type: AGENT_TOOL_CHILD_MESSAGES_TYPE, runId, messages, run }));
  const reader = runner.tail(runId, { afterSequence: lastSequence }).getReader();
  let isClosed = false;
  socket.addEventListener("close", () => {
    isClosed = true;
    void reader.cancel().catch(() => undefined);
  });
  const delivery = (async () => {
    let hasEnded = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        socket.send(encodeAgentToolDrillInFrame({ type: AGENT_TOOL_CHILD_CHUNK_TYPE, runId, item: value }));
        if (value.type === "terminal") hasEnded = true;
      }
    } catch {
      // a broken tail or socket: closed below
    }
    if (isClosed) return;
    try {
      socket.close(hasEnded ? 1000 : 1011, hasEnded ? "run ended" : "tail ended before the run");
    } catch {
      // already closed by the other side
    }
  })();
  return { delivery };
}
