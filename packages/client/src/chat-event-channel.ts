import { AGENT_CHAT_EVENT_TYPE, type AgentChatEvent, parseAgentChatEventFrame } from "@agent-tools/core-runs/protocol";

/** Called with each conversation event a parent's event socket carries. */
export type AgentChatEventListener = (event: AgentChatEvent) => void;

/** @internal The conversation events of one connection: its socket's `agent-chat-event` frames, to listeners. */
export type ChatEventChannel = {
  /**
   * Hand one message of the socket (its `data`) to the listeners if it is a well-formed `agent-chat-event` frame;
   * anything else is ignored. Never throws: a listener that throws stops neither the others nor the socket.
   * Returns whether it was a conversation event.
   */
  dispatch(message: unknown): boolean;
  /** Call `listener` with every later event; returns the unsubscribe function (idempotent). */
  subscribe(listener: AgentChatEventListener): () => void;
};

/** @internal */
export function createChatEventChannel(): ChatEventChannel {
  const listeners = new Set<AgentChatEventListener>();
  return {
    dispatch(message) {
      // Cheap test first: most traffic on the socket is agent-tool frames.
      if (typeof message === "string" && !message.includes(AGENT_CHAT_EVENT_TYPE)) return false;
      const frame = parseAgentChatEventFrame(message);
      if (frame === null) return false;
      for (const listener of [...listeners]) {
        try {
          listener(frame.event);
        } catch {
          // One listener's failure is its own: the others and the socket go on.
        }
      }
      return true;
    },
    subscribe(listener) {
      // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
      const own: AgentChatEventListener = (event) => listener(event);
      listeners.add(own);
      return () => {
        listeners.delete(own);
      };
    },
  };
}
