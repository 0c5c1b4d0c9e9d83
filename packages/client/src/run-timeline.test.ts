import { encodeAgentToolCursors, encodeAgentToolFrame, parseAgentToolCursors } from "@agent-tools/core-runs/protocol";
import { acceptedFrameIndexes, adversarialRunFrames } from "@agent-tools/core-runs/testing";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { createAgentToolStore } from "./agent-tool-store.js";
import { assembleUIMessageParts } from "./apply-ui-message-chunk.js";
import { type AgentToolTimelineState, applyAgentToolEvent, createAgentToolTimelineState } from "./run-timeline.js";
import {
  chunk,
  cleared,
  type Frame,
  failed,
  finished,
  interrupted,
  milestone,
  progress,
  randomInt,
  seededRandom,
  sequenced,
  shuffled,
  started,
  textChunks,
  toolChunks,
} from "./test-support.test-utils.js";
import { selectAgentToolCursors, selectRunsForToolCall, selectUnboundRuns } from "./timeline-selectors.js";

const reduce = (frames: readonly Frame[], state = createAgentToolTimelineState()) =>
  frames.reduce<AgentToolTimelineState>((current, frame) => applyAgentToolEvent(current, frame), state);

const answer = [
  { type: "start-step" },
  ...textChunks("t1", "Cats sleep sixteen hours a day."),
] satisfies UIMessageChunk[];

