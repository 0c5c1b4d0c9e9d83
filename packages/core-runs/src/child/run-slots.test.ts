import { describe, expect, it } from "vitest";
import { InMemoryRunStore } from "../testing/in-memory-run-store.js";
import { ManualClock } from "../testing/manual-clock.js";
import { echoChild } from "../testing/scripted-child.js";
import { LiveRun } from "./live-run.js";
import { RunSlots } from "./run-slots.js";

function liveRun(runId: string): LiveRun {
  const now = 1_000;
  return new LiveRun({
    record: {
      ...{ runId, agentType: "Echo", status: "running", revision: 1, startedAt: now, updatedAt: now },
      ...{ displayOrder: 0, input: "x", lastSequence: 0 },
    },
    start: { lastSequence: 0, milestones: [] },
    store: new InMemoryRunStore(),
    clock: new ManualClock(now),
    definition: echoChild("Echo"),
  });
}

describe("RunSlots", () => {
  it("holds a run's state while it has any, and nothing for it once every part is cleared", () => {
    const slots = new RunSlots();
    const live = liveRun("r1");
    slots.set("r1", "isRecording", true);
    slots.set("r1", "live", live);
    slots.set("r2", "isTailExpected", true);
    expect(slots.size).toBe(2);
    expect(slots.get("r1", "live")).toBe(live);
    expect([...slots.live()]).toEqual([live]);
    slots.delete("r1", "isRecording");
    // Still live: its slot stays.
    expect(slots.get("r1", "live")).toBe(live);
    expect(slots.size).toBe(2);
    slots.delete("r1", "live");
    slots.set("r2", "isTailExpected", undefined);
    expect(slots.size).toBe(0);
    expect(slots.get("r1", "live")).toBeUndefined();
    expect([...slots.live()]).toEqual([]);
    // Clearing what is not held is a no-op.
    slots.delete("r3", "starting");
    expect(slots.size).toBe(0);
  });
});
