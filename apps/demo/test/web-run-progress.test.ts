import type { AgentToolRunState } from "@agent-tools/react";
import { describe, expect, it } from "vitest";
import { runProgressView } from "../web/src/run-progress.js";

// The demo page's progress row (issue 18: "progress moves smoothly without falling back to 'unknown'").

const run = (overrides: Partial<AgentToolRunState>) =>
  ({
    runId: "r1",
    agentType: "Importer",
    status: "running",
    progress: null,
    milestones: [],
    approvals: [],
    ...overrides,
  }) as AgentToolRunState;

describe("runProgressView", () => {
  it("keeps the last known fraction when a report says none (a milestone, a phase)", () => {
    const first = runProgressView(run({ progress: { fraction: 0.2, message: "Imported batch 1 of 5", at: 1 } }), null);
    expect(first).toEqual({ fraction: 0.2, text: "20% · Imported batch 1 of 5" });
    const next = runProgressView(
      run({ progress: { milestone: "schema-checked", message: "Schema checked", at: 2 } }),
      first,
    );
    expect(next).toEqual({ fraction: 0.2, text: "20% · Schema checked" });
  });

  it("is indeterminate only until something says how far; full once completed", () => {
    expect(runProgressView(run({}), null)).toEqual({ fraction: null, text: "Working…" });
    expect(
      runProgressView(run({ status: "completed", summary: "done" } as Partial<AgentToolRunState>), null).fraction,
    ).toBe(1);
    const milestones = [{ sequence: 3, name: "half-way", fraction: 0.6, at: 3 }];
    expect(runProgressView(run({ milestones }), null).fraction).toBe(0.6);
  });

  it("says a run waits for an approval rather than what it did last, keeping how far it is", () => {
    const asked = (status: "pending" | "approved"): AgentToolRunState["approvals"] => [
      { approvalId: "a1", toolCallId: "c1", toolName: "saveFile", input: {}, path: [], status, at: 1 },
    ];
    expect(runProgressView(run({ approvals: asked("pending") }), null).text).toBe(
      "Waiting for your approval: saveFile",
    );
    const progress = { fraction: 0.4, message: "Tidying the text", at: 1 };
    expect(runProgressView(run({ progress, approvals: asked("pending") }), null).text).toBe(
      "40% · Waiting for your approval: saveFile",
    );
    expect(runProgressView(run({ progress, approvals: asked("approved") }), null).text).toBe("40% · Tidying the text");
  });

  it("clamps what it is told into 0…1", () => {
    expect(runProgressView(run({ progress: { fraction: 1.7, at: 1 } }), null).fraction).toBe(1);
    expect(runProgressView(run({ progress: { fraction: -1, at: 1 } }), null).fraction).toBe(0);
  });
});
