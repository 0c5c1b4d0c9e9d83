// A run's sequenced log: its compact encoding, compaction and retention, and the live writer a child's turn appends to.
export { decodeLogEntries, encodeLogEntries } from "./log-codec.js";
export { compactRunLog } from "./log-compaction.js";
export type { LogRetention, LogRetentionOptions, LogRetentionReport, RetainLogsPolicy } from "./log-retention.js";
export { createLogRetention, DEFAULT_LOG_RETENTION_BATCH, DEFAULT_LOG_RETENTION_SETTLE_MS } from "./log-retention.js";
export type { MergedLogEntry } from "./merged-log-entry.js";
export { tailItemFromJson, tailItemToJson } from "./tail-wire.js";
export { omitVoidedEntries } from "./voided-entry-filter.js";
