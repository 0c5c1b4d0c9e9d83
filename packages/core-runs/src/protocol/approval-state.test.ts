import { describe, expect, it } from "vitest";
import { withLatestApprovals } from "./approval-state.js";
import type { AgentToolApprovalStatus } from "./approvals.js";
import { approvalChunk, readApprovalChunk } from "./approvals.js";
import type { AgentToolLogEntry } from "./run-types.js";
import { stepResetChunk } from "./step-reset.js";

const approval = (sequence: number, status: AgentToolApprovalStatus, at: number): AgentToolLogEntry => ({
  sequence,
  body: approvalChunk({ approvalId: "a", toolCallId: "call-a", toolName: "write", path: [], status, at }),
  at,
});
const plain = (sequence: number, type: "start-step" | "finish-step"): AgentToolLogEntry => ({
  sequence,
  body: { type },
  at: sequence,
});
const statuses = (entries: readonly AgentToolLogEntry[]) =>
  entries.flatMap((entry) => {
    const state = readApprovalChunk(entry.body);
    return state ? [`${entry.sequence}:${state.status}`] : [];
  });

describe("withLatestApprovals", () => {
  it("sends each approval chunk in the approval's state, the first answer standing", () => {
    const entries = [approval(1, "pending", 1), approval(2, "approved", 2), approval(3, "expired", 3)];
    expect(statuses(withLatestApprovals(entries))).toEqual(["1:approved", "2:approved", "3:approved"]);
  });

  it("gives the same array back when no approval is answered", () => {
    const entries = [approval(1, "pending", 1), plain(2, "finish-step")];
    expect(withLatestApprovals(entries)).toBe(entries);
  });

  // The counterexample of the compacted-replay property (seed -787664938), as the page a reader holding sequence 9
  // is sent: the cut step's `expired` (10) is voided by the reset at 12, which the reader applies; the step run again
  // answered `approved` first (18). The page's surviving chunks carry `approved`, never the voided `expired`.
  it("takes no state from a chunk a step reset among the entries voids", () => {
    const page = [
      approval(10, "expired", 1007),
      plain(11, "finish-step"),
      { sequence: 12, body: stepResetChunk(4), at: 12 },
      plain(13, "start-step"),
      approval(18, "approved", 1014),
      approval(19, "expired", 1007),
      plain(20, "finish-step"),
    ];
    const sent = withLatestApprovals(page);
    expect(statuses(sent).filter((status) => !status.startsWith("10:"))).toEqual(["18:approved", "19:approved"]);
  });

  it("takes no state from a chunk a reset voids within its ranges, and keeps those outside them", () => {
    const page = [
      approval(5, "pending", 5),
      approval(6, "approved", 6),
      { sequence: 7, body: stepResetChunk(6, [[6, 7]]), at: 7 },
      approval(8, "denied", 8),
    ];
    expect(statuses(withLatestApprovals(page)).filter((status) => !status.startsWith("6:"))).toEqual([
      "5:denied",
      "8:denied",
    ]);
  });
});
