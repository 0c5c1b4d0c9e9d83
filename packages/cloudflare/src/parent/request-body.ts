/** A request's JSON object body, read: the object (`null`: no body, or only whitespace), or why it is bad. */
export type JsonObjectBody = { ok: true; value: Record<string, unknown> | null } | { ok: false; error: string };

/**
 * Read a request body that must be a JSON object, or nothing. Never throws: a bad body is an error that says what to
 * send (`shape`).
 * @internal
 */
export async function readJsonObjectBody(request: Request, shape: string): Promise<JsonObjectBody> {
  let text: string;
  try {
    text = await request.text();
  } catch {
    return { ok: false, error: "The request body could not be read" };
  }
  if (text.trim() === "") return { ok: true, value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `The body is not JSON: ${shape}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: `The body is not a JSON object: ${shape}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
