/**
 * Batches (SPEC §6): the frames a parent sends its event socket in one synchronous stretch, as one JSON array message
 * `[frame, frame, …]`, to a client that asked with `agentToolBatch=1` on its connect URL. One frame alone, and every
 * frame to a client that did not ask, stays a plain message.
 */

/** The connect URL's query parameter by which a client asks for batches: `agentToolBatch=1`. */
export const AGENT_TOOL_BATCH_PARAM = "agentToolBatch";

/** The parameter's value for the batch form described here (a JSON array of frames). */
export const AGENT_TOOL_BATCH_VERSION = "1";

/**
 * The longest batch, in UTF-16 code units (JavaScript string length): 256 Ki. A code unit takes at most 3 bytes of
 * UTF-8, so a batch is at most 768 KiB on the wire, under the 1 MiB a Worker (or Durable Object) may receive in one
 * WebSocket message (a client that is itself a Worker). A frame longer than this goes alone, as it did before batches.
 */
export const MAX_AGENT_TOOL_BATCH_LENGTH = 262_144;

/** True when a connect URL's `agentToolBatch` value asks for the batches this version sends. */
export function asksForAgentToolBatches(value: string | null): boolean {
  return value === AGENT_TOOL_BATCH_VERSION;
}

/**
 * The messages that carry `texts` (each one frame's JSON text, in order): runs of consecutive texts joined into one
 * array `[a,b,…]` no longer than `maxLength`; a text alone (a run of one, or one too long to share) stays as it is.
 * The texts are joined, not parsed and serialized again.
 */
export function packAgentToolBatches(texts: readonly string[], maxLength = MAX_AGENT_TOOL_BATCH_LENGTH): string[] {
  if (texts.length <= 1) return [...texts];
  const messages: string[] = [];
  let from = 0;
  // The run texts[from, to) would be `[` + the texts + a comma between each + `]`.
  let length = 1;
  for (let to = 0; to < texts.length; to += 1) {
    const size = (texts[to] as string).length + 1;
    if (to > from && length + size > maxLength) {
      messages.push(joined(texts, from, to));
      from = to;
      length = 1;
    }
    length += size;
  }
  messages.push(joined(texts, from, texts.length));
  return messages;
}

function joined(texts: readonly string[], from: number, to: number): string {
  if (to - from === 1) return texts[from] as string;
  return `[${texts.slice(from, to).join(",")}]`;
}

/**
 * The messages one socket message carries, in order: a batch's frames (parsed), or the message itself — a plain
 * frame, or anything else, for the caller to read or reject as it always did (text that is not JSON among them: a
 * malformed batch is reported as one bad message, and an element that is not a frame as one bad frame, losing nothing
 * else). Never throws.
 */
export function unpackAgentToolMessage(message: unknown): unknown[] {
  if (Array.isArray(message)) return message;
  if (typeof message !== "string" || message.charCodeAt(0) !== OPEN_BRACKET) return [message];
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return [message];
  }
  return Array.isArray(parsed) ? parsed : [message];
}

const OPEN_BRACKET = "[".charCodeAt(0);