describe("applyAgentToolEvent", () => {
  it("builds a run from started, chunks and finished, with its parts, summary and drill-in address", () => {
    const state = reduce([
      started("agent-tool:c1", { parentToolCallId: "c1", displayOrder: 0 }),
      ...sequenced("agent-tool:c1", answer),
      finished("agent-tool:c1", 3, "Cats sleep a lot."),
    ]);
    const run = state.runsById["agent-tool:c1"];
    expect(run).toMatchObject({
      runId: "agent-tool:c1",
      agentType: "Researcher",
      parentToolCallId: "c1",
      status: "completed",
      revision: 3,
      lastSequence: answer.length,
      summary: "Cats sleep a lot.",
      error: null,
      inputPreview: "input of agent-tool:c1",
      startedAt: 1000,
      detached: false,
      drillInUrl: "sub/Researcher/agent-tool%3Ac1",
    });
    expect(run?.parts).toEqual(assembleUIMessageParts(answer));
    expect(run?.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Cats sleep sixteen hours a day.", state: "done" },
    ]);
  });

  it("marks a run dispatched in the background from its started frame", () => {
    const state = reduce([started("bg-1", { detached: true }), started("awaited")]);
    expect(state.runsById["bg-1"]?.detached).toBe(true);
    expect(state.runsById["awaited"]?.detached).toBe(false);
  });

  it("dedupes durable chunks by (runId, sequence): a repeat changes nothing, not even the state's identity", () => {
    const once = reduce([started("r1"), ...sequenced("r1", answer)]);
    const twice = reduce(sequenced("r1", answer), once);
    expect(twice).toBe(once);
    // The same sequence number on another run is another chunk.
    const other = reduce(sequenced("r2", answer), once);
    expect(other.runsById["r2"]?.parts).toEqual(once.runsById["r1"]?.parts);
  });

  it("assembles chunks in sequence order whatever order they arrive in, and keeps a gap-free cursor", () => {
    const frames = sequenced("r1", answer);
    const reversed = [...frames].reverse();
    let state = reduce([started("r1")]);
    const cursorAfterEach: number[] = [];
    for (const frame of reversed) {
      state = applyAgentToolEvent(state, frame);
      cursorAfterEach.push(state.runsById["r1"]?.lastSequence ?? -1);
    }
    expect(state.runsById["r1"]?.parts).toEqual(reduce(frames).runsById["r1"]?.parts);
    // Nothing is gap-free from 1 until sequence 1 arrives, last.
    expect(cursorAfterEach).toEqual([...frames.map(() => 0).slice(1), answer.length]);
  });

  it("applies a lifecycle frame only when its revision is newer", () => {
    const done = reduce([started("r1"), interrupted("r1", 2), finished("r1", 3, "repaired")]);
    // A repair interrupted → completed clears the interruption's fields.
    expect(done.runsById["r1"]).toMatchObject({
      status: "completed",
      revision: 3,
      summary: "repaired",
      error: null,
      reason: null,
      childStillRunning: null,
    });
    // Late frames: a started never revives it, a stale interrupted never downgrades it.
    expect(reduce([started("r1"), interrupted("r1", 2), failed("r1", 3)], done)).toBe(done);
    const interruptedOnly = reduce([started("r1"), interrupted("r1", 2)]);
    expect(interruptedOnly.runsById["r1"]).toMatchObject({
      status: "interrupted",
      error: "stopped waiting",
      reason: "no-progress",
      childStillRunning: true,
    });
  });

  it("keeps the server's completedAt of the terminal frame it applies (null while live, updated by a repair)", () => {
    // Terminal frames carry the server time the run ended (issue 15, defect 7: it stayed null).
    const at = (frame: Frame, completedAt: number) => ({ ...frame, event: { ...frame.event, completedAt } }) as Frame;
    const live = reduce([started("r1"), ...sequenced("r1", answer)]);
    expect(live.runsById["r1"]?.completedAt).toBeNull();
    const stopped = reduce([at(interrupted("r1", 2), 5_000)], live);
    expect(stopped.runsById["r1"]).toMatchObject({ status: "interrupted", completedAt: 5_000 });
    const repaired = reduce([at(finished("r1", 3), 9_000)], stopped);
    expect(repaired.runsById["r1"]).toMatchObject({ status: "completed", completedAt: 9_000 });
    // A stale terminal changes nothing, its completedAt included.
    expect(reduce([at(failed("r1", 2), 7_000)], repaired)).toBe(repaired);
    expect(reduce([at(failed("r2", 2), 4_000)]).runsById["r2"]).toMatchObject({ status: "error", completedAt: 4_000 });
    expect(reduce([started("r3"), finished("r3", 2)]).runsById["r3"]?.completedAt).toBeNull(); // an older server
  });

  it("makes a placeholder run for a frame of an unknown run, which a later (even late) started fills in", () => {
    const early = reduce([chunk("r1", 1, { type: "start-step" }, "call-9")]);
    expect(early.runsById["r1"]).toMatchObject({
      status: "running",
      agentType: null,
      revision: 0,
      parentToolCallId: "call-9",
      drillInUrl: null,
      displayOrder: 0,
    });
    const ended = reduce([finished("r1", 3, "ok"), started("r1", { agentType: "Summarizer", displayOrder: 2 })], early);
    expect(ended.runsById["r1"]).toMatchObject({
      status: "completed",
      revision: 3,
      agentType: "Summarizer",
      displayOrder: 2,
      drillInUrl: "sub/Summarizer/r1",
    });
  });

  it("forgets cleared runs and ignores late frames for them", () => {
    const state = reduce([started("r1"), started("r2"), ...sequenced("r1", answer), cleared("r1")]);
    expect(Object.keys(state.runsById)).toEqual(["r2"]);
    expect(state.runOrder).toEqual(["r2"]);
    expect(reduce([chunk("r1", 99, { type: "start-step" }), started("r1"), finished("r1", 5)], state)).toBe(state);
    expect(selectAgentToolCursors(state)).toEqual({ r2: { sequence: 0, revision: 1 } });
    expect(reduce([cleared("r1")], state)).toBe(state);
  });

  it("shows the newest progress by server time, and lists each milestone once, in sequence order", () => {
    let state = reduce([
      started("r1"),
      progress("r1", { fraction: 0.2, message: "reading", phase: "fetch", at: 10 }),
      progress("r1", { fraction: 0.5, message: "halfway", at: 20 }),
    ]);
    expect(state.runsById["r1"]?.progress).toEqual({ fraction: 0.5, message: "halfway", at: 20 });
    // A replayed, older snapshot does not move the bar back.
    expect(reduce([progress("r1", { fraction: 0.2, at: 10 })], state)).toBe(state);
    state = reduce(
      [milestone("r1", 2, "parsed", 30, 0.7), milestone("r1", 1, "fetched", 15), milestone("r1", 2, "parsed", 30)],
      state,
    );
    const run = state.runsById["r1"];
    expect(run?.milestones).toEqual([
      { sequence: 1, name: "fetched", at: 15 },
      { sequence: 2, name: "parsed", fraction: 0.7, at: 30 },
    ]);
    // The newest milestone moves the progress on, keeping the bar's fields it does not bring (here the message).
    expect(run?.progress).toEqual({ milestone: "parsed", fraction: 0.7, message: "halfway", at: 30 });
    // Milestones are durable chunks: the AI SDK would render them as data parts, and so do we. Progress is not.
    expect(run?.parts.map((part) => part.type)).toEqual(["data-agent-milestone", "data-agent-milestone"]);
    expect(run?.lastSequence).toBe(2);
  });

  it("treats runIds such as __proto__ and constructor as ordinary keys", () => {
    const state = reduce([
      started("__proto__"),
      started("constructor", { parentToolCallId: "toString" }),
      ...sequenced("__proto__", answer),
      cleared("constructor"),
    ]);
    expect(Object.keys(state.runsById)).toEqual(["__proto__"]);
    const protoKey = "__proto__";
    expect(state.runsById[protoKey]?.parts).toHaveLength(2);
    expect(Object.getPrototypeOf(state.runsById)).toBe(Object.prototype);
    expect(selectRunsForToolCall(state, "toString")).toEqual([]);
    expect(reduce([started("constructor")], state)).toBe(state);
    expect(Object.keys(selectAgentToolCursors(state))).toEqual(["__proto__"]);
  });

  it("accepts a chunk body given as a JSON string (the seed system's form)", () => {
    const frame = {
      ...chunk("r1", 1, { type: "text-start", id: "t" }),
      event: { kind: "chunk", runId: "r1", body: '{"type":"text-start","id":"t"}' },
    };
    const state = reduce([frame as unknown as Frame, chunk("r1", 2, { type: "text-delta", id: "t", delta: "hi" })]);
    expect(state.runsById["r1"]?.parts).toEqual([{ type: "text", text: "hi", state: "streaming" }]);
  });

  it("applies chunks without a sequence (an older server) in arrival order", () => {
    const state = reduce(textChunks("t", "no sequence here").map((body) => chunk("r1", undefined, body)));
    expect(state.runsById["r1"]?.parts).toEqual([{ type: "text", text: "no sequence here", state: "done" }]);
    expect(state.runsById["r1"]?.lastSequence).toBe(0);
  });

  it("records the last in-band stream error, and lifecycle errors separately", () => {
    const state = reduce([
      started("r1"),
      chunk("r1", 1, { type: "error", errorText: "model overloaded" }),
      failed("r1", 2, "The run failed"),
    ]);
    expect(state.runsById["r1"]).toMatchObject({
      streamError: "model overloaded",
      error: "The run failed",
      status: "error",
    });
  });

  it("is pure: it never changes its inputs, and the same inputs give the same output", () => {
    const frames = [
      started("r1", { parentToolCallId: "c1" }),
      ...sequenced("r1", [
        ...answer,
        ...toolChunks({ toolCallId: "x", toolName: "lookup", input: { q: 1 }, output: 2 }),
      ]),
      progress("r1", { fraction: 0.4, at: 5 }),
      milestone("r1", 20, "m", 6),
      finished("r1", 2),
      cleared("r0"),
    ];
    let state = deepFreeze(createAgentToolTimelineState());
    for (const frame of frames) {
      const before = JSON.stringify(state);
      const first = applyAgentToolEvent(state, deepFreeze(frame));
      const second = applyAgentToolEvent(state, frame);
      expect(second).toEqual(first);
      expect(JSON.stringify(state)).toBe(before);
      state = deepFreeze(first);
    }
    // Out of order too (the reassembly path).
    const shuffledState = reduce(shuffled(frames, seededRandom(7)));
    expect(shuffledState.runsById["r1"]?.parts).toEqual(state.runsById["r1"]?.parts);
  });

  it("uses a drill-in address of the caller's choosing", () => {
    const state = frames3().reduce<AgentToolTimelineState>(
      (current, frame) =>
        applyAgentToolEvent(current, frame, { drillInUrl: (run) => (run.agentType ? `/runs/${run.runId}` : null) }),
      createAgentToolTimelineState(),
    );
    expect(state.runsById["agent-tool:call-1"]?.drillInUrl).toBe("/runs/agent-tool:call-1");
  });
});

