// A turn of the conversation as data: where it is, what may happen to it there, and how it ends. The engine applies
// these decisions (it reads the model, writes the store, talks to sockets); tests check them as a table.
import type { AgentChatTurnStatus } from "@agent-tools/core-runs/protocol";

/**
 * Where a turn is:
 * - `queued`: a send waiting for the turn in flight (nothing of it is stored yet);
 * - `starting`: its turn came: its user message is stored, its conversation is being read;
 * - `closing-cut-step`: a resumed turn runs the tool calls its cut step left without a result;
 * - `streaming`: the model's stream is read, chunk by chunk;
 * - `ending`: the stream is over; the answer is being stored and every follower told;
 * - `ended`: nothing more happens to it (`status` says how it ended; a dropped send ends as `dropped`).
 */
export type TurnPhase = "queued" | "starting" | "closing-cut-step" | "streaming" | "ending" | "ended";

/** How a turn ended: a turn's status, or `dropped` for a queued send that never ran. */
export type TurnEnd = AgentChatTurnStatus | "dropped";

export type TurnState = {
  readonly phase: TurnPhase;
  /** Stop was asked while it ran: it ends `aborted` whatever its stream does after. */
  readonly isStopRequested: boolean;
  /** Set once it is `ending` or `ended`. */
  readonly end?: TurnEnd;
  /** Why it ended, for an `error` (shown to its followers). */
  readonly errorText?: string;
};

/**
 * What can happen to a turn:
 * - `start`: its turn came (a queued send, a resumed turn);
 * - `cut-step`: a resumed turn has a cut step to close first;
 * - `stream-open`: the model's stream is being read;
 * - `stop`: a tab stopped it (the sender's abort, or a Stop from any tab);
 * - `drop`: a queued send's socket went away, or its sender aborted it before it started;
 * - `stream-end`: the model's stream ended;
 * - `fail`: the model, a write or a limit failed it;
 * - `stored`: its answer was stored; `store-failed`: storing it failed (it still ends, visibly).
 */
export type TurnEvent =
  | { type: "start" }
  | { type: "cut-step" }
  | { type: "stream-open" }
  | { type: "stop" }
  | { type: "drop" }
  | { type: "stream-end" }
  | { type: "fail"; errorText: string }
  | { type: "stored" }
  | { type: "store-failed"; errorText: string };

/** A turn as a send queues it. */
export const QUEUED_TURN: TurnState = { phase: "queued", isStopRequested: false };

/** A resumed turn: it has its turn at once. */
export const STARTING_TURN: TurnState = { phase: "starting", isStopRequested: false };

const RUNNING: readonly TurnPhase[] = ["starting", "closing-cut-step", "streaming"];

/**
 * The next state of a turn. An event that means nothing where the turn is (a `stop` of a turn that is ending, a
 * `stored` before it ended, anything once `ended`) returns the same object: the caller can tell it was ignored.
 */
export function nextTurnState(state: TurnState, event: TurnEvent): TurnState {
  const { phase } = state;
  switch (event.type) {
    case "start":
      return phase === "queued" ? { ...state, phase: "starting" } : state;
    case "cut-step":
      return phase === "starting" ? { ...state, phase: "closing-cut-step" } : state;
    case "stream-open":
      return phase === "starting" || phase === "closing-cut-step" ? { ...state, phase: "streaming" } : state;
    case "stop":
      if (phase === "queued") return { phase: "ended", isStopRequested: true, end: "dropped" };
      return RUNNING.includes(phase) && !state.isStopRequested ? { ...state, isStopRequested: true } : state;
    case "drop":
      return phase === "queued" ? { ...state, phase: "ended", end: "dropped" } : state;
    case "stream-end":
      if (!RUNNING.includes(phase)) return state;
      return { ...state, phase: "ending", end: state.isStopRequested ? "aborted" : "completed" };
    case "fail":
      if (!RUNNING.includes(phase)) return state;
      // A stream cut by Stop often fails (an abort error): that is the Stop, not a failure.
      return state.isStopRequested
        ? { ...state, phase: "ending", end: "aborted" }
        : { ...state, phase: "ending", end: "error", errorText: event.errorText };
    case "stored":
      return phase === "ending" ? { ...state, phase: "ended" } : state;
    case "store-failed":
      return phase === "ending" ? { ...state, phase: "ended", end: "error", errorText: event.errorText } : state;
  }
}

/** True while the turn holds the conversation (from its start until it ended). */
export function isTurnRunning(state: TurnState): boolean {
  return RUNNING.includes(state.phase) || state.phase === "ending";
}

/**
 * Whether a new send may wait for its turn: refused once `maxQueuedSends` sends already wait (the turn in flight is
 * not counted), so a client that sends in a loop cannot queue unbounded work.
 */
export function decideQueueAdmission(input: {
  queuedSends: number;
  maxQueuedSends: number;
}): { kind: "queue" } | { kind: "refuse"; error: string } {
  if (input.queuedSends < input.maxQueuedSends) return { kind: "queue" };
  return {
    kind: "refuse",
    error: `Too many messages are waiting for an answer (${input.maxQueuedSends}); wait for the answers, then send again`,
  };
}
