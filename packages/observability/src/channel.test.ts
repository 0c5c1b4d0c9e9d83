import { describe, expect, expectTypeOf, it } from "vitest";
import {
  AGENT_TOOL_DIAGNOSTICS_CHANNEL,
  CORE_RUN_EVENT_TYPES,
  type CoreRunEventOf,
  isAgentToolEvent,
  isCoreRunEvent,
  isCoreRunEventType,
  isRunEvent,
  type RunEvent,
  runIdOf,
} from "./channel.js";

const finish: RunEvent = {
  type: "agent_tool:run:finish",
  runId: "r1",
  agentType: "Echo",
  status: "completed",
  previousStatus: "running",
  durationMs: 5,
  at: 10,
};
const clear: RunEvent = { type: "agent_tool:clear", runIds: ["r1"], at: 10 };
const extension: RunEvent = { type: "agent_tool:detached:delivery_failed", runId: "r1", attempt: 2, at: 10 };

describe("channel", () => {
  it("names the diagnostics channel as the spec does", () => {
    expect(AGENT_TOOL_DIAGNOSTICS_CHANNEL).toBe("agents:agent_tool");
  });

  it("lists every event type core emits, once, in the namespace", () => {
    expect(CORE_RUN_EVENT_TYPES).toEqual([
      "agent_tool:run:dispatch",
      "agent_tool:run:start",
      "agent_tool:run:rejected",
      "agent_tool:run:finish",
      "agent_tool:run:reattach",
      "agent_tool:hook:error",
      "agent_tool:replay",
      "agent_tool:clear",
      "agent_tool:child:turn:start",
      "agent_tool:child:turn:finish",
      "agent_tool:run:progress",
      "agent_tool:child:recover",
    ]);
    expect(Object.isFrozen(CORE_RUN_EVENT_TYPES)).toBe(true);
    expect(CORE_RUN_EVENT_TYPES.every(isCoreRunEventType)).toBe(true);
    expect(isCoreRunEventType("agent_tool:detached:delivery_failed")).toBe(false);
    expect(isCoreRunEventType("toString")).toBe(false);
  });

  it("tells core events from extension events", () => {
    expect(isCoreRunEvent(finish)).toBe(true);
    expect(isCoreRunEvent(clear)).toBe(true);
    expect(isCoreRunEvent(extension)).toBe(false);
  });

  it("guards one event type and narrows it", () => {
    const isFinish = isAgentToolEvent("agent_tool:run:finish");
    const events = [finish, clear, extension];
    const finishes = events.filter(isFinish);
    expectTypeOf(finishes).toEqualTypeOf<CoreRunEventOf<"agent_tool:run:finish">[]>();
    expect(finishes).toEqual([finish]);
    expect(finishes[0]?.durationMs).toBe(5);
    expect(isAgentToolEvent("agent_tool:clear")(clear)).toBe(true);
  });

  it("recognizes untyped messages that are run events", () => {
    expect(isRunEvent(finish)).toBe(true);
    expect(isRunEvent(extension)).toBe(true);
    expect(isRunEvent({ type: "other:thing", at: 1 })).toBe(false);
    expect(isRunEvent({ type: "agent_tool:run:start" })).toBe(false);
    expect(isRunEvent(null)).toBe(false);
    expect(isRunEvent("agent_tool:run:start")).toBe(false);
  });

  it("reads the run id of an event, if it has one", () => {
    expect(runIdOf(finish)).toBe("r1");
    expect(runIdOf(extension)).toBe("r1");
    expect(runIdOf(clear)).toBeUndefined();
  });
});
