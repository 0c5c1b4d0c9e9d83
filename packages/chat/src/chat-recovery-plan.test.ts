import { describe, expect, it } from "vitest";
import { planChatRecovery } from "./chat-recovery-plan.js";
import { makeStoredTurn } from "./testing/chat-store-contract-cases.js";

describe("planChatRecovery", () => {
  it("has nothing to do without a stored turn", () => {
    expect(planChatRecovery([], 3)).toEqual({ lost: [], resume: null, close: null });
  });

  it("resumes the only turn with its attempt counted", () => {
    expect(planChatRecovery([makeStoredTurn({ resumeAttempts: 1 })], 3)).toEqual({
      lost: [],
      resume: makeStoredTurn({ resumeAttempts: 2 }),
      close: null,
    });
  });

  it("closes a turn resumed maxResumeAttempts times already", () => {
    expect(planChatRecovery([makeStoredTurn({ resumeAttempts: 3 })], 3)).toEqual({
      lost: [],
      resume: null,
      close: makeStoredTurn({ resumeAttempts: 4 }),
    });
  });

  it("resumes the newest turn whatever the order, and calls every older one lost", () => {
    const old = makeStoredTurn({ turnId: "old", startedAt: 1_000 });
    const older = makeStoredTurn({ turnId: "older", startedAt: 500 });
    const newest = makeStoredTurn({ turnId: "newest", startedAt: 9_000 });
    const plan = planChatRecovery([old, newest, older], 3);
    expect(plan.lost.map((turn) => turn.turnId)).toEqual(["older", "old"]);
    expect(plan.resume?.turnId).toBe("newest");
  });
});
