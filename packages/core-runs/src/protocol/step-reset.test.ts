import { describe, expect, it } from "vitest";
import { AGENT_STEP_RESET_PART, readStepResetChunk, stepResetChunk } from "./step-reset.js";

describe("step reset chunks", () => {
  it("round-trips a reset, transient so the AI SDK makes no part of it", () => {
    expect(stepResetChunk(7)).toEqual({ type: AGENT_STEP_RESET_PART, data: { fromSequence: 7 }, transient: true });
    expect(readStepResetChunk(stepResetChunk(7))).toEqual({ fromSequence: 7 });
    expect(readStepResetChunk(JSON.parse(JSON.stringify(stepResetChunk(3))))).toEqual({ fromSequence: 3 });
  });

  it("reads null from anything else, never throwing", () => {
    for (const body of [
      null,
      "data-agent-step-reset",
      { type: "text-delta", id: "t", delta: "x" },
      { type: AGENT_STEP_RESET_PART },
      { type: AGENT_STEP_RESET_PART, data: { fromSequence: 0 } },
      { type: AGENT_STEP_RESET_PART, data: { fromSequence: 1.5 } },
      { type: AGENT_STEP_RESET_PART, data: { fromSequence: "2" } },
      { type: AGENT_STEP_RESET_PART, data: [1] },
    ]) {
      expect(readStepResetChunk(body)).toBeNull();
    }
  });
});
