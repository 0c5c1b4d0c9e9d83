import { readJsonObjectBody } from "./request-body.js";

/** The longest reason a client may give for a cancel, in characters. */
export const MAX_CANCEL_REASON_LENGTH = 500;

/** The largest cancel request body, in bytes (16 KiB: a reason is at most 500 characters). */
export const MAX_CANCEL_BODY_BYTES = 16 * 1024;

/**
 * A cancel request's body, read: the reason it gives (`undefined`: none, the registry's default), or why it is bad
 * (`status` 400, or 413 for a body over `MAX_CANCEL_BODY_BYTES`).
 */
export type CancelRequestBody =
  | { ok: true; reason: string | undefined }
  | { ok: false; status: 400 | 413; error: string };

const SHAPE = 'send { "reason": "…" } or no body';

/**
 * Read the optional body of `POST …/cancel/<runId>`: nothing, or a JSON object whose optional `reason` (a non-empty
 * string of at most `MAX_CANCEL_REASON_LENGTH` characters) becomes the run's error text — what the model and every
 * client are told of the cancel. Never throws: a bad body is an error to answer with its `status` (400, or 413).
 */
export async function readCancelRequest(request: Request): Promise<CancelRequestBody> {
  const body = await readJsonObjectBody(request, SHAPE, MAX_CANCEL_BODY_BYTES);
  if (!body.ok) return body;
  const reason: unknown = body.value?.["reason"];
  if (reason === undefined) return { ok: true, reason: undefined };
  if (typeof reason !== "string" || reason.trim() === "") {
    return { ok: false, status: 400, error: "reason must be a non-empty string" };
  }
  if (reason.length > MAX_CANCEL_REASON_LENGTH) {
    return { ok: false, status: 400, error: `reason is longer than ${MAX_CANCEL_REASON_LENGTH} characters` };
  }
  return { ok: true, reason: reason.trim() };
}
