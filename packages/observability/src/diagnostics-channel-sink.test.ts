import { createRunEventHub, getDefaultRunEventHub, loadAgentToolDiagnosticsChannel } from "@agent-tools/core-runs";
import { echoChild, inMemoryRegistry, ManualClock } from "@agent-tools/core-runs/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "./channel.js";
import {
  createDiagnosticsChannelSink,
  type DiagnosticsChannelModule,
  enableDiagnosticsChannel,
  loadDiagnosticsChannel,
} from "./diagnostics-channel-sink.js";
import { subscribe } from "./subscribe.js";

// Tests may use Node; the specifier sits in a variable so that tsc, which compiles this package without Node's
// types, does not follow it.
const NODE_DIAGNOSTICS_CHANNEL = "node:diagnostics_channel";
type NodeDiagnosticsChannel = DiagnosticsChannelModule & {
  subscribe(name: string, listener: (message: unknown, name: string) => void): void;
  unsubscribe(name: string, listener: (message: unknown, name: string) => void): boolean;
};
const diagnosticsChannel = (
  (await import(/* @vite-ignore */ NODE_DIAGNOSTICS_CHANNEL)) as { default: NodeDiagnosticsChannel }
).default;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  expect(getDefaultRunEventHub().hasListeners).toBe(false);
});

function listenOnChannel(): unknown[] {
  const messages: unknown[] = [];
  const listener = (message: unknown) => messages.push(message);
  diagnosticsChannel.subscribe("agents:agent_tool", listener);
  cleanups.push(() => diagnosticsChannel.unsubscribe("agents:agent_tool", listener));
  return messages;
}

async function runEcho(runId: string): Promise<void> {
  const clock = new ManualClock(1_000);
  const { registry } = inMemoryRegistry([echoChild("Echo")], clock, { sink: getDefaultRunEventHub() });
  await registry.runAgentTool("Echo", { input: "x", runId });
}

/** A stand-in `diagnostics_channel` that counts publishes. */
function fakeDiagnosticsChannel(options: { hasSubscribers: boolean; throws?: boolean }) {
  const published: unknown[] = [];
  const channel = {
    hasSubscribers: options.hasSubscribers,
    publish(message: unknown) {
      if (options.throws) throw new Error("subscriber bug");
      published.push(message);
    },
  };
  const module: DiagnosticsChannelModule = { channel: () => channel };
  return { module, channel, published };
}

describe("diagnostics channel", () => {
  it("publishes core's events on `agents:agent_tool` to a channel subscriber, with nothing else set up", async () => {
    const messages = listenOnChannel();
    await runEcho("r0");
    expect(messages.map((message) => (message as RunEvent).type)).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:child:turn:start",
      "agent_tool:run:start",
      "agent_tool:child:turn:finish",
      "agent_tool:run:finish",
    ]);
    // Publishing goes through the channel, not a hub listener: with no subscriber the hub stays idle.
    expect(getDefaultRunEventHub().hasListeners).toBe(false);
  });

  it("loads node:diagnostics_channel through process.getBuiltinModule on this Node", () => {
    const loaded = loadDiagnosticsChannel();
    expect(loaded).toBeDefined();
    expect(loaded?.channel("agents:agent_tool")).toBe(diagnosticsChannel.channel("agents:agent_tool"));
  });

  it("publishes each event once, as the hub delivers it, also when enableDiagnosticsChannel() was called", async () => {
    const messages = listenOnChannel();
    const events: RunEvent[] = [];
    cleanups.push(subscribe("agentTool", (event) => events.push(event)));
    cleanups.push(enableDiagnosticsChannel());
    cleanups.push(enableDiagnosticsChannel());
    await runEcho("r1");
    expect(events.map((event) => event.type)).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:child:turn:start",
      "agent_tool:run:start",
      "agent_tool:child:turn:finish",
      "agent_tool:run:finish",
    ]);
    expect(messages).toEqual(events);
    expect(messages[0]).toBe(events[0]);
  });

  it("enabling for the default hub adds no hub listener, and nothing is published without a channel subscriber", async () => {
    const disable = enableDiagnosticsChannel();
    expect(getDefaultRunEventHub().hasListeners).toBe(false);
    disable();
    expect(diagnosticsChannel.channel("agents:agent_tool").hasSubscribers).toBe(false);
    await runEcho("r1");
    const messages = listenOnChannel();
    expect(messages).toEqual([]);
  });

  it("publishes only while the channel has subscribers", () => {
    const fake = fakeDiagnosticsChannel({ hasSubscribers: false });
    const sink = createDiagnosticsChannelSink({ diagnosticsChannel: fake.module });
    const event: RunEvent = { type: "agent_tool:run:start", runId: "r1", agentType: "Echo", at: 1 };
    expect(sink.isAvailable).toBe(true);
    expect(sink.hasSubscribers).toBe(false);
    sink.emit(event);
    expect(fake.published).toEqual([]);
    fake.channel.hasSubscribers = true;
    sink.emit(event);
    expect(fake.published).toEqual([event]);
  });

  it("a channel that throws never reaches the emitter", () => {
    const fake = fakeDiagnosticsChannel({ hasSubscribers: true, throws: true });
    const sink = createDiagnosticsChannelSink({ diagnosticsChannel: fake.module });
    expect(() => sink.emit({ type: "agent_tool:clear", runIds: [], at: 1 })).not.toThrow();
  });

  it("forwards from a host's own hub when given one", () => {
    const fake = fakeDiagnosticsChannel({ hasSubscribers: true });
    const hub = createRunEventHub();
    const disable = enableDiagnosticsChannel({ source: hub, diagnosticsChannel: fake.module });
    hub.emit({ type: "agent_tool:clear", runIds: ["r1"], at: 1 });
    disable();
    hub.emit({ type: "agent_tool:clear", runIds: ["r2"], at: 2 });
    expect(fake.published).toEqual([{ type: "agent_tool:clear", runIds: ["r1"], at: 1 }]);
    expect(hub.hasListeners).toBe(false);
  });

  it("is a no-op where the runtime has no diagnostics_channel", async () => {
    const process = (globalThis as unknown as { process: { getBuiltinModule?: unknown } }).process;
    const original = process.getBuiltinModule;
    process.getBuiltinModule = undefined;
    try {
      expect(loadDiagnosticsChannel()).toBeUndefined();
      expect(loadAgentToolDiagnosticsChannel()).toBeUndefined();
      const sink = createDiagnosticsChannelSink();
      expect(sink.isAvailable).toBe(false);
      expect(sink.hasSubscribers).toBe(false);
      expect(() => sink.emit({ type: "agent_tool:clear", runIds: [], at: 1 })).not.toThrow();
      const hub = createRunEventHub();
      const disable = enableDiagnosticsChannel({ source: hub });
      expect(hub.hasListeners).toBe(false);
      disable();
    } finally {
      process.getBuiltinModule = original;
    }
  });

  it("treats a getBuiltinModule that throws as no diagnostics_channel", () => {
    const process = (globalThis as unknown as { process: { getBuiltinModule?: unknown } }).process;
    const original = process.getBuiltinModule;
    process.getBuiltinModule = () => {
      throw new Error("not allowed here");
    };
    try {
      expect(loadDiagnosticsChannel()).toBeUndefined();
    } finally {
      process.getBuiltinModule = original;
    }
  });
});
