/**
 * The largest user message the demo's Worker takes: its chat's `maxMessageBytes` (the default of `@agent-tools/chat`,
 * 1 MB, as UTF-8 JSON). The page checks it before sending, so a long paste is refused at once, where it was typed,
 * instead of after a round trip that puts it on the page.
 */
export const MAX_MESSAGE_BYTES = 1_000_000;

/** What the server counts besides the text (the message's id, role and part). */
const ENVELOPE_BYTES = 1_000;
/** The most UTF-8 JSON bytes one UTF-16 code unit can take (a control character escaped as `\u0000`). */
const MAX_BYTES_PER_UNIT = 6;

/** A text's size as the server counts it, near enough: its UTF-8 JSON, and room for the rest of the message. */
export function messageBytes(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).length + ENVELOPE_BYTES;
}

/** Why `text` cannot be sent as one message (over `MAX_MESSAGE_BYTES`), or `null` when it can. */
export function tooLargeToSend(text: string): string | null {
  // Short texts need no counting.
  if (text.length * MAX_BYTES_PER_UNIT + ENVELOPE_BYTES <= MAX_MESSAGE_BYTES) return null;
  const bytes = messageBytes(text);
  if (bytes <= MAX_MESSAGE_BYTES) return null;
  return `Too long to send: ${formatBytes(bytes)}; the limit is ${formatBytes(MAX_MESSAGE_BYTES)}.`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1_000)} kB`;
}
