import type { AgentToolTurnStream } from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";

/**
 * Test-only holds (the `DEMO_HOLD_AFTER` binding; off unless set, and then nothing here runs): a child's turn stops
 * after a given number of its text deltas and waits, until its run is cancelled (Cancel, Stop, a budget) or until a
 * test releases it (`POST /test/release-hold?runId=<runId>`, which the Worker serves only while the binding is set).
 * A run held so is live whatever the machine's load: a test that acts on a running run (Stop, Cancel, a reload, a
 * restart, a second tab) holds it there instead of pacing it on real time and hoping it is still running.
 *
 * `DEMO_HOLD_AFTER` names agent types and counts: `Researcher:4,6;Importer:2` holds each Researcher turn once it
 * has streamed its 4th text delta and again at its 6th, and each Importer turn at its 2nd. A turn counts its own text
 * deltas (a turn resumed after a restart counts from its start). Each release lets a run past one hold: the one it
 * waits at or, sent earlier, the next one it reaches. Holds and releases live in the isolate: a restart forgets both
 * (a resumed turn holds again unless the binding is off, or the test releases the run again).
 */
export type HoldEnv = {
  /** `<agentType>:<n>[,<n>…]`, `;`-separated: hold that agent's turns after their n-th text deltas (see above). */
  DEMO_HOLD_AFTER?: string;
};

/** Where a test releases a held run (`POST`, `?runId=`); served only while `DEMO_HOLD_AFTER` is set. */
export const RELEASE_HOLD_PATH = "/test/release-hold";

/** The text-delta counts at which `agentType`'s turns hold, in order; empty (no hold) unless the binding names it. */
export function holdPointsOf(env: HoldEnv, agentType: string): number[] {
  for (const entry of (env.DEMO_HOLD_AFTER ?? "").split(";")) {
    const [name, counts] = entry.split(":");
    if (name?.trim() !== agentType || counts === undefined) continue;
    return counts
      .split(",")
      .map(Number)
      .filter((count) => Number.isInteger(count) && count >= 1)
      .sort((left, right) => left - right);
  }
  return [];
}

/** Per run: releases sent before it reached a hold, and the hold it waits at now. */
type RunHolds = { banked: number; waiting: (() => void) | null };
const runHolds = new Map<string, RunHolds>();

function holdsOf(runId: string): RunHolds {
  let holds = runHolds.get(runId);
  if (!holds) {
    holds = { banked: 0, waiting: null };
    runHolds.set(runId, holds);
  }
  return holds;
}

/** Let run `runId` past one hold: the one it waits at, or else the next one it reaches. */
export function releaseHold(runId: string): void {
  const holds = holdsOf(runId);
  const go = holds.waiting;
  holds.waiting = null;
  if (go) go();
  else holds.banked += 1;
}

/** Resolves once run `runId` is released (a release sent earlier counts) or `abortSignal` aborts. */
function released(runId: string, abortSignal: AbortSignal): Promise<void> {
  const holds = holdsOf(runId);
  if (holds.banked > 0) {
    holds.banked -= 1;
    return Promise.resolve();
  }
  if (abortSignal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      if (holds.waiting === go) holds.waiting = null;
      resolve();
    };
    const go = () => {
      abortSignal.removeEventListener("abort", onAbort);
      resolve();
    };
    holds.waiting = go;
    abortSignal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `stream`'s chunks, held after each text delta whose count is in `points`: when the consumer asks for the chunk after
 * it (so it has taken that one: logged it, and the parent may forward it), the turn waits for `released` first. Once
 * the run is aborted the stream goes on as it would have (the turn's model or steps see the same abort).
 */
export async function* holdAtTextDeltas(
  stream: AgentToolTurnStream,
  points: readonly number[],
  run: { runId: string; abortSignal: AbortSignal },
): AsyncGenerator<UIMessageChunk> {
  let deltas = 0;
  for await (const chunk of stream as AsyncIterable<UIMessageChunk>) {
    yield chunk;
    if (chunk.type !== "text-delta") continue;
    deltas += 1;
    if (points.includes(deltas)) await released(run.runId, run.abortSignal);
  }
}
