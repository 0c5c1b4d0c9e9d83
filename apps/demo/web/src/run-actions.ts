import type { ChatRoutes } from "./routes.js";

/** What the page asks of the Assistant besides the chat: cancel a run, clear every run (plain POSTs). */
async function post<T>(url: string, what: string): Promise<T> {
  const response = await fetch(url, { method: "POST" });
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw new Error(`${what}: HTTP ${response.status}${text ? ` — ${text.slice(0, 200)}` : ""}`);
  }
  return (await response.json()) as T;
}

export function cancelRun(routes: ChatRoutes, runId: string): Promise<{ cancelled: boolean }> {
  return post(routes.cancel(runId), "Cancelling");
}

export function clearRuns(routes: ChatRoutes): Promise<{ runIds: string[] }> {
  return post(routes.clear, "Clearing runs");
}
