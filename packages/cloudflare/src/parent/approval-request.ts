import { readApprovalReason } from "@agent-tools/core-runs/protocol";
import { MAX_CANCEL_BODY_BYTES } from "./cancel-request.js";
import { readJsonObjectBody } from "./request-body.js";

/** The largest approval answer body, in bytes (16 KiB, as a cancel's: a reason is at most 500 characters). */
export const MAX_APPROVAL_BODY_BYTES = MAX_CANCEL_BODY_BYTES;

const SHAPE = 'send { "approved": true } or { "approved": false, "reason": "…" }';

/** An approval answer's body, read: the answer, or why it is refused (400, or 413 over `MAX_APPROVAL_BODY_BYTES`). */
export type ApprovalRequestBody =
  | { ok: true; answer: { approved: boolean; reason?: string } }
  | { ok: false; status: 400 | 413; error: string };

/**
 * Read the body of `POST …/approve/<runId>/<approvalId>`: a JSON object `{ approved, reason? }` — `reason`, a
 * non-empty text, is what the model of the run that asked is told with a denial, as `readApprovalReason` makes it
 * (control characters removed, trimmed, at most `MAX_APPROVAL_REASON_LENGTH` (500) characters). Other fields are
 * refused (a typo such as `approve` must not read as a denial). Never throws.
 */
export async function readApprovalRequest(request: Request): Promise<ApprovalRequestBody> {
  const body = await readJsonObjectBody(request, SHAPE, MAX_APPROVAL_BODY_BYTES);
  if (!body.ok) return body;
  return readApprovalAnswer(body.value ?? {});
}

/**
 * An approval answer, read from a JSON value (the approve route's body, or an AG-UI resume entry's `payload`): the
 * same rules for both. Never throws.
 */
export function readApprovalAnswer(value: unknown): ApprovalRequestBody {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, error: `The answer is not a JSON object: ${SHAPE}` };
  }
  const { approved, reason, ...unknown } = value as Record<string, unknown>;
  const refuse = (error: string): ApprovalRequestBody => ({ ok: false, status: 400, error: `${error}: ${SHAPE}` });
  const extra = Object.keys(unknown);
  if (extra.length > 0) return refuse(`unknown field ${extra.join(", ")}`);
  if (typeof approved !== "boolean") return refuse("approved must be true or false");
  if (reason === undefined) return { ok: true, answer: { approved } };
  if (typeof reason !== "string" || reason.trim() === "") return refuse("reason must be a non-empty string");
  const read = readApprovalReason(reason);
  if (!read.ok) return refuse(read.error);
  return { ok: true, answer: { approved, ...(read.reason !== undefined ? { reason: read.reason } : {}) } };
}