describe("a step reset (the child resumed a step it was cut off in)", () => {
  // The uninterrupted run: step one, then step two. The cut run: step one, part of step two (sequences 7–9, with a
  // milestone at 9), the reset voiding from 7 (sequence 10), then the resumed turn's `start` and step two (11–17).
  const stepOne: UIMessageChunk[] = [{ type: "start" }, { type: "start-step" }, ...textChunks("a", "Looking.")];
  const finishStep: UIMessageChunk = { type: "finish-step" };
  const found = { type: "data-agent-milestone", data: { milestone: "found", at: 50 } } as UIMessageChunk;
  const cut: UIMessageChunk[] = [{ type: "start-step" }, { type: "text-start", id: "b" }, found];
  const stepTwo: UIMessageChunk[] = [{ type: "start-step" }, ...textChunks("b", "Owls are nocturnal."), finishStep];
  const reset = { type: "data-agent-step-reset", data: { fromSequence: 7 }, transient: true } as UIMessageChunk;
  const live = [...stepOne, finishStep, ...cut, reset, { type: "start" }, ...stepTwo] satisfies UIMessageChunk[];
  const liveFrames = () => [started("r1"), ...sequenced("r1", live), finished("r1", 2, "Owls are nocturnal.")];
  /** What a parent replays to a fresh client: the voided entries (7, 8) left out, the milestone and the reset kept. */
  const replayFrames = () => liveFrames().filter((frame) => frame.sequence !== 7 && frame.sequence !== 8);
  const uninterrupted = assembleUIMessageParts([...stepOne, finishStep, found, ...stepTwo]);

  it("drops the part of the cut step a live client holds, keeping its milestone", () => {
    const run = reduce(liveFrames()).runsById["r1"];
    expect(run?.parts).toEqual(uninterrupted);
    expect(run?.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))).toEqual([
      "Looking.",
      "Owls are nocturnal.",
    ]);
    expect(run).toMatchObject({ lastSequence: live.length, status: "completed" });
    expect(run?.milestones).toEqual([{ sequence: 9, name: "found", at: 50 }]);
  });

  it("counts the voided sequences a fresh client never got as held: its cursor goes past them", () => {
    const run = reduce(replayFrames()).runsById["r1"];
    expect(run?.parts).toEqual(uninterrupted);
    expect(run?.lastSequence).toBe(live.length);
    expect(selectAgentToolCursors(reduce(replayFrames()))).toEqual({ r1: { sequence: live.length, revision: 2 } });
  });

  it("ends the same whatever order the frames come in: a voided chunk arriving late is dropped, a milestone kept", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const frames = shuffled([...liveFrames(), ...replayFrames()], seededRandom(seed));
      const run = reduce(frames).runsById["r1"];
      expect(run?.parts, `seed ${seed}`).toEqual(uninterrupted);
      expect(
        run?.milestones.map((item) => item.name),
        `seed ${seed}`,
      ).toEqual(["found"]);
      expect(run?.lastSequence, `seed ${seed}`).toBe(live.length);
    }
  });

  it("voids the cut steps of two cuts, and one before any text", () => {
    const twice = [
      ...stepOne,
      finishStep, // 6
      { type: "start-step" }, // 7
      { type: "text-start", id: "b" }, // 8
      { ...reset, data: { fromSequence: 7 } }, // 9
      { type: "start" }, // 10
      { type: "start-step" }, // 11
      { type: "text-start", id: "b" }, // 12
      { type: "text-delta", id: "b", delta: "Owls " }, // 13
      { ...reset, data: { fromSequence: 10 } }, // 14
      { type: "start" },
      ...stepTwo,
    ] as UIMessageChunk[];
    expect(reduce(sequenced("r1", twice)).runsById["r1"]?.parts).toEqual(
      assembleUIMessageParts([...stepOne, finishStep, ...stepTwo]),
    );
    const early = [{ type: "start" }, { type: "start-step" }, { ...reset, data: { fromSequence: 1 } }, ...stepTwo];
    expect(reduce(sequenced("r1", early as UIMessageChunk[])).runsById["r1"]?.parts).toEqual(
      assembleUIMessageParts(stepTwo),
    );
  });

  it("ignores a malformed reset, and a reset for sequences it does not hold changes only the cursor", () => {
    const malformed = chunk("r1", 2, {
      type: "data-agent-step-reset",
      data: { fromSequence: "x" },
      transient: true,
    } as UIMessageChunk);
    const held = reduce([started("r1"), chunk("r1", 1, { type: "start-step" })]);
    const after = reduce([malformed], held);
    expect(after.runsById["r1"]?.parts).toEqual(held.runsById["r1"]?.parts);
    const far = reduce([chunk("r1", 9, { ...reset, data: { fromSequence: 2 } } as UIMessageChunk)], held);
    expect(far.runsById["r1"]).toMatchObject({ lastSequence: 9, parts: held.runsById["r1"]?.parts });
  });
});

