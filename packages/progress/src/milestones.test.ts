import { readProgressChunk } from "@agent-tools/core-runs";
import { type AgentToolLogEntry, readMilestoneChunk } from "@agent-tools/core-runs/protocol";
import { describe, expect, it } from "vitest";
import { milestoneChunk, milestoneListing, readMilestones } from "./milestones.js";
import { progressChunk, progressSnapshot } from "./progress-snapshot.js";

describe("milestone chunks", () => {
  it("builds the seed's data part, which core-runs reads back as a milestone and a snapshot", () => {
    const body = milestoneChunk({ milestone: "half-way", fraction: 0.5, message: "2 of 4", data: { rows: 2 } }, 42);
    expect(body).toEqual({
      type: "data-agent-milestone",
      data: { milestone: "half-way", message: "2 of 4", fraction: 0.5, data: { rows: 2 }, at: 42 },
    });
    expect(readMilestoneChunk(body, 7, 0)).toEqual({
      name: "half-way",
      message: "2 of 4",
      fraction: 0.5,
      data: { rows: 2 },
      sequence: 7,
      at: 42,
    });
    expect(readProgressChunk(body, 0)).toMatchObject({ milestone: "half-way", fraction: 0.5, at: 42 });
    expect(milestoneListing({ milestone: "half-way", phase: "rows" })).toEqual({ name: "half-way", phase: "rows" });
  });

  it("reads the milestones of log entries once per sequence, skipping other chunks", () => {
    const entries: AgentToolLogEntry[] = [
      { sequence: 1, body: { type: "start" }, at: 1 },
      { sequence: 2, body: milestoneChunk({ milestone: "schema-checked" }, 2), at: 2 },
      { sequence: 3, body: { type: "text-delta", id: "t", delta: "x" }, at: 3 },
      { sequence: 2, body: milestoneChunk({ milestone: "schema-checked" }, 2), at: 2 },
      { sequence: 4, body: milestoneChunk({ milestone: "imported", fraction: 1 }, 4), at: 4 },
    ];
    expect(readMilestones(entries)).toEqual([
      { name: "schema-checked", sequence: 2, at: 2 },
      { name: "imported", fraction: 1, sequence: 4, at: 4 },
    ]);
  });
});

describe("progress chunks", () => {
  it("always carry data and are transient; the snapshot keeps data only with persist", () => {
    const update = { fraction: 0.25, phase: "rows", data: { rows: 25 } };
    const body = progressChunk(update, 9);
    expect(body).toEqual({
      type: "data-agent-progress",
      data: { fraction: 0.25, phase: "rows", data: { rows: 25 }, at: 9 },
      transient: true,
    });
    expect(readProgressChunk(body, 0)).toEqual({ fraction: 0.25, phase: "rows", data: { rows: 25 }, at: 9 });
    expect(progressSnapshot(update, 9)).toEqual({ fraction: 0.25, phase: "rows", at: 9 });
    expect(progressSnapshot(update, 9, { persist: true })).toEqual({
      fraction: 0.25,
      phase: "rows",
      data: { rows: 25 },
      at: 9,
    });
  });
});
