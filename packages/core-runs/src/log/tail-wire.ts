import { type AgentToolTailItem, isObject } from "../protocol/index.js";
import { decodeParsedLog, encodeLogEntries } from "./log-codec.js";

/**
 * A tail item as the JSON text of one line on a byte stream between objects (a child's tail to its parent). An
 * `entries` item — a burst of the run's log — carries its entries in the log's compact encoding (`encodeLogEntries`:
 * no envelope per entry, the deltas of one part as one string), encoded once for the whole burst; the other items go
 * as they are. `tailItemFromJson` reads it back, equal.
 */
export function tailItemToJson(item: AgentToolTailItem): string {
  if (item.type !== "entries" || item.entries.length === 0) return JSON.stringify(item);
  return `{"type":"entries","log":${encodeLogEntries(item.entries)}}`;
}

/**
 * The tail item of a parsed line: `tailItemToJson`'s form, or the form before it (an `entries` item with its entries
 * whole), which a child running older code still sends. Throws a `RangeError` on an `entries` item whose log is not
 * one (the reader treats it as a broken tail).
 */
export function tailItemFromJson(value: unknown): AgentToolTailItem {
  if (isObject(value) && value["type"] === "entries" && "log" in value) {
    return { type: "entries", entries: decodeParsedLog(value["log"]) };
  }
  return value as AgentToolTailItem;
}