describe("frame acceptance", () => {
  it("accepts exactly the frames the protocol's rule accepts (acceptAgentToolFrame)", () => {
    const frames = adversarialRunFrames("r1");
    const changed: number[] = [];
    frames.reduce((state, frame, index) => {
      const next = applyAgentToolEvent(state, frame);
      if (next !== state) changed.push(index);
      return next;
    }, createAgentToolTimelineState());
    expect(changed).toEqual(acceptedFrameIndexes(frames));
  });
});

describe("selectors", () => {
  it("groups runs by tool call, sorted by displayOrder then first seen, and lists unbound runs", () => {
    const state = reduce([
      started("b", { parentToolCallId: "c1", displayOrder: 1 }),
      started("a", { parentToolCallId: "c1", displayOrder: 0 }),
      started("tie-1", { parentToolCallId: "c2", displayOrder: 0 }),
      started("tie-2", { parentToolCallId: "c2", displayOrder: 0 }),
      started("detached"),
      chunk("early", 1, { type: "start-step" }),
    ]);
    expect(selectRunsForToolCall(state, "c1").map((run) => run.runId)).toEqual(["a", "b"]);
    expect(selectRunsForToolCall(state, "c2").map((run) => run.runId)).toEqual(["tie-1", "tie-2"]);
    expect(selectRunsForToolCall(state, "none")).toEqual([]);
    expect(selectUnboundRuns(state).map((run) => run.runId)).toEqual(["detached", "early"]);
    expect(selectRunsForToolCall(state, "c1")).toBe(selectRunsForToolCall(state, "c1"));
  });

  it("keeps a tool call's runs array from one state to the next while its runs do not change", () => {
    const first = reduce([started("a", { parentToolCallId: "c1" }), started("b", { parentToolCallId: "c2" })]);
    const c1 = selectRunsForToolCall(first, "c1");
    const c2 = selectRunsForToolCall(first, "c2");
    const next = reduce([chunk("b", 1, { type: "start-step" })], first);
    expect(selectRunsForToolCall(next, "c1")).toBe(c1);
    expect(selectRunsForToolCall(next, "c2")).not.toBe(c2);
    expect(selectRunsForToolCall(next, "c2").map((run) => run.lastSequence)).toEqual([1]);
    expect(selectUnboundRuns(next)).toBe(selectUnboundRuns(first));
  });

  it("gives cursors that round-trip through the URL codec, leaving out placeholders", () => {
    const state = reduce([
      started("r1"),
      ...sequenced("r1", answer),
      finished("r1", 3),
      chunk("r2", 1, { type: "start-step" }),
      started("r3"),
      chunk("r3", 2, { type: "start-step" }),
      chunk("placeholder", 2, { type: "start-step" }),
      finished("placeholder", 3),
    ]);
    const cursors = selectAgentToolCursors(state);
    // r3 has a gap (sequence 1 missing): its cursor stays at 0, so a reconnect fills the gap.
    expect({ ...cursors }).toEqual({
      r1: { sequence: answer.length, revision: 3 },
      r3: { sequence: 0, revision: 1 },
    });
    expect(parseAgentToolCursors(encodeAgentToolCursors(cursors))).toEqual(cursors);
    expect(selectAgentToolCursors(state)).toBe(cursors);
  });
});

