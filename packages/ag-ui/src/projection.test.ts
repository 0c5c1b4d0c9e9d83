import { type BaseEvent, EventType } from "@ag-ui/core";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolEventFrame,
} from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { decodeAgUiCursor, encodeAgUiCursor } from "./cursor.js";
import { AgUiProjection, type AgUiSource, interruptIdOf } from "./projection.js";
import { checkAgUiStream, recordTurn, turnEnded, turnStarted } from "./test-support.test-utils.js";

const project = (sources: AgUiSource[], projection = new AgUiProjection({ threadId: "thread-1" })) =>
  sources.flatMap((source) => projection.push(source));

const types = (events: BaseEvent[]) => events.map((event) => event.type);

describe("AgUiProjection", () => {
  it("projects a turn with a sub-agent: RUN_STARTED, SUBAGENT_STARTED, the child's events stamped, SUBAGENT_FINISHED, RUN_FINISHED", async () => {
    const { sources } = await recordTurn();
    const events = project(sources);
    await checkAgUiStream(events);
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.SUBAGENT_STARTED,
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.STEP_FINISHED,
      EventType.SUBAGENT_FINISHED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(events[0]).toMatchObject({ threadId: "thread-1", runId: "turn-1", protocolVersion: "1.0" });
    expect(events[1]).toEqual({
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: "agent-tool:call-1",
      name: "Researcher",
      description: "Researcher",
      parentToolCallId: "call-1",
    });
    for (const event of events.slice(2, 12)) expect(event).toMatchObject({ subagentRunId: "agent-tool:call-1" });
    expect(events[12]).toMatchObject({ subagentRunId: "agent-tool:call-1", result: "Cats sleep a lot." });
    expect(events.at(-1)).toEqual({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "turn-1" });
  });

  it("never repeats what it projected: a replay of every frame gives nothing", async () => {
    const { sources, replay } = await recordTurn();
    const projection = new AgUiProjection({ threadId: "thread-1" });
    project(sources, projection);
    expect(project([...replay, ...sources], projection)).toEqual([]);
  });

  it("goes on from a cursor: the stream cut anywhere and resumed verifies, with one start per id", async () => {
    const { sources, replay } = await recordTurn();
    const whole = project(sources);
    for (let cut = 1; cut < sources.length; cut += 1) {
      const first = new AgUiProjection({ threadId: "thread-1" });
      const before = project(sources.slice(0, cut), first);
      const state = decodeAgUiCursor(encodeAgUiCursor(first.state()));
      expect(state).not.toBeNull();
      if (state === null) throw new Error("the cursor did not decode");
      const second = new AgUiProjection({ threadId: "thread-1", state });
      // A reconnect replays what the registry retains (all of it here), then live frames go on.
      const after = project([...replay, ...sources.slice(cut)], second);
      expect([...before, ...after]).toEqual(whole);
    }
  });

  it("maps error and aborted runs to SUBAGENT_ERROR, interrupted to a suspended sub-agent and the run's interrupt outcome", async () => {
    const frames: AgUiSource[] = [
      turnStarted("turn-1"),
      started("run-error", 1),
      lifecycle({ kind: "error", runId: "run-error", error: "boom" }, 2),
      started("run-aborted", 1),
      lifecycle({ kind: "aborted", runId: "run-aborted", error: "Stopped" }, 2),
      started("run-int", 1),
      lifecycle(
        { kind: "interrupted", runId: "run-int", error: "No progress", reason: "no-progress", childStillRunning: true },
        2,
      ),
      turnEnded("turn-1", "completed"),
    ];
    const events = project(frames);
    await checkAgUiStream(events);
    expect(events.filter((event) => event.type === EventType.SUBAGENT_ERROR)).toEqual([
      { type: EventType.SUBAGENT_ERROR, subagentRunId: "run-error", message: "boom" },
      { type: EventType.SUBAGENT_ERROR, subagentRunId: "run-aborted", message: "Stopped", code: "aborted" },
    ]);
    expect(events.find((event) => event.type === EventType.SUBAGENT_FINISHED)).toEqual({
      type: EventType.SUBAGENT_FINISHED,
      subagentRunId: "run-int",
      outcome: { type: "suspended", interruptIds: [interruptIdOf("run-int")] },
    });
    expect(events.at(-1)).toEqual({
      type: EventType.RUN_FINISHED,
      threadId: "thread-1",
      runId: "turn-1",
      outcome: {
        type: "interrupt",
        interrupts: [
          { id: interruptIdOf("run-int"), subagentRunId: "run-int", reason: "no-progress", message: "No progress" },
        ],
      },
    });
  });

  it("maps the turn's own end: aborted is cancelled, error is RUN_ERROR, interrupted is an interrupt", async () => {
    for (const [status, last] of [
      ["aborted", { type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "t", outcome: { type: "cancelled" } }],
      ["error", { type: EventType.RUN_ERROR, message: "The answer failed" }],
      [
        "interrupted",
        {
          type: EventType.RUN_FINISHED,
          threadId: "thread-1",
          runId: "t",
          outcome: {
            type: "interrupt",
            interrupts: [{ id: "interrupted:turn:t", reason: "interrupted", message: "The answer was interrupted" }],
          },
        },
      ],
    ] as const) {
      const events = project([turnStarted("t"), turnEnded("t", status)]);
      await checkAgUiStream(events);
      expect(events.at(-1)).toEqual(last);
    }
  });

  it("a run outside any turn gets an AG-UI run of its own; one live at a turn's end is suspended and continued in the next", async () => {
    const events = project([
      started("bg", 1),
      chunk("bg", 1, { type: "text-start", id: "t" }),
      chunk("bg", 2, { type: "text-delta", id: "t", delta: "half" }),
      turnStarted("turn-2"),
      chunk("bg", 3, { type: "text-delta", id: "t", delta: " done" }),
      chunk("bg", 4, { type: "text-end", id: "t" }),
      lifecycle({ kind: "finished", runId: "bg", summary: "half done" }, 2),
      turnEnded("turn-2", "completed"),
    ]);
    await checkAgUiStream(events);
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.SUBAGENT_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.SUBAGENT_FINISHED,
      EventType.RUN_FINISHED,
      EventType.RUN_STARTED,
      EventType.SUBAGENT_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.SUBAGENT_FINISHED,
      EventType.RUN_FINISHED,
    ]);
    expect(events[0]).toMatchObject({ runId: "agent-tools:bg" });
    expect(events[5]).toMatchObject({ outcome: { type: "suspended" } });
    expect(events[7]).toMatchObject({ runId: "turn-2" });
    expect(events[12]).toMatchObject({ subagentRunId: "bg", result: "half done" });
  });

  it("drops a late start after the run's end, and chunks of a cleared run", async () => {
    const events = project([
      turnStarted("t"),
      started("r", 1),
      lifecycle({ kind: "finished", runId: "r", summary: "ok" }, 2),
      { ...started("r", 1), replay: true },
      started("c", 1),
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "cleared", runIds: ["c"] } },
      chunk("c", 1, { type: "text-delta", id: "x", delta: "late" }),
      turnEnded("t", "completed"),
    ]);
    await checkAgUiStream(events);
    expect(events.filter((event) => event.type === EventType.SUBAGENT_STARTED)).toHaveLength(2);
    expect(events).toContainEqual({
      type: EventType.SUBAGENT_ERROR,
      subagentRunId: "c",
      message: "The run was cleared",
      code: "cleared",
    });
    expect(events.some((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)).toBe(false);
  });

  it("an interrupted run repaired in the same AG-UI run is told by a CUSTOM event; in a later one it starts again", async () => {
    const interrupted = lifecycle(
      { kind: "interrupted", runId: "r", error: "No progress", reason: "no-progress", childStillRunning: true },
      2,
    );
    const repaired = lifecycle({ kind: "finished", runId: "r", summary: "late" }, 3);
    const same = project([turnStarted("t"), started("r", 1), interrupted, repaired, turnEnded("t", "completed")]);
    await checkAgUiStream(same);
    expect(same).toContainEqual({
      type: EventType.CUSTOM,
      name: "agent-tools.subagent-repaired",
      value: { subagentRunId: "r", status: "completed", result: "late" },
    });
    // Repaired: the AG-UI run ends with nothing pending.
    expect(same.at(-1)).toEqual({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "t" });

    const later = project([
      turnStarted("t1"),
      started("r", 1),
      interrupted,
      turnEnded("t1", "completed"),
      turnStarted("t2"),
      repaired,
      turnEnded("t2", "completed"),
    ]);
    await checkAgUiStream(later);
    expect(later.filter((event) => event.type === EventType.SUBAGENT_STARTED)).toHaveLength(2);
    expect(later).toContainEqual({ type: EventType.SUBAGENT_FINISHED, subagentRunId: "r", result: "late" });
  });

  it("ignores conversation events that are not turns", () => {
    const projection = new AgUiProjection({ threadId: "thread-1" });
    expect(projection.push({ type: AGENT_CHAT_EVENT_TYPE, event: { kind: "history" } })).toEqual([]);
  });
});

