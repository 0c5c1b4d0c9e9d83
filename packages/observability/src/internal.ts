// "@agent-tools/observability/internal": what the workspace's own packages share. Not API: it changes without a
// major version. What a user writes is at "@agent-tools/observability".
export type {
  CoreRunEvent,
  CoreRunEventOf,
  CoreRunEventType,
  ExtensionRunEvent,
  ObservabilityChannelName,
  RunEvent,
} from "./channel.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  isCoreRunEvent,
  isCoreRunEventType,
  isRunEvent,
  OBSERVABILITY_CHANNEL_NAMES,
  runIdOf,
} from "./channel.js";
// diagnostics_channel
export type {
  DiagnosticsChannel,
  DiagnosticsChannelModule,
  DiagnosticsChannelOptions,
  DiagnosticsChannelSink,
  EnableDiagnosticsChannelOptions,
} from "./diagnostics-channel-sink.js";
export { loadDiagnosticsChannel } from "./diagnostics-channel-sink.js";
// OpenTelemetry
export type { OpenTelemetryExporter, OpenTelemetryExporterOptions, SpanOpeningEvent } from "./otel-exporter.js";
export { DEFAULT_MAX_OPEN_SPANS } from "./otel-exporter.js";
export type { RunSpanIds } from "./run-span-ids.js";
// subscribe
export type { RunEventListener, RunEventSource, SubscribeOptions } from "./subscribe.js";
export { formatTraceparent } from "./traceparent.js";
