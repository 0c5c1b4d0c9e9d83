import type { UIMessageChunk } from "ai";

/**
 * The chunk types that add text to a part, each with the key naming its part and the key holding its text. A client
 * appends their texts in order (the AI SDK's `readUIMessageStream`, our reducer), so the consecutive deltas of one
 * part can be stored, or compacted, as one string.
 */
export const DELTA_FIELDS = {
  "text-delta": { part: "id", text: "delta" },
  "reasoning-delta": { part: "id", text: "delta" },
  "tool-input-delta": { part: "toolCallId", text: "inputTextDelta" },
} as const satisfies Record<string, { part: string; text: string }>;

export type DeltaType = keyof typeof DELTA_FIELDS;

/** A delta chunk, read: its type, its part and its text, and its `providerMetadata` when it has one. @internal */
export type Delta = { type: DeltaType; part: string; text: string; providerMetadata?: unknown };

/**
 * The delta `body` carries, when it is a delta chunk with string part and text and no field but those (and
 * `providerMetadata` when `withMetadata`), else `null`. @internal
 */
export function readDelta(body: unknown, withMetadata = false): Delta | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const record = body as Record<string, unknown>;
  const type = record["type"];
  if (typeof type !== "string" || !Object.hasOwn(DELTA_FIELDS, type)) return null;
  const fields = DELTA_FIELDS[type as DeltaType];
  const part = record[fields.part];
  const text = record[fields.text];
  if (typeof part !== "string" || typeof text !== "string") return null;
  const hasMetadata = withMetadata && Object.hasOwn(record, "providerMetadata");
  if (Object.keys(record).length !== (hasMetadata ? 4 : 3)) return null;
  return {
    type: type as DeltaType,
    part,
    text,
    ...(hasMetadata ? { providerMetadata: record["providerMetadata"] } : {}),
  };
}

/**
 * The fields of `body`'s part and text when it is a bare delta chunk — a delta type, a string part and text, no
 * other field — else `null`: what `readDelta` checks, without making an object (the log's encoding reads every entry).
 * @internal
 */
export function bareDeltaFields(body: unknown): (typeof DELTA_FIELDS)[DeltaType] | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const record = body as Record<string, unknown>;
  const type = record["type"];
  if (typeof type !== "string" || !Object.hasOwn(DELTA_FIELDS, type)) return null;
  const fields = DELTA_FIELDS[type as DeltaType];
  if (typeof record[fields.part] !== "string" || typeof record[fields.text] !== "string") return null;
  return hasKeyCount(record, 3) ? fields : null;
}

/**
 * Whether `record` has exactly `count` own enumerable string keys (`Object.keys(record).length === count`), without
 * making their list for a plain object (the log's encoding asks it of every entry and body). @internal
 */
export function hasKeyCount(record: object, count: number): boolean {
  const prototype = Object.getPrototypeOf(record);
  if (prototype !== Object.prototype && prototype !== null) return Object.keys(record).length === count;
  // A plain object: `for … in` walks its own keys (and any enumerable key added to `Object.prototype`: none in a sane
  // program).
  let seen = 0;
  for (const _key in record) {
    seen += 1;
    if (seen > count) return false;
  }
  return seen === count;
}

/** The chunk of a delta. @internal */
export function deltaChunk(delta: Delta): UIMessageChunk {
  const chunk = bareDeltaChunk(delta.type, delta.part, delta.text);
  if (delta.providerMetadata != null)
    (chunk as { providerMetadata?: unknown }).providerMetadata = delta.providerMetadata;
  return chunk;
}

/**
 * The chunk of a delta with no field but its type, part and text (a decoded log makes one per entry): an object
 * literal per type, its keys in `DELTA_FIELDS`' order. @internal
 */
export function bareDeltaChunk(type: DeltaType, part: string, text: string): UIMessageChunk {
  switch (type) {
    case "text-delta":
    case "reasoning-delta":
      return { type, id: part, delta: text };
    case "tool-input-delta":
      return { type, toolCallId: part, inputTextDelta: text };
    default:
      throw new RangeError(`not a delta type: ${JSON.stringify(type)}`);
  }
}
