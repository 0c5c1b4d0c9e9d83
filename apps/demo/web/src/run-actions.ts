import type { ChatRoutes } from "./routes.js";

/** What the page asks of the Assistant besides the chat: cancel a run, clear every run (plain POSTs). */
async function post<T>(url: string, what: string, body?: unknown): Promise<T> {
  const json = { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(url, { method: "POST", ...(body === undefined ? {} : json) });
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

/**
 * Answer an approval at a parent's approve route (`<parent>/approve/<runId>/<approvalId>`) with a plain `fetch`, as a
 * page on stock `useChat` does (the chat page uses the package's `answerApproval`); resolves whether it was taken.
 */
export async function answerApprovalAt(
  parentPath: string,
  runId: string,
  approvalId: string,
  answer: { approved: boolean; reason?: string },
): Promise<boolean> {
  const url = `${parentPath}/approve/${encodeURIComponent(runId)}/${encodeURIComponent(approvalId)}`;
  const { answered } = await post<{ answered?: unknown }>(url, "Answering the approval", answer);
  return answered === true;
}

export function clearRuns(routes: ChatRoutes): Promise<{ runIds: string[] }> {
  return post(routes.clear, "Clearing runs");
}
