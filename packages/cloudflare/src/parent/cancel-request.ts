import { readJsonObjectBody } from "./request-body.js";

/** The longest reason a client may give for a cancel, in characters. */
export const MAX_CANCEL_REASON_LENGTH = 500;

/** A cancel request's body, read: the reason it gives (`undefined`: none, the registry's default), or why it is bad. */
export type CancelRequestBody = { ok: true; reason: string | undefined } | { ok: false; error: string };

const SHAPE = 'send { "reason": "…" } or no body';

/**
 * Read the optional body of `POST …/cancel/<runId>`: nothing, or a JSON object whose optional `reason` (a non-empty
 * string of at most `MAX_CANCEL_REASON_LENGTH` characters) becomes the run's error text — what the model and every
 * client are told of the cancel. Never throws: a bad body is an error to answer with 400.
 */
export async function readCancelRequest(request: Request): Promise<CancelRequestBody> {
  const body = await readJsonObjectBody(request, SHAPE);
  if (!body.ok) return body;
  const reason: unknown = body.value?.["reason"];
  if (reason === undefined) return { ok: true, reason: undefined };
  if (typeof reason !== "string" || reason.trim() === "") {
    return { ok: false, error: "reason must be a non-empty string" };
  }
  if (reason.length > MAX_CANCEL_REASON_LENGTH) {
    return { ok: false, error: `reason is longer than ${MAX_CANCEL_REASON_LENGTH} characters` };
  }
  return { ok: true, reason: reason.trim() };
}
