import { encodeAgentToolFrame } from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";
import { describe, expect, it, vi } from "vitest";
import { createAgentToolStore } from "./agent-tool-store.js";
import { chunk, cleared, sequenced, started, textChunks } from "./test-support.test-utils.js";

const TYPE = "agent-tool-event" as const;
const answer = [
  { type: "start-step" },
  ...textChunks("t1", "Cats sleep sixteen hours a day."),
] satisfies UIMessageChunk[];

describe("createAgentToolStore", () => {
  it("parses raw messages, ignores everything that is not a well-formed agent-tool frame, and never throws", () => {
    const store = createAgentToolStore();
    const listener = vi.fn();
    store.subscribe(listener);
    const junk: unknown[] = [
      "not json",
      '{"type":"cf_agent_use_chat_response","body":"{}"}',
      '{"type":"agent-tool-event"',
      '{"type":"agent-tool-event","event":{"kind":"chunk","runId":"r1","body":"not json"}}',
      '{"type":"agent-tool-event","sequence":-1,"event":{"kind":"chunk","runId":"r1","body":{"type":"x"}}}',
      '{"type":"agent-tool-event","event":{"kind":"teleported","runId":"r1"}}',
      null,
      42,
      new ArrayBuffer(4),
      { type: TYPE, event: null },
    ];
    for (const message of junk) expect(store.dispatch(message)).toBe(false);
    expect(listener).not.toHaveBeenCalled();
    expect(store.dispatch(encodeAgentToolFrame(started("r1")))).toBe(true);
    expect(store.dispatch(started("r1"))).toBe(false); // an already-parsed frame is accepted too; this one is stale
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().runsById["r1"]?.agentType).toBe("Researcher");
  });

  it("notifies on change only, and forgets everything on reset", () => {
    const store = createAgentToolStore();
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    for (const frame of [started("r1"), ...sequenced("r1", answer), cleared("gone")]) store.dispatchFrame(frame);
    const calls = listener.mock.calls.length;
    for (const frame of sequenced("r1", answer)) store.dispatchFrame(frame);
    expect(listener.mock.calls.length).toBe(calls);
    expect(Object.keys(store.cursors())).toEqual(["r1"]);
    store.reset();
    expect(store.getSnapshot().runsById).toEqual({});
    expect(store.getSnapshot().clearedRunIds).toEqual({});
    expect({ ...store.cursors() }).toEqual({});
    unsubscribe();
    store.dispatchFrame(started("r2"));
    expect(listener.mock.calls.length).toBe(calls + 1);
  });

  it("keeps a tool call's runs array while they do not change", () => {
    const store = createAgentToolStore();
    for (const frame of [started("a", { parentToolCallId: "c1" }), started("b", { parentToolCallId: "c2" })]) {
      store.dispatchFrame(frame);
    }
    const c1 = store.getRunsForToolCall("c1");
    const c2 = store.getRunsForToolCall("c2");
    store.dispatchFrame(chunk("b", 1, { type: "start-step" }));
    expect(store.getRunsForToolCall("c1")).toBe(c1);
    expect(store.getRunsForToolCall("c2")).not.toBe(c2);
    expect(store.getUnboundRuns()).toEqual([]);
  });
});
