import { AgentToolsError } from "@agent-tools/core-runs";
import { type AgentToolChildReference, resolveAgentType } from "@agent-tools/core-runs/internal";
import type { UIMessage, UIMessageChunk } from "ai";
import type { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { fromNdjson } from "../adapters/ndjson.js";
import { childChatRunId } from "../child/child-chat-store.js";

/** Options of one direct-chat message. */
export type SubAgentChatOptions = {
  /**
   * Cancels the answer: the child's run of this message is cancelled (it ends `aborted`, and the answer so far is
   * kept in the conversation) and the stream ends. Already aborted: nothing is sent and `chat` rejects.
   */
  signal?: AbortSignal;
};

/** A named child conversation outside any tool call (the seed's `subAgent(Child, name)`). */
export type SubAgentHandle = {
  /** Send the child one message and stream its answer (the child keeps the conversation). */
  chat(message: string | UIMessage, options?: SubAgentChatOptions): Promise<ReadableStream<UIMessageChunk>>;
  /** The conversation so far. */
  messages(): Promise<UIMessage[]>;
};

/** The handle of the named conversation `name` with `child`, reached through the parent's transport. */
export function subAgentHandle(
  transport: DurableObjectChildTransport,
  child: AgentToolChildReference,
  name: string,
): SubAgentHandle {
  const agentType = resolveAgentType(child);
  const chatRpc = () => {
    const stub = transport.stub({ agentType, runId: `chat:${name}` });
    if (typeof stub.agentToolChat !== "function" || typeof stub.agentToolChatMessages !== "function") {
      throw new AgentToolsError("INVALID_ARGUMENT", `The child "${agentType}" offers no direct chat`);
    }
    return stub as Required<typeof stub>;
  };
  return {
    chat: async (message, options = {}) => {
      const { signal } = options;
      signal?.throwIfAborted();
      const userMessage: UIMessage =
        typeof message === "string"
          ? { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: message }] }
          : message;
      const stub = chatRpc();
      const answer = fromNdjson<UIMessageChunk>(await stub.agentToolChat(name, userMessage));
      if (!signal) return answer;
      // The child answers a conversation's messages in turn: this run may start only after the call, so an abort
      // that came meanwhile cancels it now (cancel is idempotent).
      const runId = childChatRunId(name, userMessage.id);
      const cancel = () => void stub.agentToolCancel(runId, abortReasonText(signal.reason)).catch(() => undefined);
      if (signal.aborted) cancel();
      else signal.addEventListener("abort", cancel, { once: true });
      const release = () => signal.removeEventListener("abort", cancel);
      return answer.pipeThrough(
        new TransformStream<UIMessageChunk, UIMessageChunk>({ flush: release, cancel: release }),
      );
    },
    messages: () => chatRpc().agentToolChatMessages(name),
  };
}

/** The run's error text for an abort: the reason's message, or a plain default. */
function abortReasonText(reason: unknown): string {
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message !== "") return reason.message;
  if (typeof reason === "string" && reason !== "") return reason;
  return "Cancelled by the parent";
}