// ---------- a recorded frame log, with duplicates and reordering ----------

/**
 * A realistic log of one parent connection, in the order the server sent it: two sibling runs under one tool call
 * (the second repaired from `interrupted`), a detached run that fails, and a run that is cleared at the end.
 */
function frames3(): Frame[] {
  const researcher = "agent-tool:call-1";
  const summarizer = "sibling-2";
  const importer = "detached-1";
  const doomed = "doomed";
  const perRun: Frame[][] = [
    [
      started(researcher, { parentToolCallId: "call-1", displayOrder: 1, startedAt: 1 }),
      ...sequenced(researcher, [
        { type: "start", messageId: "msg-r" },
        { type: "start-step" },
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "Look it up." },
        { type: "reasoning-end", id: "r" },
        ...toolChunks({
          toolCallId: "t1",
          toolName: "lookup",
          input: { q: "cats", n: 3 },
          output: ["purr"],
          pieces: 4,
        }),
        { type: "finish-step" },
        { type: "start-step" },
        ...textChunks("a", "Cats purr and sleep most of the day."),
        { type: "source-url", sourceId: "s", url: "https://example.com/cats" },
        { type: "finish-step" },
        { type: "finish" },
      ]).map((frame) => ({ ...frame, parentToolCallId: "call-1" })),
      finished(researcher, 3, "Cats purr and sleep."),
    ],
    [
      started(summarizer, { agentType: "Summarizer", parentToolCallId: "call-1", displayOrder: 0, startedAt: 2 }),
      ...sequenced(summarizer, [{ type: "start-step" }, ...textChunks("s", "Summary: cats are sleepy.")]),
      interrupted(summarizer, 2),
      ...sequenced(summarizer, [{ type: "data-summary", id: "len", data: { words: 4 } }, { type: "finish-step" }], 8),
      finished(summarizer, 3, "cats are sleepy"),
    ],
    [
      started(importer, { agentType: "Importer", startedAt: 3 }),
      progress(importer, { fraction: 0.1, message: "starting", at: 100 }),
      milestone(importer, 1, "downloaded", 110, 0.3),
      progress(importer, { fraction: 0.5, message: "importing", at: 120 }),
      ...sequenced(importer, textChunks("i", "Imported 500 rows."), 2),
      milestone(importer, 7, "indexed", 130, 0.9),
      progress(importer, { fraction: 0.95, message: "finishing", at: 140 }),
      chunk(importer, 8, { type: "error", errorText: "disk full" }),
      failed(importer, 2, "disk full"),
    ],
    [started(doomed, { agentType: "Researcher" }), ...sequenced(doomed, textChunks("d", "soon gone"))],
  ];
  // Interleave the runs as a server would (each run's own frames stay in order), then clear one.
  const random = seededRandom(2024);
  const queues = perRun.map((frames) => [...frames]);
  const log: Frame[] = [];
  while (queues.some((queue) => queue.length > 0)) {
    const open = queues.filter((queue) => queue.length > 0);
    const next = open[randomInt(random, open.length)]?.shift();
    if (next) log.push(next);
  }
  log.push(cleared(doomed));
  return log;
}

