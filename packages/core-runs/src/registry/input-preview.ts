import { stringifyForText } from "../protocol/unknown-values.js";

/** How long an input preview may be. */
export const INPUT_PREVIEW_MAX_CHARS = 500;

/**
 * The preview a parent keeps once the child acknowledged start: strings cut to 500 characters, other values as
 * JSON cut to 500. Never throws (a value JSON cannot encode previews as its `String()`).
 */
export function makeInputPreview(input: unknown): string {
  const text = stringifyForText(input);
  return text.length > INPUT_PREVIEW_MAX_CHARS ? text.slice(0, INPUT_PREVIEW_MAX_CHARS) : text;
}

const encoder = new TextEncoder();

/** The input's size as UTF-8 JSON, or `null` when it cannot be serialized (cycles, BigInt). */
export function inputByteLength(input: unknown): number | null {
  try {
    const json = typeof input === "string" ? input : JSON.stringify(input);
    return json === undefined ? 0 : encoder.encode(json).byteLength;
  } catch {
    return null;
  }
}
