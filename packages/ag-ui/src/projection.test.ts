import { type BaseEvent, EventType } from "@ag-ui/core";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_EVENT_TYPE,
  type AgentToolApproval,
  approvalChunk,
} from "@agent-tools/core-runs/protocol";
import { acceptedFrameIndexes, adversarialRunFrames } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import { approvalInterruptId, interruptIdOf } from "./interrupts.js";
import { AgUiProjection } from "./projection.js";
import type { AgUiSource } from "./sources.js";
import {
  answerChunks,
  below,
  checkAgUiStream,
  childRun,
  chunk,
  lifecycle,
  recordTurn,
  started,
  turnEnded,
  turnStarted,
  userMessage,
} from "./test-support.test-utils.js";

const project = (sources: AgUiSource[], projection = new AgUiProjection({ threadId: "thread-1" })) =>
  sources.flatMap((source) => projection.push(source));

const types = (events: BaseEvent[]) => events.map((event) => event.type);
const find = (events: BaseEvent[], type: EventType, field?: Record<string, unknown>) =>
  events.findIndex(
    (event) =>
      event.type === type &&
      Object.entries(field ?? {}).every(([key, value]) => (event as Record<string, unknown>)[key] === value),
  );

describe("AgUiProjection", () => {
  it("projects a turn: the user's message, the answer's tool call, the sub-agent it started, its result, the answer's text", async () => {
    const { sources } = await recordTurn();
    const events = project(sources);
    await checkAgUiStream(events);
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
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
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(events[0]).toMatchObject({ threadId: "thread-1", runId: "turn-1", protocolVersion: "1.0" });
    expect(events[1]).toEqual({ type: EventType.TEXT_MESSAGE_START, messageId: "user-1", role: "user" });
    expect(events[4]).toEqual({
      type: EventType.TOOL_CALL_START,
      toolCallId: "call-1",
      toolCallName: "research",
      parentMessageId: "answer-1",
    });
    expect(events[7]).toEqual({
      type: EventType.SUBAGENT_STARTED,
      subagentRunId: "agent-tool:call-1",
      name: "Researcher",
      description: "Researcher",
      parentToolCallId: "call-1",
    });
    for (const event of events.slice(8, 18)) expect(event).toMatchObject({ subagentRunId: "agent-tool:call-1" });
    expect(events[18]).toMatchObject({ subagentRunId: "agent-tool:call-1", result: "Cats sleep a lot." });
    expect(events[21]).toMatchObject({
      messageId: "answer-1/a",
      delta: "According to my researcher: cats sleep a lot.",
    });
    expect(events.at(-1)).toEqual({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "turn-1" });
  });

  it("never repeats what it projected: a replay of every source gives nothing", async () => {
    const { sources, replay } = await recordTurn();
    const projection = new AgUiProjection({ threadId: "thread-1" });
    project(sources, projection);
    expect(project([...replay, ...sources], projection)).toEqual([]);
  });

  it("goes on from its state: the stream cut anywhere and resumed gives the same events, with one start per id", async () => {
    const { sources, replay } = await recordTurn();
    const whole = project(sources);
    for (let cut = 1; cut < sources.length; cut += 1) {
      const first = new AgUiProjection({ threadId: "thread-1" });
      const before = project(sources.slice(0, cut), first);
      const state = JSON.parse(JSON.stringify(first.state()));
      const second = new AgUiProjection({ threadId: "thread-1", state });
      // A reconnect replays what it had (once the turn is on, the registry's runs too), then the sources go on.
      const replayed = [...sources.slice(0, cut), ...(cut >= 3 ? replay : [])];
      const after = project([...replayed, ...sources.slice(cut)], second);
      expect([...before, ...after]).toEqual(whole);
    }
  });

  it("tells a sub-agent only after the tool call that started it, whichever comes first, at every depth", async () => {
    // The Middle (a top-level run) calls two leaves in one step; each leaf is a run below it.
    const middle = childRun("middle", { parentToolCallId: "call-1", text: "heard 2", calls: ["leaf-1", "leaf-2"] });
    const leaves = ["leaf-1", "leaf-2"].map((call) =>
      childRun(`agent-tool:${call}`, { parentToolCallId: call, text: `echo ${call}`, agentType: "Echo" }).map((frame) =>
        below(["middle"], frame),
      ),
    );
    const turn = (runs: AgUiSource[]) => [
      turnStarted("t"),
      ...runs,
      ...answerChunks("t", [
        { type: "start", messageId: "answer" },
        { type: "tool-input-available", toolCallId: "call-1", toolName: "delegate", input: {} },
        { type: "tool-output-available", toolCallId: "call-1", output: "heard 2" },
      ]),
      turnEnded("t", "completed"),
    ];
    // As a replay sends them: what is below first; as they come live: each after what started it.
    const replayed = project(
      turn([...leaves.flat(), ...middle]),
      new AgUiProjection({ threadId: "thread-1", followsAnswer: true }),
    );
    const live = project([
      turnStarted("t"),
      ...answerChunks("t", [
        { type: "start", messageId: "answer" },
        { type: "tool-input-available", toolCallId: "call-1", toolName: "delegate", input: {} },
      ]),
      ...middle.slice(0, 7),
      ...(leaves[0] ?? []),
      ...(leaves[1] ?? []),
      ...middle.slice(7),
      ...answerChunks("t", [{ type: "tool-output-available", toolCallId: "call-1", output: "heard 2" }], 2),
      turnEnded("t", "completed"),
    ]);
    for (const events of [replayed, live]) {
      await checkAgUiStream(events);
      const starts = events.filter((event) => event.type === EventType.SUBAGENT_STARTED);
      expect(starts).toEqual([
        {
          type: EventType.SUBAGENT_STARTED,
          subagentRunId: "middle",
          name: "Worker",
          parentToolCallId: "call-1",
        },
        {
          type: EventType.SUBAGENT_STARTED,
          subagentRunId: "middle/agent-tool:leaf-1",
          name: "Echo",
          parentSubagentRunId: "middle",
          parentToolCallId: "middle/leaf-1",
        },
        {
          type: EventType.SUBAGENT_STARTED,
          subagentRunId: "middle/agent-tool:leaf-2",
          name: "Echo",
          parentSubagentRunId: "middle",
          parentToolCallId: "middle/leaf-2",
        },
      ]);
      for (const leaf of ["leaf-1", "leaf-2"]) {
        const call = find(events, EventType.TOOL_CALL_END, { toolCallId: `middle/${leaf}` });
        const start = find(events, EventType.SUBAGENT_STARTED, { subagentRunId: `middle/agent-tool:${leaf}` });
        const result = find(events, EventType.TOOL_CALL_RESULT, { toolCallId: `middle/${leaf}` });
        expect(call).toBeGreaterThanOrEqual(0);
        expect(call).toBeLessThan(start);
        expect(start).toBeLessThan(result);
      }
    }
  });

  it("without the answer's chunks, tells a run as it comes (a host that only sends frames and turn events)", () => {
    const projection = new AgUiProjection({ threadId: "thread-1" });
    const events = project(
      [turnStarted("t"), started("r", 1, "call-1"), chunk("r", 1, { type: "text-delta", id: "x", delta: "live" })],
      projection,
    );
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.SUBAGENT_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
    ]);
  });

  it("ends the AG-UI run at an approval asked below: the asker suspended with its interrupt, its ancestors suspended", async () => {
    const approval: AgentToolApproval = {
      approvalId: "ap-1",
      toolCallId: "w1",
      toolName: "write",
      input: { text: "milk" },
      path: [],
      status: "pending",
      at: 1,
    };
    const writer = "agent-tool:write-1";
    const sources: AgUiSource[] = [
      turnStarted("t"),
      ...answerChunks("t", [
        { type: "start", messageId: "answer" },
        { type: "tool-input-available", toolCallId: "call-1", toolName: "edit", input: {} },
      ]),
      started("editor", 1, "call-1"),
      chunk("editor", 1, { type: "tool-input-available", toolCallId: "write-1", toolName: "write", input: {} }),
      below(["editor"], started(writer, 1, "write-1")),
      below(["editor"], chunk(writer, 1, { type: "tool-input-available", toolCallId: "w1", toolName: "write" })),
      // The writer's own copy, then the editor's (one level up), then the answer and its copies.
      below(["editor"], chunk(writer, 2, approvalChunk(approval))),
      chunk("editor", 2, approvalChunk({ ...approval, path: [{ agentType: "Writer", runId: writer }] })),
      chunk(
        "editor",
        3,
        approvalChunk({ ...approval, path: [{ agentType: "Writer", runId: writer }], status: "approved" }),
      ),
      below(["editor"], chunk(writer, 3, approvalChunk({ ...approval, status: "approved" }))),
      below(["editor"], chunk(writer, 4, { type: "tool-output-available", toolCallId: "w1", output: "saved" })),
      below(["editor"], lifecycle({ kind: "finished", runId: writer, summary: "saved" }, 2)),
      chunk("editor", 4, { type: "tool-output-available", toolCallId: "write-1", output: "saved" }),
      lifecycle({ kind: "finished", runId: "editor", summary: "saved" }, 2),
      turnEnded("t", "completed", "Saved."),
    ];
    const events = project(sources);
    await checkAgUiStream(events);
    const id = approvalInterruptId("editor", "ap-1");
    const interrupted = find(events, EventType.RUN_FINISHED);
    expect(events[interrupted]).toEqual({
      type: EventType.RUN_FINISHED,
      threadId: "thread-1",
      runId: "t",
      outcome: {
        type: "interrupt",
        interrupts: [
          expect.objectContaining({
            id,
            subagentRunId: `editor/${writer}`,
            reason: "tool_approval",
            toolCallId: `editor/${writer}/w1`,
            metadata: { approvalId: "ap-1", runId: "editor", toolName: "write", input: { text: "milk" } },
          }),
        ],
      },
    });
    const suspended = events.slice(0, interrupted).filter((event) => event.type === EventType.SUBAGENT_FINISHED);
    expect(suspended).toEqual([
      {
        type: EventType.SUBAGENT_FINISHED,
        subagentRunId: `editor/${writer}`,
        outcome: { type: "suspended", interruptIds: [id] },
      },
      { type: EventType.SUBAGENT_FINISHED, subagentRunId: "editor", outcome: { type: "suspended" } },
    ]);
    // What follows the answer is the next AG-UI run of the turn: the same sub-agents go on, then the turn ends.
    expect(events[interrupted + 1]).toMatchObject({ type: EventType.RUN_STARTED, runId: "t:1" });
    expect(events.filter((event) => event.type === EventType.RUN_STARTED)).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "t:1" });
  });

  it("starts the run a client asks for (a resume of its interrupt) and continues the turn in it", async () => {
    const approval: AgentToolApproval = {
      approvalId: "ap-1",
      toolCallId: "w1",
      toolName: "write",
      path: [],
      status: "pending",
      at: 1,
    };
    const projection = new AgUiProjection({ threadId: "thread-1" });
    project(
      [
        turnStarted("t"),
        ...answerChunks("t", [
          { type: "start", messageId: "answer" },
          { type: "tool-input-available", toolCallId: "call-1", toolName: "write", input: {} },
        ]),
        started("writer", 1, "call-1"),
        chunk("writer", 1, approvalChunk(approval)),
      ],
      projection,
    );
    expect(projection.runId).toBeNull();
    expect(projection.pendingInterrupts().map((interrupt) => interrupt.id)).toEqual([
      approvalInterruptId("writer", "ap-1"),
    ]);
    const events = [
      ...projection.begin("client-run-2"),
      ...project(
        [
          chunk("writer", 2, approvalChunk({ ...approval, status: "approved" })),
          chunk("writer", 3, { type: "text-delta", id: "x", delta: "saved" }),
          lifecycle({ kind: "finished", runId: "writer", summary: "saved" }, 2),
          turnEnded("t", "completed", "Done."),
        ],
        projection,
      ),
    ];
    await checkAgUiStream(events);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, runId: "client-run-2" });
    expect(events[1]).toMatchObject({ type: EventType.SUBAGENT_STARTED, subagentRunId: "writer" });
    expect(events.at(-1)).toEqual({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "client-run-2" });
    expect(projection.pendingInterrupts()).toEqual([]);
  });

  it("reports the turn's usage by model on RUN_FINISHED; a run that continues an interrupted one only what came since", async () => {
    const spent = (input: number, output: number) => ({
      inputTokens: input,
      outputTokens: output,
      runs: 1,
      models: [{ provider: "acme", model: "big", inputTokens: input, outputTokens: output }],
    });
    const approval: AgentToolApproval = {
      approvalId: "a",
      toolCallId: "w",
      toolName: "write",
      path: [],
      status: "pending",
      at: 1,
    };
    const events = project([
      turnStarted("t"),
      { type: AGENT_CHAT_EVENT_TYPE, event: { kind: "turn-usage", turnId: "t", usage: spent(10, 2) } },
      started("writer"),
      chunk("writer", 1, approvalChunk(approval)),
      chunk("writer", 2, approvalChunk({ ...approval, status: "denied" })),
      lifecycle({ kind: "finished", runId: "writer", summary: "not written" }, 2),
      turnEnded("t", "completed", "No.", spent(15, 5)),
    ]);
    await checkAgUiStream(events);
    const finished = events.filter((event) => event.type === EventType.RUN_FINISHED);
    expect(finished.map((event) => (event as { usage?: unknown }).usage)).toEqual([
      [{ provider: "acme", model: "big", inputTokens: 10, outputTokens: 2, totalTokens: 12 }],
      [{ provider: "acme", model: "big", inputTokens: 5, outputTokens: 3, totalTokens: 8 }],
    ]);
  });

  it("tells a user's message in its turn's run, and restates nothing it told", async () => {
    const projection = new AgUiProjection({ threadId: "thread-1" });
    const events = project([userMessage("u1", "hi"), turnStarted("t"), userMessage("u1", "hi")], projection);
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
    expect(projection.conversation()).toEqual({ count: 1, last: "u1" });
    // A rewritten history leaves the count unknown.
    project([{ type: AGENT_CHAT_EVENT_TYPE, event: { kind: "history" } }], projection);
    expect(projection.conversation()).toEqual({ count: -1 });
  });

  it("starts over with an empty MESSAGES_SNAPSHOT right after its first RUN_STARTED when asked to reset", async () => {
    const events = project(
      [turnStarted("t"), turnEnded("t", "completed", "hello")],
      new AgUiProjection({
        threadId: "thread-1",
        reset: true,
      }),
    );
    await checkAgUiStream(events);
    expect(events.slice(0, 2)).toEqual([
      expect.objectContaining({ type: EventType.RUN_STARTED }),
      { type: EventType.MESSAGES_SNAPSHOT, messages: [] },
    ]);
    expect(events.filter((event) => event.type === EventType.MESSAGES_SNAPSHOT)).toHaveLength(1);
  });

  it("maps error and aborted runs to SUBAGENT_ERROR, interrupted to a suspended sub-agent and the run's interrupt outcome", async () => {
    const frames: AgUiSource[] = [
      turnStarted("turn-1"),
      started("run-error"),
      lifecycle({ kind: "error", runId: "run-error", error: "boom" }, 2),
      started("run-aborted"),
      lifecycle({ kind: "aborted", runId: "run-aborted", error: "Stopped" }, 2),
      started("run-int"),
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
      started("bg"),
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
      started("r"),
      lifecycle({ kind: "finished", runId: "r", summary: "ok" }, 2),
      { ...started("r"), replay: true },
      started("c"),
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

  it("frames without a revision (an older parent): a late start never starts an ended or suspended run again", async () => {
    const { revision: _ended, ...lateStart } = started("r");
    const { revision: _cut, ...lateStartOfCut } = started("s");
    const events = project([
      turnStarted("t"),
      chunk("r", 1, { type: "text-delta", id: "x", delta: "a" }),
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "finished", runId: "r", summary: "ok" } },
      lateStart,
      chunk("s", 1, { type: "text-delta", id: "y", delta: "b" }),
      { type: AGENT_TOOL_EVENT_TYPE, event: { kind: "interrupted", runId: "s", error: "cut" } },
      lateStartOfCut,
      turnEnded("t", "completed"),
    ]);
    await checkAgUiStream(events);
    expect(events.filter((event) => event.type === EventType.SUBAGENT_STARTED)).toHaveLength(2);
  });

  it("accepts exactly the frames the protocol's rule accepts (acceptAgentToolFrame), above its high-water mark", () => {
    // A stream cannot take back what it told: a chunk that fills a gap late is dropped, as one at or below the
    // highest sequence told. Every other frame is told exactly when the rule accepts it.
    const frames = adversarialRunFrames("r");
    const projection = new AgUiProjection({ threadId: "thread-1" });
    projection.push(turnStarted("t"));
    const told: number[] = [];
    frames.forEach((frame, index) => {
      if (projection.push(frame).length > 0) told.push(index);
    });
    let highest = 0;
    const expected = acceptedFrameIndexes(frames).filter((index) => {
      const sequence = frames[index]?.sequence;
      if (sequence === undefined) return true;
      if (sequence <= highest) return false;
      highest = sequence;
      return true;
    });
    expect(told).toEqual(expected);
  });

  it("an interrupted run repaired in the same AG-UI run is told by a CUSTOM event; in a later one it starts again", async () => {
    const interrupted = lifecycle(
      { kind: "interrupted", runId: "r", error: "No progress", reason: "no-progress", childStillRunning: true },
      2,
    );
    const repaired = lifecycle({ kind: "finished", runId: "r", summary: "late" }, 3);
    const same = project([turnStarted("t"), started("r"), interrupted, repaired, turnEnded("t", "completed")]);
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
      started("r"),
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
});

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
