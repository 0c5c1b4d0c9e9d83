// channel: names, the typed event union, guards
export type {
  CoreRunEvent,
  CoreRunEventOf,
  CoreRunEventType,
  DispatchRejection,
  ExtensionRunEvent,
  ObservabilityChannelName,
  RunEvent,
} from "./channel.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  CORE_RUN_EVENT_TYPES,
  isAgentToolEvent,
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
export {
  createDiagnosticsChannelSink,
  enableDiagnosticsChannel,
  loadDiagnosticsChannel,
} from "./diagnostics-channel-sink.js";
// formatting
export { formatRunEvent } from "./format-event.js";
// OpenTelemetry
export type {
  OpenTelemetryExporter,
  OpenTelemetryExporterOptions,
  SpanOpeningEvent,
} from "./otel-exporter.js";
export { createOpenTelemetryExporter, DEFAULT_MAX_OPEN_SPANS } from "./otel-exporter.js";
export { createRunSpanIds, type RunSpanIds } from "./run-span-ids.js";
// subscribe
export type { RunEventListener, RunEventSource, SubscribeOptions } from "./subscribe.js";
export { subscribe } from "./subscribe.js";
export { formatTraceparent, parseTraceparent } from "./traceparent.js";
