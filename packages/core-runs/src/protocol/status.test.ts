import { describe, expect, it } from "vitest";
import {
  isHardTerminalStatus,
  isLiveStatus,
  isRunStatus,
  isTerminalStatus,
  RUN_STATUSES,
  type RunStatus,
} from "./status.js";

// One row per status: [terminal, hard terminal, live (holds a slot)].
const expected: Record<RunStatus, [boolean, boolean, boolean]> = {
  starting: [false, false, true],
  running: [false, false, true],
  completed: [true, true, false],
  error: [true, true, false],
  aborted: [true, true, false],
  interrupted: [true, false, false],
};

describe("run status predicates", () => {
  it("lists every status once, in lifecycle order", () => {
    expect(RUN_STATUSES).toEqual(["starting", "running", "completed", "error", "aborted", "interrupted"]);
    expect(new Set(RUN_STATUSES).size).toBe(RUN_STATUSES.length);
    expect([...RUN_STATUSES].sort()).toEqual(Object.keys(expected).sort());
  });

  for (const status of RUN_STATUSES) {
    const [terminal, hardTerminal, live] = expected[status];
    it(`classifies ${status}`, () => {
      expect(isTerminalStatus(status)).toBe(terminal);
      expect(isHardTerminalStatus(status)).toBe(hardTerminal);
      expect(isLiveStatus(status)).toBe(live);
      expect(isRunStatus(status)).toBe(true);
    });
  }

  it("puts every status in exactly one of live or terminal", () => {
    for (const status of RUN_STATUSES) {
      expect(isLiveStatus(status) !== isTerminalStatus(status), status).toBe(true);
      if (isHardTerminalStatus(status)) expect(isTerminalStatus(status), status).toBe(true);
    }
  });

  it("rejects values that are not statuses", () => {
    for (const value of ["", "Running", "done", "cancelled", "interrupted ", null, undefined, 1, {}, ["running"]]) {
      expect(isRunStatus(value), String(value)).toBe(false);
    }
  });
});
