import type { AgentToolRunState } from "@agent-tools/react";
import { STOPPED_TOOL_CALL_TEXT, UNFINISHED_TOOL_CALL_TEXT } from "@agent-tools/react";
import { describe, expect, it } from "vitest";
import { type ToolCallContext, type ToolPart, toolCallState } from "../web/src/tool-call-state.js";

// The demo page's tool-call header: in step with its runs and its turn (issue 18: "a stopped turn must not leave a
// tool 'running…'; a cancel says who cancelled").

const part = (state: ToolPart["state"], output?: unknown, errorText?: string): ToolPart =>
  ({
    type: "tool-research",
    toolCallId: "c1",
    state,
    input: { topic: "cats" },
    output,
    errorText,
  }) as unknown as ToolPart;
const run = (status: AgentToolRunState["status"], runId = "r1", approvals: AgentToolRunState["approvals"] = []) =>
  ({ runId, status, approvals }) as AgentToolRunState;
const context = (overrides: Partial<ToolCallContext> = {}): ToolCallContext => ({
  isStreaming: true,
  runs: [run("running")],
  turnStatus: undefined,
  stoppedHere: false,
  cancelledHere: () => false,
  ...overrides,
});
const label = (toolPart: ToolPart, overrides?: Partial<ToolCallContext>) =>
  toolCallState(toolPart, context(overrides)).label;

describe("toolCallState", () => {
  it("runs while its turn streams and a run is live", () => {
    expect(label(part("input-available"))).toBe("running…");
    expect(label(part("input-streaming"))).toBe("preparing…");
    expect(label(part("input-available"), { runs: [run("completed")] })).toBe("finishing…");
  });

  it("never reads running… once its turn is over without a result", () => {
    expect(label(part("input-available"), { isStreaming: false, runs: [run("running")] })).toBe("stopped");
    expect(label(part("input-available"), { isStreaming: false, runs: [run("aborted")] })).toBe("stopped");
    expect(label(part("input-available"), { isStreaming: false, runs: [run("aborted")], stoppedHere: true })).toBe(
      "stopped by you",
    );
    expect(label(part("input-available"), { isStreaming: false, runs: [], turnStatus: "interrupted" })).toBe(
      "interrupted",
    );
  });

  it("says a run's failure or cancel, and who cancelled, instead of done", () => {
    const cancelled = part("output-available", { ok: false, status: "aborted", error: "Cancelled by the parent" });
    expect(label(cancelled, { isStreaming: false, runs: [run("aborted")] })).toBe("cancelled");
    expect(label(cancelled, { isStreaming: false, runs: [run("aborted")], cancelledHere: (id) => id === "r1" })).toBe(
      "cancelled by you",
    );
    expect(label(part("output-available", { ok: false, status: "error" }), { runs: [run("error")] })).toBe("failed");
    expect(label(part("output-available", "a summary"), { runs: [run("completed")] })).toBe("done");
    // Done without a tool its tree was denied is not a plain success.
    const denied: AgentToolRunState["approvals"] = [
      { approvalId: "a1", toolCallId: "c1", toolName: "saveFile", input: {}, path: [], status: "denied", at: 1 },
    ];
    expect(
      toolCallState(part("output-available", "not saved"), context({ runs: [run("completed", "r1", denied)] })),
    ).toEqual({ label: "done, saveFile denied", tone: "stopped", cancelCause: null });
    expect(label(part("output-error"))).toBe("failed");
  });

  it("reads a call the server closed on Stop as stopped (by you), like one Stop left without a result", () => {
    const closed = part("output-error", undefined, STOPPED_TOOL_CALL_TEXT);
    expect(label(closed, { isStreaming: false, runs: [run("aborted")], turnStatus: "aborted" })).toBe("stopped");
    const mine = toolCallState(closed, context({ isStreaming: false, runs: [run("aborted")], stoppedHere: true }));
    expect(mine).toEqual({ label: "stopped by you", tone: "stopped", cancelCause: "reply-stopped-by-you" });
    expect(label(closed, { isStreaming: false, runs: [] })).toBe("stopped");
    expect(label(part("output-error", undefined, UNFINISHED_TOOL_CALL_TEXT), { isStreaming: false })).toBe(
      "interrupted",
    );
  });
});
