// @agent-tools/observability: what a user of the package writes (its README's examples and API). What the workspace's own
// packages share is at "@agent-tools/observability/internal": not API.

// channel: names, the typed event union, guards
export type { DispatchRejection } from "./channel.js";
export { CORE_RUN_EVENT_TYPES, isAgentToolEvent } from "./channel.js";
export { createDiagnosticsChannelSink, enableDiagnosticsChannel } from "./diagnostics-channel-sink.js";
// formatting
export { formatRunEvent } from "./format-event.js";
export { createOpenTelemetryExporter } from "./otel-exporter.js";
export { createRunSpanIds } from "./run-span-ids.js";
export { subscribe } from "./subscribe.js";
export { parseTraceparent } from "./traceparent.js";
