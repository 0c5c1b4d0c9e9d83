import { describe, expect, it } from "vitest";
import { approvalInterruptId, parseApprovalInterruptId } from "./interrupts.js";
import { readAgUiRunInput } from "./run-input.js";

const input = (extra: Record<string, unknown> = {}) => ({ threadId: "t", runId: "r2", messages: [], ...extra });

describe("readAgUiRunInput", () => {
  it("reads the run a client starts and the approvals its resume entries answer; other interrupts are left out", () => {
    const id = approvalInterruptId("agent-tool:call-1", "ap:1/x");
    const read = readAgUiRunInput(
      input({
        resume: [
          { interruptId: id, status: "resolved", payload: { approved: true } },
          { interruptId: "interrupted:run-9", status: "cancelled" },
        ],
      }),
    );
    expect(read).toMatchObject({
      ok: true,
      request: {
        runId: "r2",
        approvals: [
          {
            interruptId: id,
            runId: "agent-tool:call-1",
            approvalId: "ap:1/x",
            status: "resolved",
            payload: { approved: true },
          },
        ],
      },
    });
  });

  it("refuses what is not a RunAgentInput, saying where", () => {
    expect(readAgUiRunInput({ threadId: "t" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^The body is not an AG-UI RunAgentInput at runId: /),
    });
    expect(readAgUiRunInput(input({ resume: [{ interruptId: "x", status: "maybe" }] }))).toMatchObject({ ok: false });
  });
});

describe("approval interrupt ids", () => {
  it("name the run and the approval, whatever they hold, and nothing else parses as one", () => {
    for (const [runId, approvalId] of [
      ["agent-tool:call-1", "a1"],
      ["run:with:colons", "approval:also"],
      ["ünïcode/run", "a b"],
    ] as const) {
      expect(parseApprovalInterruptId(approvalInterruptId(runId, approvalId))).toEqual({ runId, approvalId });
    }
    for (const id of [
      "interrupted:run-1",
      "approval:",
      "approval:a",
      "approval::b",
      "approval:a:b:c",
      "approval:%E0:b",
    ]) {
      expect(parseApprovalInterruptId(id)).toBeNull();
    }
  });
});
