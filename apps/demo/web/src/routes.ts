/** The chat this page shows: `?chat=<name>`, default "default". */
export function readChatName(search = window.location.search): string {
  const name = new URLSearchParams(search).get("chat")?.trim();
  return name ? name : "default";
}

/** Developer controls (the connection status line, "Reconnect events") show with `?dev=1`. */
export function readDevMode(search = window.location.search): boolean {
  const value = new URLSearchParams(search).get("dev");
  return value !== null && value !== "0" && value !== "false";
}

/** The Assistant's routes for one chat. */
export type ChatRoutes = {
  readonly chatName: string;
  /** The events WebSocket (`ws(s)://…/agents/assistant/<name>`): the runs and the conversation's events. */
  readonly events: string;
  /** The chat WebSocket, relative (the AI SDK's transport resolves it against the page). */
  readonly chat: string;
  readonly clear: string;
  cancel(runId: string): string;
  /** A run's drill-in as JSON (http), for the "JSON" link. */
  drillIn(agentType: string, runId: string): string;
};

export function chatRoutes(chatName: string, origin = window.location.href): ChatRoutes {
  const base = `/agents/assistant/${encodeURIComponent(chatName)}`;
  const events = new URL(base, origin);
  events.protocol = events.protocol === "https:" ? "wss:" : "ws:";
  return {
    chatName,
    events: events.toString(),
    chat: `${base}/chat`,
    clear: `${base}/clear`,
    cancel: (runId) => `${base}/cancel/${encodeURIComponent(runId)}`,
    drillIn: (agentType, runId) => `${base}/sub/${encodeURIComponent(agentType)}/${encodeURIComponent(runId)}`,
  };
}
