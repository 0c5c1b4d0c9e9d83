import type { AgentToolLogEntry, AgentToolTailItem } from "./run-types.js";

/** The log entries among tail items, in order (a tail sends them in `entries` batches). */
export function tailItemEntries(items: Iterable<AgentToolTailItem>): AgentToolLogEntry[] {
  const entries: AgentToolLogEntry[] = [];
  for (const item of items) if (item.type === "entries") entries.push(...item.entries);
  return entries;
}
