import { getDefaultRunEventHub } from "@agent-tools/core-runs";
import type { RunEventSink } from "@agent-tools/core-runs/internal";
import { AGENT_TOOL_DIAGNOSTICS_CHANNEL, type RunEvent } from "./channel.js";
import type { RunEventSource } from "./subscribe.js";

/** The part of a `diagnostics_channel` channel this package uses (Node's `Channel`). */
export type DiagnosticsChannel = {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
};

/** The part of the `node:diagnostics_channel` module this package uses. */
export type DiagnosticsChannelModule = {
  channel(name: string): DiagnosticsChannel;
};

type BuiltinModuleLoader = { getBuiltinModule?: (id: string) => unknown };

/**
 * `node:diagnostics_channel` where the runtime has it, without a static `node:` import (the package stays
 * portable): through `process.getBuiltinModule` (Node ≥ 20.16, workerd with `nodejs_compat`). `undefined`
 * elsewhere (browsers, older Node, workerd without Node compatibility).
 */
export function loadDiagnosticsChannel(): DiagnosticsChannelModule | undefined {
  const process = (globalThis as { process?: BuiltinModuleLoader }).process;
  let loaded: unknown;
  try {
    loaded = process?.getBuiltinModule?.("node:diagnostics_channel");
  } catch {
    return undefined;
  }
  const candidate = loaded as Partial<DiagnosticsChannelModule> | undefined;
  return typeof candidate?.channel === "function" ? (candidate as DiagnosticsChannelModule) : undefined;
}

/** A `RunEventSink` that publishes on the `agents:agent_tool` diagnostics channel. */
export type DiagnosticsChannelSink = RunEventSink & {
  /** False where the runtime has no `diagnostics_channel`: `emit` then does nothing. */
  readonly isAvailable: boolean;
  /** True while someone subscribes to the channel (the sink publishes only then). */
  readonly hasSubscribers: boolean;
};

export type DiagnosticsChannelOptions = {
  /**
   * The `diagnostics_channel` module to publish through, for runtimes where `process.getBuiltinModule` is
   * missing but the module can be imported (pass `import diagnosticsChannel from "node:diagnostics_channel"`).
   * Default: `loadDiagnosticsChannel()`.
   */
  diagnosticsChannel?: DiagnosticsChannelModule;
};

/**
 * A sink that publishes each run event, as is, on the `diagnostics_channel` named `agents:agent_tool`. It
 * publishes only while the channel has subscribers, so it costs one property read per event when nobody
 * listens, and it is a no-op where the runtime has no `diagnostics_channel`. Use it as a host's `sink`, or let
 * `enableDiagnosticsChannel({ source })` feed it from a host's own hub.
 *
 * Note that Node reports an exception thrown by a channel subscriber as an uncaught exception on the next tick;
 * it does not reach the run, which goes on.
 */
export function createDiagnosticsChannelSink(options: DiagnosticsChannelOptions = {}): DiagnosticsChannelSink {
  const diagnosticsChannel = options.diagnosticsChannel ?? loadDiagnosticsChannel();
  const channel = diagnosticsChannel?.channel(AGENT_TOOL_DIAGNOSTICS_CHANNEL);
  return {
    isAvailable: channel !== undefined,
    get hasSubscribers() {
      return channel?.hasSubscribers === true;
    },
    emit(event: RunEvent) {
      if (channel === undefined || !channel.hasSubscribers) return;
      try {
        channel.publish(event);
      } catch {
        // observability never breaks a run
      }
    },
  };
}

type Registration = { count: number; unsubscribe: () => void };

// Shared through a global symbol, like the hub itself: two copies of this package still publish each event once.
const registrationsKey = Symbol.for("agent-tools.observability.diagnostics-channel");

function registrations(): WeakMap<object, Registration> {
  const holder = globalThis as { [registrationsKey]?: WeakMap<object, Registration> };
  holder[registrationsKey] ??= new WeakMap();
  return holder[registrationsKey];
}

export type EnableDiagnosticsChannelOptions = DiagnosticsChannelOptions & {
  /** The hub to forward from. Default: the process-wide hub core emits into. */
  source?: RunEventSource;
};

/**
 * Publish every run event of a hub on the `agents:agent_tool` diagnostics channel. Not needed for the process-wide
 * hub core emits into by default: it publishes on the channel by itself whenever the channel has subscribers (so a
 * subscriber of the channel, the seed's way, sees events with no set-up), and enabling it again publishes nothing
 * twice. Use it for a hub a host passed to core as its `sink`. Idempotent per hub: publishing stops when every returned
 * disable function has been called (each works once). Where the runtime has no `diagnostics_channel`, it does nothing.
 *
 * @example
 * const hub = createRunEventHub();
 * const registry = new AgentToolRegistry({ store, transport, sink: hub });
 * enableDiagnosticsChannel({ source: hub });
 * // elsewhere, e.g. an APM agent:
 * diagnosticsChannel.subscribe("agents:agent_tool", (event) => record(event));
 */
export function enableDiagnosticsChannel(options: EnableDiagnosticsChannelOptions = {}): () => void {
  const source = options.source ?? getDefaultRunEventHub();
  // The default hub publishes on the channel by itself.
  if (source === getDefaultRunEventHub() && options.diagnosticsChannel === undefined) return () => {};
  const byHub = registrations();
  let registration = byHub.get(source);
  if (registration === undefined) {
    const sink = createDiagnosticsChannelSink(options);
    if (!sink.isAvailable) return () => {};
    registration = { count: 0, unsubscribe: source.subscribe((event) => sink.emit(event)) };
    byHub.set(source, registration);
  }
  const current = registration;
  current.count += 1;
  let isDisabled = false;
  return () => {
    if (isDisabled) return;
    isDisabled = true;
    current.count -= 1;
    if (current.count > 0) return;
    current.unsubscribe();
    if (byHub.get(source) === current) byHub.delete(source);
  };
}
