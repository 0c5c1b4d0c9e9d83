import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunEvent } from "./run-events.js";

/** A listener of run events. A listener that throws is isolated: other listeners and the run go on. */
export type RunEventListener = (event: RunEvent) => void;

/** A sink that fans events out to subscribers. `emit` costs one size check when nobody listens. */
export type RunEventHub = RunEventSink & {
  subscribe(listener: RunEventListener): () => void;
  /** True when at least one listener is subscribed (lets emitters skip building events). */
  readonly hasListeners: boolean;
};

/** The `diagnostics_channel` name every run event of the default hub is published on (SPEC §11). */
export const AGENT_TOOL_DIAGNOSTICS_CHANNEL = "agents:agent_tool";

/** The part of a `diagnostics_channel` channel the hub publishes on (Node's `Channel`). */
export type RunEventChannel = { readonly hasSubscribers: boolean; publish(message: unknown): void };

/**
 * Create a hub of run events. With `channel`, every event is also published on it while it has subscribers (one
 * property read per event when it has none).
 */
export function createRunEventHub(options: { channel?: RunEventChannel | undefined } = {}): RunEventHub {
  const listeners = new Set<RunEventListener>();
  const { channel } = options;
  return {
    get hasListeners() {
      return listeners.size > 0;
    },
    emit(event) {
      if (listeners.size > 0) {
        for (const listener of listeners) {
          try {
            listener(event);
          } catch {
            // A subscriber's bug must never break a run.
          }
        }
      }
      if (channel?.hasSubscribers) {
        try {
          channel.publish(event);
        } catch {
          // observability never breaks a run
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

type BuiltinModuleLoader = { getBuiltinModule?: (id: string) => unknown };

/**
 * The `agents:agent_tool` channel of `node:diagnostics_channel` where the runtime has it (Node ≥ 20.16, workerd with
 * `nodejs_compat`), found through `process.getBuiltinModule` — no static `node:` import, so the package stays portable;
 * `undefined` elsewhere.
 */
export function loadAgentToolDiagnosticsChannel(): RunEventChannel | undefined {
  try {
    const process = (globalThis as { process?: BuiltinModuleLoader }).process;
    const module = process?.getBuiltinModule?.("node:diagnostics_channel") as
      | { channel?: (name: string) => RunEventChannel }
      | undefined;
    return typeof module?.channel === "function" ? module.channel(AGENT_TOOL_DIAGNOSTICS_CHANNEL) : undefined;
  } catch {
    return undefined;
  }
}

const hubKey = Symbol.for("agent-tools.run-event-hub");

/**
 * The process-wide hub core emits into by default, so observability works with no wiring: `subscribe` from
 * `@agent-tools/observability` listens to it, and it publishes every event on the `agents:agent_tool` diagnostics
 * channel whenever that channel has subscribers. Shared through a global symbol, so two copies of this package in one
 * bundle still meet.
 */
export function getDefaultRunEventHub(): RunEventHub {
  const holder = globalThis as { [hubKey]?: RunEventHub };
  holder[hubKey] ??= createRunEventHub({ channel: loadAgentToolDiagnosticsChannel() });
  return holder[hubKey];
}
