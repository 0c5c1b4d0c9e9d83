import type { AgentChatEvent } from "@agent-tools/core-runs/protocol";
import { ManualClock } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { createAgentToolConnection } from "./agent-tool-connection.js";
import { createChatEventChannel } from "./chat-event-channel.js";
import { fakeWebSockets, started } from "./test-support.test-utils.js";

const message = { id: "u1", role: "user", parts: [{ type: "text", text: "hello" }] } as const;

describe("conversation events on a connection", () => {
  it("hands each agent-chat-event frame to onChatEvent listeners, in order, and agent-tool frames to the store", () => {
    const sockets = fakeWebSockets();
    const connection = createAgentToolConnection({
      url: "wss://example.com/agents/assistant/default",
      WebSocket: sockets.WebSocket,
      clock: new ManualClock(0),
    });
    const events: AgentChatEvent[] = [];
    const unsubscribe = connection.onChatEvent((event) => events.push(event));
    sockets.last().open();
    sockets.last().send({ type: "agent-chat-event", event: { kind: "message", message } });
    sockets.last().send(started("r1"));
    sockets.last().send({
      type: "agent-chat-event",
      event: { kind: "turn-started", turnId: "t1", origin: "client", resumed: false },
    });
    sockets.last().send({ type: "agent-chat-event", event: { kind: "turn-ended", turnId: "t1", status: "aborted" } });
    expect(events).toEqual([
      { kind: "message", message },
      { kind: "turn-started", turnId: "t1", origin: "client", resumed: false },
      { kind: "turn-ended", turnId: "t1", status: "aborted" },
    ]);
    expect(Object.keys(connection.getSnapshot().timeline.runsById)).toEqual(["r1"]);
    unsubscribe();
    sockets.last().send({ type: "agent-chat-event", event: { kind: "history" } });
    expect(events).toHaveLength(3);
  });
});

describe("createChatEventChannel", () => {
  it("ignores what is not a well-formed conversation frame", () => {
    const channel = createChatEventChannel();
    const events: AgentChatEvent[] = [];
    channel.subscribe((event) => events.push(event));
    expect(channel.dispatch("not json, agent-chat-event")).toBe(false);
    expect(
      channel.dispatch(JSON.stringify({ type: "agent-chat-event", event: { kind: "turn-ended", turnId: 1 } })),
    ).toBe(false);
    expect(channel.dispatch({ type: "agent-tool-event", event: { kind: "cleared", runIds: [] } })).toBe(false);
    expect(channel.dispatch(42)).toBe(false);
    expect(events).toEqual([]);
    expect(channel.dispatch({ type: "agent-chat-event", event: { kind: "history" } })).toBe(true);
    expect(events).toEqual([{ kind: "history" }]);
  });

  it("keeps calling the other listeners when one throws", () => {
    const channel = createChatEventChannel();
    const seen: string[] = [];
    channel.subscribe(() => {
      throw new Error("a broken listener");
    });
    channel.subscribe((event) => seen.push(event.kind));
    expect(() => channel.dispatch({ type: "agent-chat-event", event: { kind: "history" } })).not.toThrow();
    expect(seen).toEqual(["history"]);
  });

  it("counts the same function subscribed twice as two subscriptions, each unsubscribed on its own", () => {
    const channel = createChatEventChannel();
    const seen: string[] = [];
    const listener = (event: AgentChatEvent) => seen.push(event.kind);
    const first = channel.subscribe(listener);
    channel.subscribe(listener);
    first();
    first();
    channel.dispatch({ type: "agent-chat-event", event: { kind: "history" } });
    expect(seen).toEqual(["history"]);
  });
});
