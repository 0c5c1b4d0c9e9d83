import { describe, expect, it } from "vitest";
import type { RunEvent } from "./channel.js";
import { formatRunEvent } from "./format-event.js";

const at = 1_000;

describe("formatRunEvent", () => {
  it.each<[RunEvent, string]>([
    [
      {
        type: "agent_tool:run:dispatch",
        runId: "agent-tool:call-1",
        agentType: "Researcher",
        parentToolCallId: "call-1",
        detached: false,
        at,
      },
      "agent_tool:run:dispatch Researcher/agent-tool:call-1 awaited toolCall=call-1",
    ],
    [
      { type: "agent_tool:run:dispatch", runId: "r1", agentType: "Importer", detached: true, at },
      "agent_tool:run:dispatch Importer/r1 detached",
    ],
    [{ type: "agent_tool:run:start", runId: "r1", agentType: "Echo", at }, "agent_tool:run:start Echo/r1"],
    [
      { type: "agent_tool:run:rejected", runId: "r1", agentType: "Echo", rejection: "max-concurrency", at },
      "agent_tool:run:rejected Echo/r1 max-concurrency",
    ],
    [
      {
        type: "agent_tool:run:finish",
        runId: "agent-tool:call-1",
        agentType: "Researcher",
        status: "completed",
        previousStatus: "running",
        durationMs: 120,
        at,
      },
      "agent_tool:run:finish Researcher/agent-tool:call-1 completed 120ms",
    ],
    [
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Echo",
        status: "interrupted",
        reason: "not-tailable",
        previousStatus: "running",
        durationMs: 5000,
        at,
      },
      "agent_tool:run:finish Echo/r1 interrupted not-tailable 5000ms",
    ],
    [
      {
        type: "agent_tool:run:finish",
        runId: "r2",
        agentType: "Echo",
        status: "error",
        cause: "start-failed",
        previousStatus: "starting",
        durationMs: 3,
        at,
      },
      "agent_tool:run:finish Echo/r2 error cause=start-failed 3ms",
    ],
    [
      {
        type: "agent_tool:run:finish",
        runId: "r3",
        agentType: "Echo",
        status: "completed",
        cause: "child",
        previousStatus: "running",
        durationMs: 7,
        at,
      },
      "agent_tool:run:finish Echo/r3 completed 7ms",
    ],
    [
      {
        type: "agent_tool:run:finish",
        runId: "r1",
        agentType: "Echo",
        status: "completed",
        previousStatus: "interrupted",
        durationMs: 9000,
        at,
      },
      "agent_tool:run:finish Echo/r1 completed 9000ms (repaired)",
    ],
    [
      { type: "agent_tool:run:reattach", runId: "r1", agentType: "Echo", afterSequence: 12, at },
      "agent_tool:run:reattach Echo/r1 after=12",
    ],
    [
      {
        type: "agent_tool:hook:error",
        hook: "onAgentToolFinish",
        runId: "r1",
        agentType: "Echo",
        errorName: "TypeError",
        at,
      },
      "agent_tool:hook:error onAgentToolFinish Echo/r1 TypeError",
    ],
    [
      { type: "agent_tool:replay", runs: 2, frames: 14, cleared: 1, withCursors: true, at },
      "agent_tool:replay runs=2 frames=14 cleared=1 cursors",
    ],
    [
      { type: "agent_tool:replay", runs: 0, frames: 0, cleared: 0, withCursors: false, at },
      "agent_tool:replay runs=0 frames=0 cleared=0 full",
    ],
    [{ type: "agent_tool:clear", runIds: ["r1", "r2"], at }, "agent_tool:clear runs=2 r1,r2"],
    [{ type: "agent_tool:clear", runIds: [], at }, "agent_tool:clear runs=0"],
    [
      { type: "agent_tool:child:turn:start", runId: "r1", agentType: "Echo", resumed: true, at },
      "agent_tool:child:turn:start Echo/r1 resumed",
    ],
    [
      { type: "agent_tool:child:turn:finish", runId: "r1", agentType: "Echo", status: "aborted", entries: 3, at },
      "agent_tool:child:turn:finish Echo/r1 aborted entries=3",
    ],
  ])("%o → %s", (event, line) => {
    expect(formatRunEvent(event)).toBe(line);
  });

  it("lists at most ten cleared run ids", () => {
    const runIds = Array.from({ length: 13 }, (_, index) => `r${index}`);
    expect(formatRunEvent({ type: "agent_tool:clear", runIds, at })).toBe(
      "agent_tool:clear runs=13 r0,r1,r2,r3,r4,r5,r6,r7,r8,r9 +3 more",
    );
  });

  it("prints an extension event's scalar fields, never its objects", () => {
    const event: RunEvent = {
      type: "agent_tool:detached:delivery_failed",
      runId: "r1",
      agentType: "Importer",
      attempt: 2,
      final: false,
      method: "onImportDone",
      statuses: ["error", "aborted"],
      payload: { secret: "never printed" },
      at,
    };
    expect(formatRunEvent(event)).toBe(
      "agent_tool:detached:delivery_failed Importer/r1 attempt=2 final=false method=onImportDone statuses=error,aborted",
    );
    expect(formatRunEvent({ type: "agent_tool:recovery:scan", rows: 3, at })).toBe("agent_tool:recovery:scan rows=3");
  });

  it("escapes newlines and control characters in every field it prints (a client's cancel reason forges no line)", () => {
    const forged = "bye\n[agent-tools] agent_tool:run:finish Forged/x completed 1ms\u001b[31mRED\u001b[0m";
    // An extension event whose string field carries what a client sent, and a core event whose typed fields do not
    // hold what their types say (the channel is public: anything may publish on it).
    const cancelled = {
      type: "agent_tool:detached:cancelled",
      runId: "r1",
      agentType: "Importer",
      reason: forged,
      at,
    } as RunEvent;
    const finish = {
      type: "agent_tool:run:finish",
      runId: "r1",
      agentType: "Importer",
      status: "aborted\r\nforged",
      reason: forged,
      cause: "cancel\u001b[2J",
      previousStatus: "running",
      durationMs: 5,
      at,
    } as unknown as RunEvent;
    const escapedReason = '"bye\\n[agent-tools] agent_tool:run:finish Forged/x completed 1ms\\u001b[31mRED\\u001b[0m"';
    expect(formatRunEvent(cancelled)).toBe(`agent_tool:detached:cancelled Importer/r1 reason=${escapedReason}`);
    expect(formatRunEvent(finish)).toBe(
      `agent_tool:run:finish Importer/r1 "aborted\\r\\nforged" ${escapedReason} cause="cancel\\u001b[2J" 5ms`,
    );
  });

  it("escapes what JSON leaves as is: C1 controls, DEL, line separators, bidi overrides", () => {
    const event = {
      type: "agent_tool:run:start",
      runId: "a\u0085b\u009b31mc\u007fd\u2028e\u2029f\u202eg",
      agentType: "Echo",
      at,
    } as RunEvent;
    const line = formatRunEvent(event);
    expect(line).toBe('agent_tool:run:start Echo/"a\\u0085b\\u009b31mc\\u007fd\\u2028e\\u2029f\\u202eg"');
    expect(line).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
  });

  it("keeps a line one line: odd ids are quoted", () => {
    expect(formatRunEvent({ type: "agent_tool:run:start", runId: "a b\nc", agentType: "Echo", at })).toBe(
      'agent_tool:run:start Echo/"a b\\nc"',
    );
  });
});
