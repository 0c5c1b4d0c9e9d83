// The pure parts of the mapping between runs and MCP tasks: a run's task, a result's tool result, an approval's
// elicitation and what its answer says, progress chunks as notification text, and the approvals a log leaves pending.
import type { AgentToolApproval } from "@agent-tools/core-runs";
import type { AgentToolLogEntry } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { approvalAnswerOf, approvalElicitation } from "./approval-elicitation.js";
import { ApprovalFold } from "./pending-approvals.js";
import { progressOfChunk } from "./progress-notification.js";
import { taskOfRun } from "./task-of-run.js";
import { toolResultOf } from "./tool-result.js";

const T0 = 1_767_225_600_000;
const run = { runId: "r1", startedAt: T0, updatedAt: T0 + 1_000 };
const asking = (approvalId: string, status: AgentToolApproval["status"], at: number): AgentToolApproval => ({
  approvalId,
  toolCallId: `call-${approvalId}`,
  toolName: "write",
  input: { text: "milk" },
  path: [
    { agentType: "Editor", runId: "e" },
    { agentType: "Writer", runId: "w" },
  ],
  status,
  at,
});
const entry = (sequence: number, approval: AgentToolApproval): AgentToolLogEntry => ({
  sequence,
  at: approval.at,
  body: { type: "data-agent-approval", id: approval.approvalId, data: approval } as never,
});

describe("taskOfRun", () => {
  it("maps each run status to a task status, with the run's times in ISO 8601", () => {
    const base = { taskId: "r1", createdAt: "2026-01-01T00:00:00.000Z", ttl: null };
    expect(taskOfRun({ ...run, status: "starting" }, [], 500)).toEqual({
      ...base,
      lastUpdatedAt: "2026-01-01T00:00:01.000Z",
      status: "working",
      pollInterval: 500,
    });
    expect(taskOfRun({ ...run, status: "running" }, [asking("a", "pending", 3)], 500)).toMatchObject({
      status: "input_required",
      statusMessage: 'Writer asks to run write with {"text":"milk"}: approve?',
    });
    const ended = { ...run, completedAt: T0 + 2_000 };
    expect(taskOfRun({ ...ended, status: "completed" }, [], 500)).toEqual({
      ...base,
      lastUpdatedAt: "2026-01-01T00:00:02.000Z",
      status: "completed",
    });
    expect(taskOfRun({ ...ended, status: "aborted", error: "Stopped" }, [], 500)).toMatchObject({
      status: "cancelled",
      statusMessage: "Stopped",
    });
    expect(taskOfRun({ ...ended, status: "error", error: "boom" }, [], 500)).toMatchObject({
      status: "failed",
      statusMessage: "boom",
    });
    expect(taskOfRun({ ...ended, status: "interrupted" }, [], 500)).toMatchObject({
      status: "failed",
      statusMessage: "The run ended interrupted",
    });
  });
});

describe("toolResultOf", () => {
  it("a success is its summary, with an object output as structured content; a failure is an error result", () => {
    const success = { ok: true, runId: "r", agentType: "A", status: "completed", summary: "done" } as const;
    expect(toolResultOf(success)).toEqual({ content: [{ type: "text", text: "done" }], isError: false });
    expect(toolResultOf({ ...success, output: { count: 3 } })).toEqual({
      content: [{ type: "text", text: "done" }],
      structuredContent: { count: 3 },
      isError: false,
    });
    expect(toolResultOf({ ...success, output: [1, 2] })).not.toHaveProperty("structuredContent");
    const failed = { ok: false, runId: "r", agentType: "A", status: "error", error: "boom", retryable: false } as const;
    expect(toolResultOf(failed)).toEqual({ content: [{ type: "text", text: "boom" }], isError: true });
  });
});

describe("approvals as elicitations", () => {
  it("asks with a form, the approval in _meta", () => {
    const approval = asking("a1", "pending", 3);
    expect(approvalElicitation(approval)).toMatchObject({
      mode: "form",
      message: 'Writer asks to run write with {"text":"milk"}: approve?',
      requestedSchema: { type: "object", required: ["approved"] },
      _meta: { "dev.agent-tools/approval": approval },
    });
  });

  it("reads the answer: accept with the form, decline denies, cancel answers nothing", () => {
    expect(approvalAnswerOf({ action: "accept", content: { approved: true, reason: "ignored" } })).toEqual({
      approved: true,
    });
    expect(approvalAnswerOf({ action: "accept", content: { approved: false, reason: "  not now " } })).toEqual({
      approved: false,
      reason: "not now",
    });
    expect(approvalAnswerOf({ action: "accept", content: { approved: false, reason: " " } })).toEqual({
      approved: false,
    });
    expect(approvalAnswerOf({ action: "accept", content: { reason: "x".repeat(600) } })).toEqual({
      approved: false,
      reason: "x".repeat(500),
    });
    expect(approvalAnswerOf({ action: "decline" })).toEqual({ approved: false });
    expect(approvalAnswerOf({ action: "cancel" })).toBeNull();
  });
});

describe("progressOfChunk", () => {
  it("says a milestone and a progress report in one line; other chunks are no progress", () => {
    const milestone = { type: "data-agent-milestone", data: { name: "imported", message: "10 rows", fraction: 0.25 } };
    expect(progressOfChunk(milestone, 7)).toEqual({
      kind: "milestone",
      snapshot: { milestone: "imported", message: "10 rows", fraction: 0.25, at: 7 },
      message: "milestone: imported — 10 rows — 25%",
    });
    expect(progressOfChunk({ type: "data-agent-progress", data: { at: 3 } }, 7)).toMatchObject({
      kind: "progress",
      message: "progress",
    });
    expect(progressOfChunk({ type: "text-delta", id: "t", delta: "x" }, 7)).toBeNull();
  });

  it("says a progress snapshot's bar, not the milestone it still names (its own chunk said that)", () => {
    const snapshot = { milestone: "imported", fraction: 0.5, message: "checking", at: 9 };
    expect(progressOfChunk({ type: "data-agent-progress", data: snapshot, transient: true }, 0)).toEqual({
      kind: "progress",
      snapshot,
      message: "checking — 50%",
    });
  });
});

describe("ApprovalFold", () => {
  it("keeps each approval's latest state, whether the log or a live frame brings it first", () => {
    const fold = new ApprovalFold();
    fold.add([entry(1, asking("a", "pending", 1)), entry(2, asking("b", "pending", 2))]);
    expect(fold.pending().map((approval) => approval.approvalId)).toEqual(["a", "b"]);
    // Seen live at sequence 4 before the parent wrote its log; the log read later (sequence 3: still pending) does
    // not take it back.
    fold.see(asking("a", "approved", 4), 4);
    fold.add([entry(3, asking("a", "pending", 1)), entry(4, asking("a", "approved", 4))]);
    expect(fold.pending().map((approval) => approval.approvalId)).toEqual(["b"]);
    expect(fold.lastSequence).toBe(4);
    fold.add([entry(2, asking("b", "denied", 5))]);
    expect(fold.pending().map((approval) => approval.approvalId)).toEqual(["b"]);
  });
});
