import { safeValidateUIMessages, type UIMessage } from "ai";
import { readJsonObjectBody } from "./request-body.js";

/** The largest body of a message to a child through its parent, in bytes (4 MiB: the AI SDK's request holds them all). */
export const MAX_SUB_CHAT_BODY_BYTES = 4 * 1024 * 1024;

/** A message to a child through its parent, read: the user's message, or why the body is bad (400, or 413). */
export type SubChatRequestBody = { ok: true; message: UIMessage } | { ok: false; status: 400 | 413; error: string };

const SHAPE = 'send { "message": "…" } (a text or a user UIMessage), or the AI SDK\'s chat request { "messages": […] }';

/**
 * Read the body of `POST …/sub/<agentType>/<runId>/chat`: a JSON object with `message` (a non-empty text, or a
 * `UIMessage` of role `user`), or the AI SDK's chat request (`DefaultChatTransport`: `{ messages }`, whose last
 * message is the one sent), of at most `MAX_SUB_CHAT_BODY_BYTES`. Never throws: a bad body is an error to answer with
 * its `status`.
 */
export async function readSubChatRequest(request: Request): Promise<SubChatRequestBody> {
  const body = await readJsonObjectBody(request, SHAPE, MAX_SUB_CHAT_BODY_BYTES);
  if (!body.ok) return body;
  const { message, messages } = body.value ?? {};
  if (typeof message === "string") {
    if (message.trim() === "") return { ok: false, status: 400, error: "message must not be empty" };
    return { ok: true, message: { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: message }] } };
  }
  const candidate = message ?? (Array.isArray(messages) ? messages.at(-1) : undefined);
  if (candidate === undefined) return { ok: false, status: 400, error: `No message: ${SHAPE}` };
  const validated = await safeValidateUIMessages({ messages: [candidate] });
  if (!validated.success)
    return { ok: false, status: 400, error: `The message is not a UIMessage: ${validated.error.message}` };
  const [userMessage] = validated.data;
  if (userMessage?.role !== "user")
    return { ok: false, status: 400, error: "The message sent must be the user's (role: user)" };
  return { ok: true, message: userMessage };
}