function started(runId: string, revision: number): AgentToolEventFrame {
  return {
    type: AGENT_TOOL_EVENT_TYPE,
    revision,
    event: { kind: "started", runId, agentType: "Worker", displayOrder: 0 },
  };
}

function lifecycle(event: AgentToolEventFrame["event"], revision: number): AgentToolEventFrame {
  return { type: AGENT_TOOL_EVENT_TYPE, revision, event };
}

function chunk(runId: string, sequence: number, body: unknown): AgentToolEventFrame {
  return { type: AGENT_TOOL_EVENT_TYPE, sequence, event: { kind: "chunk", runId, body: body as never } };
}

describe("checkAgUiStream (the test's own check)", () => {
  it("refuses a stream that starts a sub-agent twice, and an event its schema refuses", async () => {
    const run = { type: EventType.RUN_STARTED, threadId: "t", runId: "r" } as BaseEvent;
    const sub = { type: EventType.SUBAGENT_STARTED, subagentRunId: "s", name: "S" } as BaseEvent;
    await expect(checkAgUiStream([run, sub, sub])).rejects.toThrow(/already active/);
    await expect(checkAgUiStream([run, { type: EventType.SUBAGENT_STARTED, name: "S" } as BaseEvent])).rejects.toThrow(
      /invalid SUBAGENT_STARTED/,
    );
  });
});
