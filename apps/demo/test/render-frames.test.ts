import { acceptedFrameIndexes, adversarialRunFrames } from "@agent-tools/core-runs/testing";
import { describe, expect, it } from "vitest";
import {
  createRenderState,
  encodeCursors,
  flushAll,
  parseFrame,
  progressBar,
  renderChatChunk,
  renderChatEvent,
  renderFrame,
  renderRunInfo,
} from "../scripts/render-frames.mjs";

const RUN = "agent-tool:call-1";

type Extra = { parentToolCallId?: string; sequence?: number; revision?: number; replay?: true };
const frame = (event: Record<string, unknown>, extra: Extra = {}) => ({ type: "agent-tool-event", ...extra, event });
const started = (runId = RUN, agentType = "Researcher", extra: Extra = { revision: 1 }) =>
  frame({ kind: "started", runId, agentType, displayOrder: 0, inputPreview: "research cats" }, extra);
const chunk = (body: unknown, sequence?: number, runId = RUN) =>
  frame({ kind: "chunk", runId, body }, sequence === undefined ? {} : { sequence });

/** A state that has seen the run start (lines discarded). */
function startedState() {
  const state = createRenderState();
  renderFrame(state, started());
  return state;
}

describe("renderFrame", () => {
  it("opens a run with its type, id and input preview", () => {
    const state = createRenderState();
    expect(renderFrame(state, started())).toEqual([
      "  ┌ [res1] Researcher (agent-tool:call-1) started — research cats",
    ]);
    expect(state.runs.get(RUN)?.status).toBe("running");
  });

  it("gives concurrent runs distinct short tags", () => {
    const state = createRenderState();
    renderFrame(state, started("a", "Researcher"));
    const second = renderFrame(state, started("b", "Researcher"));
    const third = renderFrame(state, started("c", "Summarizer"));
    expect(second[0]).toContain("[res2]");
    expect(third[0]).toContain("[sum1]");
  });

  it("streams text as whole, indented lines and flushes the rest at text-end", () => {
    const state = startedState();
    expect(renderFrame(state, chunk({ type: "text-start", id: "t" }, 1))).toEqual([]);
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "Looking " }, 2))).toEqual([]);
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "that up.\nFound " }, 3))).toEqual([
      "  │ [res1] Looking that up.",
    ]);
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "3 facts." }, 4))).toEqual([]);
    expect(renderFrame(state, chunk({ type: "text-end", id: "t" }, 5))).toEqual(["  │ [res1] Found 3 facts."]);
  });

  it("wraps long text without newlines so it still streams", () => {
    const state = startedState();
    const lines = renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "word ".repeat(40) }, 1));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith("  │ [res1] word")).toBe(true);
  });

  it("renders progress as a bar with a percentage, and skips an unchanged repeat", () => {
    const state = startedState();
    const progress = chunk({
      type: "data-agent-progress",
      transient: true,
      data: { fraction: 0.4, message: "reading" },
    });
    expect(renderFrame(state, progress)).toEqual(["  │ [res1] [████░░░░░░] 40% reading"]);
    expect(renderFrame(state, progress)).toEqual([]);
    const phaseOnly = chunk({ type: "data-agent-progress", data: { phase: "fetch" } });
    expect(renderFrame(state, phaseOnly)).toEqual(["  │ [res1] … (fetch)"]);
  });

  it("accepts a chunk body sent as a JSON string (the seed system's form)", () => {
    const state = startedState();
    const body = JSON.stringify({ type: "data-agent-progress", data: { fraction: 1 } });
    expect(renderFrame(state, chunk(body))).toEqual(["  │ [res1] [██████████] 100%"]);
  });

  it("renders milestones, by milestone or name", () => {
    const state = startedState();
    expect(renderFrame(state, chunk({ type: "data-agent-milestone", data: { milestone: "sources-read" } }, 1))).toEqual(
      ["  │ [res1] ◆ sources-read"],
    );
    expect(
      renderFrame(state, chunk({ type: "data-agent-milestone", data: { name: "drafted", message: "2 pages" } }, 2)),
    ).toEqual(["  │ [res1] ◆ drafted — 2 pages"]);
  });

  it("renders an approval: who asks for what, then its answer", () => {
    const state = startedState();
    const approval = (data: Record<string, unknown>, sequence: number) =>
      chunk(
        { type: "data-agent-approval", id: "a1", data: { approvalId: "a1", toolName: "saveFile", ...data } },
        sequence,
      );
    const path = [{ agentType: "Writer", runId: "w" }];
    expect(renderFrame(state, approval({ status: "pending", path, input: { path: "notes.md" } }, 1))).toEqual([
      '  │ [res1] ⏸ approval asked by Writer: saveFile({"path":"notes.md"})',
    ]);
    expect(renderFrame(state, approval({ status: "approved", path }, 2))).toEqual(["  │ [res1] ✓ approved: saveFile"]);
    expect(renderFrame(state, approval({ status: "denied", path, reason: "not now" }, 3))).toEqual([
      "  │ [res1] ✗ denied: saveFile: not now",
    ]);
  });

  it("renders the child's tool calls and results, flushing pending text first", () => {
    const state = startedState();
    renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "Looking that up." }, 1));
    expect(
      renderFrame(
        state,
        chunk({ type: "tool-input-available", toolCallId: "c1", toolName: "lookup", input: { query: "cats" } }, 2),
      ),
    ).toEqual(["  │ [res1] Looking that up.", '  │ [res1] → tool lookup({"query":"cats"})']);
    expect(renderFrame(state, chunk({ type: "tool-output-available", toolCallId: "c1", output: { n: 3 } }, 3))).toEqual(
      ['  │ [res1] ← lookup: {"n":3}'],
    );
    expect(renderFrame(state, chunk({ type: "tool-output-error", toolCallId: "c1", errorText: "boom" }, 4))).toEqual([
      "  │ [res1] ✗ lookup: boom",
    ]);
  });

  it("closes a run: finished with its summary, error, aborted, interrupted", () => {
    const finished = startedState();
    renderFrame(finished, chunk({ type: "text-delta", id: "t", delta: "tail text" }, 1));
    expect(
      renderFrame(finished, frame({ kind: "finished", runId: RUN, summary: "Cats sleep a lot." }, { revision: 3 })),
    ).toEqual(["  │ [res1] tail text", "  └ [res1] finished: Cats sleep a lot."]);
    expect(finished.runs.get(RUN)?.status).toBe("completed");

    const failed = startedState();
    expect(
      renderFrame(failed, frame({ kind: "error", runId: RUN, error: "model unavailable" }, { revision: 2 })),
    ).toEqual(["  └ [res1] error: model unavailable"]);

    const aborted = startedState();
    expect(renderFrame(aborted, frame({ kind: "aborted", runId: RUN }, { revision: 2 }))).toEqual([
      "  └ [res1] aborted",
    ]);

    const interrupted = startedState();
    expect(
      renderFrame(
        interrupted,
        frame(
          {
            kind: "interrupted",
            runId: RUN,
            error: "parent restarted",
            reason: "no-progress",
            childStillRunning: true,
          },
          { revision: 3 },
        ),
      ),
    ).toEqual(["  └ [res1] interrupted (no-progress, child still running): parent restarted"]);
    expect(interrupted.runs.get(RUN)?.status).toBe("interrupted");
  });

  it("escapes control characters in what it prints: a cancel reason with a newline and ANSI escapes forges nothing", () => {
    const reason = "bye\n[agent-tools] forged\u001b[31mRED\u001b[0m\u009b2J";
    const aborted = startedState();
    expect(renderFrame(aborted, frame({ kind: "aborted", runId: RUN, error: reason }, { revision: 2 }))).toEqual([
      "  └ [res1] aborted: bye [agent-tools] forged\\u001b[31mRED\\u001b[0m\\u009b2J",
    ]);

    const odd = createRenderState();
    const runId = "r\u001b[2J";
    expect(
      renderFrame(odd, frame({ kind: "started", runId, agentType: "Echo\rX", displayOrder: 0 }, { revision: 1 })),
    ).toEqual(["  ┌ [ech1] Echo\\u000dX (r\\u001b[2J) started"]);

    const interrupted = startedState();
    expect(
      renderFrame(
        interrupted,
        frame({ kind: "interrupted", runId: RUN, error: "cut", reason: "no-progress\u001b[0m" }, { revision: 2 }),
      ),
    ).toEqual(["  └ [res1] interrupted (no-progress\\u001b[0m): cut"]);
  });

  it("escapes control characters in streamed text, keeping its newlines", () => {
    const state = startedState();
    expect(
      renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "one\u001b[1A\r\ntwo\u2028three\n" }, 1)),
    ).toEqual(["  │ [res1] one\\u001b[1A\\u000d", "  │ [res1] two\\u2028three"]);
    expect(renderChatChunk(state, { type: "text-delta", id: "t", delta: "a\u001b[31mb\nc" })).toEqual({
      text: "a\\u001b[31mb\nc",
      lines: [],
    });
  });

  it("applies lifecycle frames only when their revision is newer", () => {
    const state = startedState();
    renderFrame(state, frame({ kind: "finished", runId: RUN, summary: "done" }, { revision: 3 }));
    expect(renderFrame(state, started(RUN, "Researcher", { revision: 1 }))).toEqual([]);
    expect(renderFrame(state, frame({ kind: "error", runId: RUN, error: "late" }, { revision: 2 }))).toEqual([]);
    expect(state.runs.get(RUN)?.status).toBe("completed");
  });

  it("applies a repair from interrupted to completed", () => {
    const state = startedState();
    renderFrame(
      state,
      frame(
        { kind: "interrupted", runId: RUN, error: "x", reason: "no-progress", childStillRunning: true },
        { revision: 3 },
      ),
    );
    expect(renderFrame(state, frame({ kind: "finished", runId: RUN, summary: "ok" }, { revision: 4 }))).toEqual([
      "  └ [res1] finished: ok",
    ]);
  });

  it("dedupes durable chunks by (runId, sequence)", () => {
    const state = startedState();
    const milestone = chunk({ type: "data-agent-milestone", data: { milestone: "m" } }, 7);
    expect(renderFrame(state, milestone)).toHaveLength(1);
    expect(renderFrame(state, milestone)).toEqual([]);
    // Held past a gap (1–6 never came): the cursor a reconnect sends stays below it.
    expect(state.runs.get(RUN)?.cursor).toMatchObject({ contiguous: 0, ahead: [7] });
  });

  it("prints exactly the frames the protocol's rule accepts (acceptAgentToolFrame), those with something to print", () => {
    const frames = adversarialRunFrames(RUN);
    const state = createRenderState();
    const printed = frames.flatMap((input, index) => (renderFrame(state, input).length > 0 ? [index] : []));
    const silent = new Set(["text-start", "data-agent-step-reset"]);
    const expected = acceptedFrameIndexes(frames).filter((index) => {
      const event = frames[index]?.event;
      return !(event?.kind === "chunk" && silent.has(event.body.type));
    });
    expect(printed).toEqual(expected);
  });

  it("frames without a revision (an older server): a started opens the run once, even after its first chunks", () => {
    const state = createRenderState();
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "early\n" }, 1))).toHaveLength(1);
    expect(renderFrame(state, started(RUN, "Researcher", {}))).toEqual([
      "  ┌ [run1] Researcher (agent-tool:call-1) started — research cats",
    ]);
    expect(renderFrame(state, started(RUN, "Researcher", {}))).toEqual([]);
  });

  it("creates a placeholder for a chunk of an unknown run", () => {
    const state = createRenderState();
    expect(renderFrame(state, chunk({ type: "data-agent-milestone", data: { milestone: "m" } }, 1, "other"))).toEqual([
      "  │ [run1] ◆ m",
    ]);
    expect(state.runs.get("other")?.status).toBe("running");
  });

  it("forgets cleared runs and ignores late frames for them", () => {
    const state = startedState();
    expect(renderFrame(state, frame({ kind: "cleared", runIds: [RUN, "gone"] }))).toEqual(["  ✕ cleared 2 runs"]);
    expect(state.runs.has(RUN)).toBe(false);
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "late\n" }, 9))).toEqual([]);
    expect(renderFrame(state, frame({ kind: "finished", runId: RUN, summary: "late" }, { revision: 9 }))).toEqual([]);
  });

  it("ignores replay frames by default but keeps their state (cursors, dedupe, revisions)", () => {
    const state = createRenderState();
    expect(renderFrame(state, started(RUN, "Researcher", { revision: 1, replay: true }))).toEqual([]);
    const replayed = { ...chunk({ type: "text-delta", id: "t", delta: "old text\n" }, 1), replay: true };
    expect(renderFrame(state, replayed)).toEqual([]);
    expect(
      renderFrame(state, frame({ kind: "finished", runId: RUN, summary: "old" }, { revision: 3, replay: true })),
    ).toEqual([]);
    expect(flushAll(state)).toEqual([]);
    expect(JSON.parse(encodeCursors(state))).toEqual([[RUN, 1, 3]]);
    // The same chunk arriving live again is a duplicate.
    expect(renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "old text\n" }, 1))).toEqual([]);
  });

  it("resumes from the gap-free sequence: a chunk held past a gap is asked for again", () => {
    const state = startedState();
    renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "one " }, 1));
    renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "three " }, 3));
    // Sequence 2 never came: the cursor stays at 1 so that a reconnect replays 2 (and 3 again, a duplicate then).
    expect(JSON.parse(encodeCursors(state))).toEqual([[RUN, 1, 1]]);
    renderFrame(state, chunk({ type: "text-delta", id: "t", delta: "two " }, 2));
    expect(JSON.parse(encodeCursors(state))).toEqual([[RUN, 3, 1]]);
  });

  it("renders replay frames when asked", () => {
    const state = createRenderState();
    expect(
      renderFrame(state, started(RUN, "Researcher", { revision: 1, replay: true }), { replay: true }),
    ).toHaveLength(1);
  });

  it("does not throw on malformed input", () => {
    const state = createRenderState();
    const inputs: unknown[] = [
      undefined,
      null,
      42,
      "",
      "not json",
      "[]",
      "{}",
      { type: "other" },
      { type: "agent-tool-event" },
      { type: "agent-tool-event", event: null },
      { type: "agent-tool-event", event: { kind: "chunk", runId: RUN } },
      { type: "agent-tool-event", event: { kind: "chunk", runId: RUN, body: "{not json" } },
      { type: "agent-tool-event", event: { kind: "chunk", runId: RUN, body: { type: 5 } } },
      { type: "agent-tool-event", event: { kind: "started" } },
      { type: "agent-tool-event", event: { kind: "mystery", runId: RUN } },
      { type: "agent-tool-event", event: { kind: "cleared", runIds: "nope" } },
      { type: "agent-tool-event", sequence: "x", event: { kind: "chunk", runId: RUN, body: { type: "text-delta" } } },
      {
        type: "agent-tool-event",
        event: { kind: "chunk", runId: RUN, body: { type: "data-agent-progress", data: 3 } },
      },
      { type: "agent-tool-event", event: { kind: "finished", runId: RUN, summary: { nested: true } } },
      Object.create(null),
    ];
    for (const input of inputs) expect(() => renderFrame(state, input)).not.toThrow();
    expect(renderFrame(state, "not json")).toEqual([]);
    expect(parseFrame("{}")).toBeNull();
    // A kind that only an object's prototype has is not a lifecycle kind.
    expect(parseFrame({ type: "agent-tool-event", event: { kind: "toString", runId: RUN } })).toBeNull();
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
      },
    );
    expect(renderFrame(state, throwing)).toEqual([]);
    expect(renderChatChunk(state, throwing)).toEqual({ text: "", lines: [] });
  });
});

