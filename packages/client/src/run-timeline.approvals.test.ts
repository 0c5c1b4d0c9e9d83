// Approvals at any depth (issue 25): a run's `data-agent-approval` chunks fold into `run.approvals` — one per approval,
// in asking order, each in its latest state — live, replayed, out of order or replayed twice alike; never into parts.
import { type AgentToolApproval, approvalChunk } from "@agent-tools/core-runs/protocol";
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { selectPendingApprovals } from "./run-approvals.js";
import { type AgentToolTimelineState, applyAgentToolEvent, createAgentToolTimelineState } from "./run-timeline.js";
import {
  chunk,
  type Frame,
  seededRandom,
  sequenced,
  shuffled,
  started,
  textChunks,
} from "./test-support.test-utils.js";

const RUN = "agent-tool:c1";
const reduce = (frames: readonly Frame[], state = createAgentToolTimelineState()) =>
  frames.reduce<AgentToolTimelineState>((current, frame) => applyAgentToolEvent(current, frame), state);

const PATH = [
  { agentType: "Planner", runId: "agent-tool:p1" },
  { agentType: "Writer", runId: "agent-tool:w1" },
];
const asked = (approvalId: string, at = 2_000): AgentToolApproval => ({
  approvalId,
  toolCallId: `call-${approvalId}`,
  toolName: "write",
  input: { path: `notes/${approvalId}.md`, text: "hello" },
  path: PATH,
  status: "pending",
  at,
});
const answered = (approval: AgentToolApproval, status: "approved" | "denied", at = 3_000): AgentToolApproval => ({
  ...approval,
  status,
  ...(status === "denied" ? { reason: "not now" } : {}),
  at,
});
const approvalFrame = (sequence: number | undefined, approval: AgentToolApproval) =>
  chunk(RUN, sequence, approvalChunk(approval));

const a = asked("a");
const b = asked("b", 2_100);
/** A run that writes some text, asks two approvals, has the first approved, then writes on. */
const frames: Frame[] = [
  started(RUN, { parentToolCallId: "c1" }),
  ...sequenced(RUN, textChunks("t1", "Planning the notes.")), // 1–5
  approvalFrame(6, a),
  approvalFrame(7, b),
  approvalFrame(8, answered(a, "approved")),
  ...sequenced(RUN, textChunks("t2", "Wrote it."), 9), // 9–12
];

describe("a run's approvals", () => {
  it("are the run's state — in asking order, each in its latest state, with the asker's path — not message parts", () => {
    const placeholder = reduce([started(RUN)]).runsById[RUN];
    expect(placeholder?.approvals).toEqual([]);

    const run = reduce(frames).runsById[RUN];
    expect(run?.approvals).toEqual([answered(a, "approved"), b]);
    expect(run?.approvals[1]?.path).toEqual(PATH);
    expect(run?.parts.map((part) => part.type)).toEqual(["text", "text"]);
    expect(run?.lastSequence).toBe(12);
    expect(selectPendingApprovals(run as never)).toEqual([b]);
  });

  it("come out the same whatever order the chunks arrive in", () => {
    const expected = reduce(frames).runsById[RUN];
    const [first, ...rest] = frames;
    for (let seed = 1; seed <= 50; seed += 1) {
      const run = reduce([first as Frame, ...shuffled(rest, seededRandom(seed))]).runsById[RUN];
      expect(run?.approvals).toEqual(expected?.approvals);
      expect(run).toEqual(expected);
    }
    // The answer first, the question after: still answered.
    const late = reduce([started(RUN), approvalFrame(8, answered(a, "denied")), approvalFrame(6, a)]).runsById[RUN];
    expect(late?.approvals).toEqual([answered(a, "denied")]);
  });

  it("change nothing when replayed again, not even the state's identity", () => {
    const once = reduce(frames);
    const twice = reduce(frames.slice(1), once);
    expect(twice).toBe(once);
    expect(selectPendingApprovals(twice.runsById[RUN] as never)).toBe(
      selectPendingApprovals(once.runsById[RUN] as never),
    );
  });

  it("never go back to pending: a stale pending after the answer (a re-publication, or one with no sequence) is ignored", () => {
    const answeredFirst = reduce(frames);
    const republished = reduce([approvalFrame(20, a), approvalFrame(21, answered(b, "denied"))], answeredFirst);
    expect(republished.runsById[RUN]?.approvals).toEqual([answered(a, "approved"), answered(b, "denied")]);
    expect(selectPendingApprovals(republished.runsById[RUN] as never)).toEqual([]);
    const unsequenced = reduce([approvalFrame(undefined, a)], answeredFirst);
    expect(unsequenced.runsById[RUN]?.approvals).toEqual([answered(a, "approved"), b]);
  });

  it("lose those of a step a reset voided, live or arriving late, as a compacted log leaves them out", () => {
    const cut: Frame[] = [
      started(RUN),
      chunk(RUN, 1, { type: "start-step" }),
      approvalFrame(2, a),
      chunk(RUN, 3, { type: "data-agent-step-reset", data: { fromSequence: 1 }, transient: true } as UIMessageChunk),
      chunk(RUN, 4, { type: "start-step" }),
      approvalFrame(5, b),
    ];
    const live = reduce(cut).runsById[RUN];
    expect(live?.approvals).toEqual([b]);
    expect(live?.lastSequence).toBe(5);
    // The voided approval arriving after the reset (a replay/live race) is dropped too.
    const [first, second, approval, ...rest] = cut;
    const raced = reduce([first, second, ...rest, approval] as Frame[]).runsById[RUN];
    expect(raced).toEqual(live);
  });

  it("ignore a malformed approval chunk, which is no message part either", () => {
    const broken = { type: "data-agent-approval", id: "x", data: { approvalId: "x" } } as UIMessageChunk;
    const run = reduce([started(RUN), chunk(RUN, 1, broken)]).runsById[RUN];
    expect(run?.approvals).toEqual([]);
    expect(run?.parts).toEqual([]);
    expect(run?.lastSequence).toBe(1);
  });
});
