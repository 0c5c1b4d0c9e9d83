import type { AgentToolRunInfo } from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";

/** The chat this page shows: `?chat=<name>`, default "default". */
export function readChatName(search = window.location.search): string {
  const name = new URLSearchParams(search).get("chat")?.trim();
  return name ? name : "default";
}

/** The Assistant's routes for one chat (all relative to this page's origin). */
export type ChatRoutes = {
  readonly chatName: string;
  /** `/agents/assistant/<name>`: also the events WebSocket. */
  readonly base: string;
  readonly chat: string;
  readonly messages: string;
  readonly runs: string;
  readonly clear: string;
  cancel(runId: string): string;
  drillIn(agentType: string, runId: string): string;
};

export function chatRoutes(chatName: string): ChatRoutes {
  const base = `/agents/assistant/${encodeURIComponent(chatName)}`;
  return {
    chatName,
    base,
    chat: `${base}/chat`,
    messages: `${base}/messages`,
    runs: `${base}/runs`,
    clear: `${base}/clear`,
    cancel: (runId) => `${base}/cancel/${encodeURIComponent(runId)}`,
    drillIn: (agentType, runId) => `${base}/sub/${encodeURIComponent(agentType)}/${encodeURIComponent(runId)}`,
  };
}

/** An http(s) path of this origin as a ws(s) URL. */
export function webSocketUrl(path: string): string {
  const url = new URL(path, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

async function readJson<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw new Error(`${what}: HTTP ${response.status}${text ? ` — ${text.slice(0, 200)}` : ""}`);
  }
  return (await response.json()) as T;
}

export async function fetchMessages(routes: ChatRoutes, signal?: AbortSignal): Promise<UIMessage[]> {
  const list = await readJson<unknown>(await fetch(routes.messages, signal ? { signal } : {}), "Loading messages");
  return Array.isArray(list) ? (list as UIMessage[]) : [];
}

/** A run as `/runs` lists it; `detached` is there for background runs (when the server says so). */
export type ListedRun = AgentToolRunInfo & { detached?: unknown };

export async function fetchRuns(routes: ChatRoutes, signal?: AbortSignal): Promise<ListedRun[]> {
  const list = await readJson<unknown>(await fetch(routes.runs, signal ? { signal } : {}), "Listing runs");
  return Array.isArray(list) ? (list as ListedRun[]) : [];
}

export async function clearRuns(routes: ChatRoutes): Promise<{ runIds: string[] }> {
  return readJson(await fetch(routes.clear, { method: "POST" }), "Clearing runs");
}

export async function cancelRun(routes: ChatRoutes, runId: string): Promise<{ cancelled: boolean }> {
  return readJson(await fetch(routes.cancel(runId), { method: "POST" }), "Cancelling");
}

/** What the drill-in route answers (JSON): the child's own conversation and its run. */
export type DrillInSnapshot = {
  runId: string;
  messages: UIMessage[];
  run: { status?: string; lastSequence?: number } | null;
};

export async function fetchDrillIn(url: string, signal?: AbortSignal): Promise<DrillInSnapshot> {
  return readJson(await fetch(url, signal ? { signal } : {}), "Loading the child's conversation");
}
