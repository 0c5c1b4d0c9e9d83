/**
 * Reading values of unknown shape (what the wire, storage or a user's hook gives): the guards and conversions every
 * reader shares.
 */

/** True for an object that is not `null` nor an array: a record whose fields can be read. @experimental */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `value` as text: a string as it is, anything else as JSON (indented by `space`), or `String(value)` where JSON
 * cannot carry it (a cycle, a BigInt, `undefined`, a function).
 * @experimental
 */
export function stringifyForText(value: unknown, space?: number): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, space) ?? String(value);
  } catch {
    return String(value);
  }
}
