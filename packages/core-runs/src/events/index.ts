// Observability events: the typed events core emits, and the process-wide hub that carries them.
export type { RunEventChannel, RunEventHub, RunEventListener } from "./run-event-hub.js";
export {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  createRunEventHub,
  getDefaultRunEventHub,
  loadAgentToolDiagnosticsChannel,
} from "./run-event-hub.js";
export type { CoreRunEvent, DispatchRejection, ExtensionRunEvent, RunEvent } from "./run-events.js";
