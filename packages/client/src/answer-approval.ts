import { type AgentToolApprovalAnswer, readApprovalReason } from "@agent-tools/core-runs/protocol";
import { agentToolApproveUrl } from "./parent-chat-urls.js";

/** What {@link answerAgentToolApproval} needs: which approval, the answer, and how to send it. */
export type AgentToolApprovalRequest = AgentToolApprovalAnswer & {
  /** The parent's event socket URL (its query, e.g. cursors, is left out); the route is under the same path. */
  url: string;
  /** The parent's run whose state shows the approval (for a descendant's, the top-level run above it). */
  runId: string;
  approvalId: string;
  /** Default: the global `fetch`. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  signal?: AbortSignal;
};

/**
 * Answer an approval a run's tree waits for: `POST` the parent's `…/approve/<runId>/<approvalId>` route with
 * `{ approved, reason? }`. Resolves `true` when this answer was taken, `false` when the approval was already answered
 * (from another tab, or it expired) or is unknown. Rejects, saying why, on a network failure or any status but 2xx
 * (404: the run is not the parent's; 400: a bad body). A reason is sent as `readApprovalReason` makes it (control
 * characters removed, trimmed; one of spaces only is no reason); one over `MAX_APPROVAL_REASON_LENGTH` (500) characters
 * is refused before anything is sent.
 *
 * The approval's new state is not returned: it reaches every client (this tab included) through the event socket, as
 * the run's next `data-agent-approval` chunk.
 *
 * @example
 * await answerAgentToolApproval({ url: eventsUrl, runId: run.runId, approvalId, approved: false, reason: "Not that file" });
 */
export async function answerAgentToolApproval(request: AgentToolApprovalRequest): Promise<boolean> {
  const { url, runId, approvalId, approved, reason, signal } = request;
  const send = request.fetch ?? ((target: string, init: RequestInit) => fetch(target, init));
  const read = readApprovalReason(reason);
  if (!read.ok) throw new Error(`Answering the approval failed: ${read.error}`);
  const body = JSON.stringify(read.reason !== undefined ? { approved, reason: read.reason } : { approved });
  let response: Response;
  try {
    response = await send(agentToolApproveUrl(url, runId, approvalId), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    throw new Error(`Answering the approval failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const text = await response.text().catch(() => "");
  if (!response.ok) {
    const said = text.trim().slice(0, 200);
    throw new Error(`Answering the approval failed: HTTP ${response.status}${said ? ` — ${said}` : ""}`);
  }
  let answered: unknown;
  try {
    answered = (JSON.parse(text) as { answered?: unknown } | null)?.answered;
  } catch {
    answered = undefined;
  }
  if (typeof answered !== "boolean") {
    throw new Error(`Answering the approval failed: not the approve route's answer (${text.trim().slice(0, 80)})`);
  }
  return answered;
}