describe("a recorded frame log with duplicates and reordering", () => {
  it("ends in the in-order state: same durable content, lifecycle at the highest revision", () => {
    const log = frames3();
    const inOrder = reduce(log);
    expect(Object.keys(inOrder.runsById).sort()).toEqual(["agent-tool:call-1", "detached-1", "sibling-2"]);
    expect(inOrder.runsById["sibling-2"]).toMatchObject({ status: "completed", revision: 3, reason: null });
    expect(inOrder.runsById["detached-1"]).toMatchObject({
      status: "error",
      streamError: "disk full",
      progress: { fraction: 0.95, message: "finishing", at: 140 },
    });
    expect(inOrder.runsById["detached-1"]?.milestones.map((item) => item.name)).toEqual(["downloaded", "indexed"]);
    expect(inOrder.runsById["agent-tool:call-1"]?.parts.map((part) => part.type)).toEqual([
      "step-start",
      "reasoning",
      "tool-lookup",
      "step-start",
      "text",
      "source-url",
    ]);

    // The wire form (JSON text; some bodies as JSON strings, as the seed system sends them), replayed copies, shuffles.
    const wire = log.map((frame, index) =>
      index % 3 === 0 && frame.event.kind === "chunk"
        ? JSON.stringify({ ...frame, event: { ...frame.event, body: JSON.stringify(frame.event.body) } })
        : encodeAgentToolFrame(frame),
    );
    for (let seed = 1; seed <= 25; seed++) {
      const random = seededRandom(seed);
      const duplicates = wire.filter(() => random() < 0.4).map((text) => text.replace("{", '{"replay":true,'));
      const store = createAgentToolStore();
      for (const message of shuffled([...wire, ...duplicates], random)) store.dispatch(message);
      const state = store.getSnapshot();
      expect(state.runsById, `seed ${seed}`).toEqual(inOrder.runsById);
      expect(selectRunsForToolCall(state, "call-1").map((run) => run.runId)).toEqual([
        "sibling-2",
        "agent-tool:call-1",
      ]);
      expect(selectUnboundRuns(state).map((run) => run.runId)).toEqual(["detached-1"]);
      expect({ ...store.cursors() }).toEqual({ ...selectAgentToolCursors(inOrder) });
    }
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
