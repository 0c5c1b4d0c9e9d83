import { type AgentToolChildReference, AgentToolsError, resolveAgentType } from "@agent-tools/core-runs";
import type { UIMessage, UIMessageChunk } from "ai";
import type { DurableObjectChildTransport } from "../adapters/durable-object-child-transport.js";
import { fromNdjson } from "../adapters/ndjson.js";

/** A named child conversation outside any tool call (the seed's `subAgent(Child, name)`). */
export type SubAgentHandle = {
  /** Send the child one message and stream its answer (the child keeps the conversation). */
  chat(message: string | UIMessage): Promise<ReadableStream<UIMessageChunk>>;
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
    chat: async (message) => {
      const userMessage: UIMessage =
        typeof message === "string"
          ? { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: message }] }
          : message;
      return fromNdjson<UIMessageChunk>(await chatRpc().agentToolChat(name, userMessage));
    },
    messages: () => chatRpc().agentToolChatMessages(name),
  };
}
