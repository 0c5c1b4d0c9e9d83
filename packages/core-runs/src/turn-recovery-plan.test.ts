// How a cut turn goes on (a parent's chat turn, a child's run), as data: what is kept, which tool calls run again.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { planTurnRecovery } from "./turn-recovery-plan.js";

describe("planTurnRecovery", () => {
  const step1: UIMessageChunk[] = [
    { type: "start", messageId: "m" },
    { type: "start-step" },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: "Let me ask. " },
    { type: "text-end", id: "t1" },
    { type: "tool-input-start", toolCallId: "c1", toolName: "echo" },
    { type: "tool-input-available", toolCallId: "c1", toolName: "echo", input: { text: "hi" } },
  ];

  it("keeps the cut step's decided tool calls and runs them again with their own ids", () => {
    const plan = planTurnRecovery(step1);
    expect(plan.keep).toEqual(step1);
    expect(plan.pendingToolCalls).toEqual([{ toolCallId: "c1", toolName: "echo", input: { text: "hi" } }]);
    expect(plan.isStepOpen).toBe(true);
  });

  it("keeps a tool result that came, and drops what was still streaming", () => {
    const cut: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: "hi" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "Half a sen" },
    ];
    const plan = planTurnRecovery(cut);
    expect(plan.keep).toEqual([...step1, { type: "tool-output-available", toolCallId: "c1", output: "hi" }]);
    expect(plan.pendingToolCalls).toEqual([]);
    expect(plan.isStepOpen).toBe(true);
  });

  it("treats a preliminary tool output as no result: the call runs again, and the preliminary value is dropped", () => {
    const cut: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: { status: "running" }, preliminary: true },
    ];
    const plan = planTurnRecovery(cut);
    expect(plan.keep).toEqual(step1);
    expect(plan.pendingToolCalls).toEqual([{ toolCallId: "c1", toolName: "echo", input: { text: "hi" } }]);
  });

  it("drops a cut step in which the model decided nothing, keeping the steps before it", () => {
    const finished: UIMessageChunk[] = [
      ...step1,
      { type: "tool-output-available", toolCallId: "c1", output: "hi" },
      { type: "finish-step" },
    ];
    const cut: UIMessageChunk[] = [
      ...finished,
      { type: "start-step" },
      { type: "text-start", id: "t2" },
      { type: "text-delta", id: "t2", delta: "The echo sa" },
    ];
    expect(planTurnRecovery(cut)).toEqual({ keep: finished, pendingToolCalls: [], isStepOpen: false });
    expect(planTurnRecovery(finished)).toEqual({ keep: finished, pendingToolCalls: [], isStepOpen: false });
  });

  it("keeps only the message's start when the first step was cut before a decision", () => {
    const cut: UIMessageChunk[] = [
      { type: "start", messageId: "m" },
      { type: "start-step" },
      { type: "tool-input-start", toolCallId: "c1", toolName: "echo" },
    ];
    expect(planTurnRecovery(cut)).toEqual({
      keep: [{ type: "start", messageId: "m" }],
      pendingToolCalls: [],
      isStepOpen: false,
    });
    expect(planTurnRecovery([])).toEqual({ keep: [], pendingToolCalls: [], isStepOpen: false });
  });
});
