/**
 * A request's JSON object body, read: the object (`null`: no body, or only whitespace), or why it is refused — 400 for
 * a body that is not a JSON object, 413 for one over the route's limit.
 */
export type JsonObjectBody =
  | { ok: true; value: Record<string, unknown> | null }
  | { ok: false; status: 400 | 413; error: string };

/**
 * Read a request body that must be a JSON object, or nothing, of at most `maxBytes`: a body that says it is longer
 * (`content-length`) is refused unread, one that streams past the limit is refused once it does. Never throws: a bad
 * body is an error that says what to send (`shape`).
 * @internal
 */
export async function readJsonObjectBody(request: Request, shape: string, maxBytes: number): Promise<JsonObjectBody> {
  const text = await readText(request, maxBytes);
  if (text === null) return { ok: false, status: 400, error: "The request body could not be read" };
  if (text === TOO_LARGE) {
    return { ok: false, status: 413, error: `The request body is larger than ${maxBytes} bytes` };
  }
  if (text.trim() === "") return { ok: true, value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, error: `The body is not JSON: ${shape}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, error: `The body is not a JSON object: ${shape}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

const TOO_LARGE = Symbol("too large");

/** The body as text, or `TOO_LARGE` past `maxBytes`, or `null` when it cannot be read. */
async function readText(request: Request, maxBytes: number): Promise<string | typeof TOO_LARGE | null> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) return TOO_LARGE;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The answer to a refused body: `{ error, code }` with its status (`LIMIT_EXCEEDED` for 413, else `INVALID_ARGUMENT`). */
export function badBody(body: { status: 400 | 413; error: string }): Response {
  const code = body.status === 413 ? "LIMIT_EXCEEDED" : "INVALID_ARGUMENT";
  return Response.json({ error: body.error, code }, { status: body.status });
}
