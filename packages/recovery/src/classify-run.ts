import {
  type AgentToolInterruptedReason,
  type AgentToolRunInspection,
  type Clock,
  delay,
  type TimerHandle,
} from "@agent-tools/core-runs";

/** What recovery learned about a run's child before following it. */
export type RunClassification =
  /** The child already ended the run: follow it only to drain its log and collect the result. */
  | { kind: "terminal"; inspection: AgentToolRunInspection }
  /**
   * The child is running the run, or (`inspection: null`) has no record of a run whose start it never
   * acknowledged: following re-sends the idempotent start.
   */
  | { kind: "live"; inspection: AgentToolRunInspection | null }
  /** The child could not be classified: give the run up with this reason. */
  | { kind: "unresolved"; reason: UnresolvedReason };

/** Why a run could not be classified. */
export type UnresolvedReason = Extract<
  AgentToolInterruptedReason,
  "inspect-timeout" | "inspect-failed" | "recovery-deadline" | "not-tailable"
>;

export type ClassifyRunOptions = {
  /** Ask the child for its inspection of the run (`null`: no record yet; rejects when unreachable). */
  inspect: () => Promise<AgentToolRunInspection | null>;
  clock: Clock;
  /** False for a run still `starting` whose child never acknowledged `start`. */
  isStartAcknowledged: boolean;
  /** Bound on each inspection. */
  inspectTimeoutMs: number;
  /** Epoch ms by which classification must be done (shared by every row of one recovery). */
  deadlineAt: number;
};

/** The first pause before inspecting again after a `null` or a failed inspection; it doubles up to the max. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;
/** Inspections per row at most, so that a child answering `null` forever is given up even with no deadline. */
const MAX_INSPECT_ATTEMPTS = 10;

type InspectAttempt =
  | { kind: "answered"; inspection: AgentToolRunInspection | null }
  | { kind: "failed" }
  | { kind: "timeout" }
  | { kind: "deadline" };

/**
 * Classify a run by inspecting its child, each inspection bounded by `inspectTimeoutMs` and the whole by
 * `deadlineAt`. A `null` inspection is "no record yet", not failure: for an acknowledged run it is asked again
 * (with a growing pause) until the deadline, then given up as `not-tailable`; a failed inspection is retried the
 * same way, then given up as `inspect-failed`. An inspection still pending when its own timeout passes gives
 * `inspect-timeout`, one cut by the deadline `recovery-deadline`. Never rejects.
 */
export async function classifyRun(options: ClassifyRunOptions): Promise<RunClassification> {
  const { clock, deadlineAt } = options;
  let lastCause: "not-tailable" | "inspect-failed" | null = null;
  let pauseMs = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt += 1) {
    if (clock.now() >= deadlineAt) return unresolved(lastCause ?? "recovery-deadline");
    const result = await inspectWithin(options);
    switch (result.kind) {
      case "timeout":
        return unresolved("inspect-timeout");
      case "deadline":
        return unresolved("recovery-deadline");
      case "failed":
        lastCause = "inspect-failed";
        break;
      case "answered": {
        const { inspection } = result;
        if (inspection === null) {
          if (!options.isStartAcknowledged) return { kind: "live", inspection: null };
          lastCause = "not-tailable";
          break;
        }
        return inspection.status === "running" ? { kind: "live", inspection } : { kind: "terminal", inspection };
      }
    }
    if (attempt >= MAX_INSPECT_ATTEMPTS) return unresolved(lastCause ?? "not-tailable");
    const pause = Math.min(pauseMs, deadlineAt - clock.now());
    if (pause > 0) await delay(clock, pause);
    pauseMs = Math.min(pauseMs * 2, MAX_RETRY_MS);
  }
}

function unresolved(reason: UnresolvedReason): RunClassification {
  return { kind: "unresolved", reason };
}

/** One inspection, raced against the earlier of its own timeout and the deadline. */
function inspectWithin(options: ClassifyRunOptions): Promise<InspectAttempt> {
  const { clock, deadlineAt } = options;
  const now = clock.now();
  const timeoutAt = now + options.inspectTimeoutMs;
  const cutAt = Math.min(timeoutAt, deadlineAt);
  return new Promise<InspectAttempt>((resolve) => {
    let isSettled = false;
    let handle: TimerHandle | null = null;
    const settle = (attempt: InspectAttempt) => {
      if (isSettled) return;
      isSettled = true;
      if (handle !== null) clock.clearTimeout(handle);
      resolve(attempt);
    };
    if (Number.isFinite(cutAt)) {
      handle = clock.setTimeout(
        () => settle(deadlineAt < timeoutAt ? { kind: "deadline" } : { kind: "timeout" }),
        cutAt - now,
      );
    }
    let inspecting: Promise<AgentToolRunInspection | null>;
    try {
      inspecting = options.inspect();
    } catch (error) {
      inspecting = Promise.reject(error);
    }
    inspecting.then(
      (inspection) => settle({ kind: "answered", inspection }),
      () => settle({ kind: "failed" }),
    );
  });
}
