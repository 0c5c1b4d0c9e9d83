import type { UIMessageChunk } from "ai";

/** Text split into word-sized pieces, each with the spaces after it (`"a b"` → `["a ", "b"]`). @experimental */
export function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

/** One `text-delta` chunk of text part `id`. @experimental */
export function textDelta(delta: string, id = "t"): UIMessageChunk {
  return { type: "text-delta", id, delta };
}

/**
 * The chunks of one streamed text part `id`: `text-start`, `text` word by word, `text-end` (no step or message
 * around it; `textChunks` gives a whole answer). @experimental
 */
export function textPartChunks(id: string, text: string): UIMessageChunk[] {
  return [{ type: "text-start", id }, ...words(text).map((delta) => textDelta(delta, id)), { type: "text-end", id }];
}