describe("renderChatChunk", () => {
  it("streams the assistant's text and prints its tool calls and errors as lines", () => {
    const state = createRenderState();
    expect(renderChatChunk(state, { type: "text-delta", id: "t", delta: "Sure, " })).toEqual({
      text: "Sure, ",
      lines: [],
    });
    expect(
      renderChatChunk(state, {
        type: "tool-input-available",
        toolCallId: "c",
        toolName: "research",
        input: { topic: "cats" },
      }),
    ).toEqual({ text: "", lines: ['→ research({"topic":"cats"})'] });
    expect(renderChatChunk(state, { type: "tool-output-error", toolCallId: "c", errorText: "nope" })).toEqual({
      text: "",
      lines: ["✗ research: nope"],
    });
    expect(renderChatChunk(state, { type: "error", errorText: "model failed" })).toEqual({
      text: "",
      lines: ["! error: model failed"],
    });
    expect(state.chatError).toBe("model failed");
    expect(renderChatChunk(state, { type: "finish" })).toEqual({ text: "", lines: [] });
    expect(renderChatChunk(state, "garbage")).toEqual({ text: "", lines: [] });
  });
});

describe("renderChatEvent", () => {
  const chatEvent = (event: Record<string, unknown>) => JSON.stringify({ type: "agent-chat-event", event });
  const message = (id: string, role: string, text: string) => ({ id, role, parts: [{ type: "text", text }] });

  it("prints a background run's completion told to the chat, then the answer of the server's turn", () => {
    const state = createRenderState();
    renderFrame(
      state,
      frame({ kind: "started", runId: "bg", agentType: "Importer", displayOrder: 0, detached: true }, { revision: 1 }),
    );
    expect(state.runs.get("bg")?.detached).toBe(true);
    const told = message("agent-tool:detached:bg:completed", "user", "Background task Importer (bg) completed: done");
    expect(renderChatEvent(state, chatEvent({ kind: "message", message: told }))).toEqual([
      "» Background task Importer (bg) completed: done",
    ]);
    expect(state.deliveries.get("bg")).toBe("told");
    // The same message again (a second delivery) prints nothing.
    expect(renderChatEvent(state, chatEvent({ kind: "message", message: told }))).toEqual([]);
    expect(
      renderChatEvent(state, chatEvent({ kind: "turn-started", turnId: "t2", origin: "server", resumed: false })),
    ).toEqual([]);
    const answer = message("a2", "assistant", "Update on your background task: done");
    expect(
      renderChatEvent(state, chatEvent({ kind: "turn-ended", turnId: "t2", status: "completed", message: answer })),
    ).toEqual(["Update on your background task: done"]);
    expect(state.deliveries.get("bg")).toBe("answered");
  });

  it("prints nothing for other conversation frames, a client's turns, or what it cannot read", () => {
    const state = createRenderState();
    const other = message("m1", "user", "hello from another tab");
    expect(renderChatEvent(state, chatEvent({ kind: "message", message: other }))).toEqual([]);
    expect(
      renderChatEvent(state, chatEvent({ kind: "turn-started", turnId: "t1", origin: "client", resumed: false })),
    ).toEqual([]);
    const answer = message("a1", "assistant", "hi");
    expect(
      renderChatEvent(state, chatEvent({ kind: "turn-ended", turnId: "t1", status: "completed", message: answer })),
    ).toEqual([]);
    expect(renderChatEvent(state, chatEvent({ kind: "history" }))).toEqual([]);
    expect(renderChatEvent(state, "not json")).toEqual([]);
    expect(renderChatEvent(state, started())).toEqual([]);
    expect(state.deliveries.size).toBe(0);
  });
});

describe("renderRunInfo", () => {
  it("closes a run from a /runs info once, when its terminal frame was missed", () => {
    const state = startedState();
    expect(renderRunInfo(state, { runId: RUN, agentType: "Researcher", status: "running" })).toEqual([]);
    expect(renderRunInfo(state, { runId: RUN, agentType: "Researcher", status: "completed" })).toEqual([
      "  └ [res1] completed",
    ]);
    expect(renderRunInfo(state, { runId: RUN, agentType: "Researcher", status: "completed" })).toEqual([]);
    expect(renderRunInfo(state, null)).toEqual([]);
  });
});

describe("progressBar", () => {
  it("clamps and rounds", () => {
    expect(progressBar(0)).toBe("[░░░░░░░░░░]");
    expect(progressBar(0.55)).toBe("[██████░░░░]");
    expect(progressBar(2)).toBe("[██████████]");
    expect(progressBar(Number.NaN)).toBe("[░░░░░░░░░░]");
    expect(progressBar(0.5, 4)).toBe("[██░░]");
  });
});
