// What a task's client is told anew of its run's progress: a milestone once (by its entry), a report that changes the
// bar it holds — never the snapshot a tail of the child starts from, which repeats both.
import { describe, expect, it } from "vitest";
import { TaskProgress } from "./task-progress.js";

const milestone = (name: string, at: number, fields: Record<string, unknown> = {}) => ({
  type: "data-agent-milestone",
  data: { milestone: name, ...fields, at },
});
const progress = (data: Record<string, unknown>) => ({ type: "data-agent-progress", data, transient: true });
const told = (progressOf: TaskProgress, body: unknown, sequence?: number) =>
  progressOf.news(body, sequence)?.message ?? null;

describe("TaskProgress", () => {
  it("tells a milestone once by its entry's sequence, whatever brings it again", () => {
    const task = new TaskProgress();
    expect(told(task, milestone("fetched", 10), 3)).toBe("milestone: fetched");
    expect(told(task, milestone("fetched", 10), 3)).toBeNull();
    expect(told(task, milestone("fetched", 10), 2)).toBeNull();
    // The snapshot a tail starts from names the milestone, stamped with its entry's time (later than the report).
    expect(told(task, progress({ milestone: "fetched", at: 11 }))).toBeNull();
    // The same name reached again is another milestone: another entry.
    expect(told(task, milestone("fetched", 20), 7)).toBe("milestone: fetched");
  });

  it("tells nothing for a tail's snapshot that comes before the milestone's entry and has no bar", () => {
    const task = new TaskProgress();
    // The entry reaches a tail once written: a tail that drained the log before that starts from the snapshot.
    expect(told(task, progress({ milestone: "fetched", at: 11 }))).toBeNull();
    expect(told(task, milestone("fetched", 10), 3)).toBe("milestone: fetched");
  });

  it("tells a report that changes the bar the client holds, not one that repeats it or is older", () => {
    const task = new TaskProgress();
    expect(told(task, progress({ fraction: 0.2, message: "reading", at: 5 }))).toBe("reading — 20%");
    expect(told(task, progress({ fraction: 0.2, message: "reading", at: 6 }))).toBeNull();
    expect(told(task, progress({ fraction: 0.1, message: "older", at: 4 }))).toBeNull();
    expect(told(task, progress({ fraction: 0.2, message: "reading", phase: "parse", at: 7 }))).toBe("reading — 20%");
    expect(told(task, progress({ fraction: 0.4, message: "reading", phase: "parse", at: 7 }))).toBe("reading — 40%");
  });

  it("folds a milestone into the bar as the protocol does: a tail's snapshot after it repeats nothing", () => {
    const task = new TaskProgress();
    expect(told(task, progress({ fraction: 0.3, message: "searching", at: 1 }))).toBe("searching — 30%");
    expect(told(task, milestone("sources found", 2, { message: "3 sources" }), 1)).toBe(
      "milestone: sources found — 3 sources",
    );
    // The run's snapshot after the milestone keeps the bar's fraction and takes the milestone's message.
    expect(told(task, progress({ fraction: 0.3, message: "3 sources", milestone: "sources found", at: 3 }))).toBeNull();
  });

  it("tells a snapshot with a bar the client never held (reported before the parent's tail attached)", () => {
    const task = new TaskProgress();
    expect(told(task, milestone("sources found", 2), 1)).toBe("milestone: sources found");
    expect(told(task, progress({ fraction: 0.3, message: "searching", milestone: "sources found", at: 2 }))).toBe(
      "searching — 30%",
    );
  });

  it("counts data as news only when a report brings some (a tail's snapshot keeps none it was not asked to)", () => {
    const task = new TaskProgress();
    expect(told(task, progress({ fraction: 0.5, data: { rows: 3 }, at: 1 }))).toBe("50%");
    expect(told(task, progress({ fraction: 0.5, at: 2 }))).toBeNull();
    expect(told(task, progress({ fraction: 0.5, data: { rows: 3 }, at: 3 }))).toBeNull();
    expect(told(task, progress({ fraction: 0.5, data: { rows: 4 }, at: 4 }))).toBe("50%");
  });

  it("takes a report without a time of its own as the latest", () => {
    const task = new TaskProgress();
    expect(told(task, progress({ fraction: 0.5, at: 8 }))).toBe("50%");
    expect(told(task, progress({ fraction: 0.6 }))).toBe("60%");
    // A report with no bar tells a client that holds none nothing.
    expect(told(new TaskProgress(), progress({}))).toBeNull();
    expect(told(task, { type: "text-delta", id: "t", delta: "x" })).toBeNull();
  });
});
