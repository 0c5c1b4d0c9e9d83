import type { ChatRoutes } from "./routes.js";

/** What the page asks of the Assistant besides the chat: cancel a run, clear every run (plain POSTs). */
async function post<T>(url: string, what: string, body?: unknown): Promise<T> {
  const response = await fetch(url, { method: "POST", ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw new Error(`${what}: HTTP ${response.status}${text ? ` — ${text.slice(0, 200)}` : ""}`);
  }
  return (await response.json()) as T;
}

export function cancelRun(routes: ChatRoutes, runId: string): Promise<{ cancelled: boolean }> {
  // The reason is what the run's failure says: the model reads it, and other tabs show it.
  return post(routes.cancel(runId), "Cancelling", { reason: "Cancelled by the user" });
}

export function clearRuns(routes: ChatRoutes): Promise<{ runIds: string[] }> {
  return post(routes.clear, "Clearing runs");
}
