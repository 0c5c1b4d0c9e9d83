// Every transition of the turn machine, as a table: each (phase, event) pair either moves the turn or is ignored
// (the same state object comes back).
import { describe, expect, it } from "vitest";
import {
  decideQueueAdmission,
  isTurnRunning,
  nextTurnState,
  QUEUED_TURN,
  STARTING_TURN,
  type TurnEvent,
  type TurnPhase,
  type TurnState,
} from "./turn-machine.js";

const at = (phase: TurnPhase, extra: Partial<TurnState> = {}): TurnState => ({
  phase,
  isStopRequested: false,
  ...extra,
});

const EVENTS: Record<TurnEvent["type"], TurnEvent> = {
  start: { type: "start" },
  "cut-step": { type: "cut-step" },
  "stream-open": { type: "stream-open" },
  stop: { type: "stop" },
  drop: { type: "drop" },
  "stream-end": { type: "stream-end" },
  fail: { type: "fail", errorText: "boom" },
  stored: { type: "stored" },
  "store-failed": { type: "store-failed", errorText: "disk" },
};

const PHASES: TurnPhase[] = ["queued", "starting", "closing-cut-step", "streaming", "ending", "ended"];

/** What each (phase, event) gives; `null` means ignored. */
const TABLE: Record<TurnPhase, Record<TurnEvent["type"], TurnState | null>> = {
  queued: {
    start: at("starting"),
    "cut-step": null,
    "stream-open": null,
    stop: { phase: "ended", isStopRequested: true, end: "dropped" },
    drop: at("ended", { end: "dropped" }),
    "stream-end": null,
    fail: null,
    stored: null,
    "store-failed": null,
  },
  starting: {
    start: null,
    "cut-step": at("closing-cut-step"),
    "stream-open": at("streaming"),
    stop: at("starting", { isStopRequested: true }),
    drop: null,
    "stream-end": at("ending", { end: "completed" }),
    fail: at("ending", { end: "error", errorText: "boom" }),
    stored: null,
    "store-failed": null,
  },
  "closing-cut-step": {
    start: null,
    "cut-step": null,
    "stream-open": at("streaming"),
    stop: at("closing-cut-step", { isStopRequested: true }),
    drop: null,
    "stream-end": at("ending", { end: "completed" }),
    fail: at("ending", { end: "error", errorText: "boom" }),
    stored: null,
    "store-failed": null,
  },
  streaming: {
    start: null,
    "cut-step": null,
    "stream-open": null,
    stop: at("streaming", { isStopRequested: true }),
    drop: null,
    "stream-end": at("ending", { end: "completed" }),
    fail: at("ending", { end: "error", errorText: "boom" }),
    stored: null,
    "store-failed": null,
  },
  ending: {
    start: null,
    "cut-step": null,
    "stream-open": null,
    stop: null,
    drop: null,
    "stream-end": null,
    fail: null,
    stored: at("ended"),
    "store-failed": at("ended", { end: "error", errorText: "disk" }),
  },
  ended: {
    start: null,
    "cut-step": null,
    "stream-open": null,
    stop: null,
    drop: null,
    "stream-end": null,
    fail: null,
    stored: null,
    "store-failed": null,
  },
};

describe("nextTurnState", () => {
  for (const phase of PHASES) {
    for (const [name, event] of Object.entries(EVENTS)) {
      const expected = TABLE[phase][name as TurnEvent["type"]];
      it(`${phase} + ${name} → ${expected ? expected.phase : "ignored"}`, () => {
        const state = at(phase);
        const next = nextTurnState(state, event);
        if (expected === null) expect(next).toBe(state);
        else expect(next).toEqual(expected);
      });
    }
  }

  it("a turn stopped while it runs ends aborted, whether its stream ends or fails after", () => {
    for (const phase of ["starting", "closing-cut-step", "streaming"] as const) {
      const stopped = nextTurnState(at(phase), EVENTS.stop);
      expect(nextTurnState(stopped, EVENTS["stream-end"])).toEqual({
        phase: "ending",
        isStopRequested: true,
        end: "aborted",
      });
      expect(nextTurnState(stopped, EVENTS.fail)).toEqual({ phase: "ending", isStopRequested: true, end: "aborted" });
      // A second stop changes nothing.
      expect(nextTurnState(stopped, EVENTS.stop)).toBe(stopped);
    }
  });

  it("a stopped turn's end keeps its status through the store's answer", () => {
    const ending = { phase: "ending", isStopRequested: true, end: "aborted" } as const;
    expect(nextTurnState(ending, EVENTS.stored)).toEqual({ ...ending, phase: "ended" });
  });

  it("starts from the queued and starting states", () => {
    expect(QUEUED_TURN).toEqual(at("queued"));
    expect(STARTING_TURN).toEqual(at("starting"));
  });

  it("isTurnRunning holds from the start until the turn ended", () => {
    expect(PHASES.filter((phase) => isTurnRunning(at(phase)))).toEqual([
      "starting",
      "closing-cut-step",
      "streaming",
      "ending",
    ]);
  });
});

describe("decideQueueAdmission", () => {
  it("queues below the cap and refuses at it, saying why", () => {
    expect(decideQueueAdmission({ queuedSends: 7, maxQueuedSends: 8 })).toEqual({ kind: "queue" });
    expect(decideQueueAdmission({ queuedSends: 8, maxQueuedSends: 8 })).toEqual({
      kind: "refuse",
      error: "Too many messages are waiting for an answer (8); wait for the answers, then send again",
    });
  });
});
