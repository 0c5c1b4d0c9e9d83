import type { UIMessage } from "ai";
import type { Clock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import type { AgentToolRunInspection, AgentToolTraceContext, AgentToolTree } from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import type { AgentToolChildDefinition } from "./child-definition.js";

export type AgentToolChildRunnerOptions = {
  definition: AgentToolChildDefinition;
  /** The child's own storage (one per child instance). */
  store: RunStore;
  clock?: Clock;
  sink?: RunEventSink;
  /**
   * Keep the host alive while a turn runs after `start` returned (e.g. a Durable Object's `ctx.waitUntil`).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** How many times a cut-off turn is resumed before the run ends as `error` (a whole number ≥ 0). Default 3. */
  maxRecoveryAttempts?: number;
  /** Whether to resume a cut-off run (checked before each attempt). Default: always, within the attempts. */
  shouldKeepRecovering?: (run: RunRecord) => boolean;
  /**
   * Execute each turn inside a scope the host provides: `run` is everything the turn does (a resumed step's tool
   * calls, `turn`, reading its stream), so with an `AsyncLocalStorage` keyed by `runId` code deep inside a turn (a
   * tool's `execute`) can tell which run it works for, even with several runs live on one runner. Default: none.
   */
  runScope?: <TResult>(
    runId: string,
    run: () => TResult,
    tree: AgentToolTree | null,
    trace: AgentToolTraceContext | null,
  ) => TResult;
  /**
   * How long a cancelled run waits, at most, for what it dispatched itself (`definition.onCancel`) to end before it
   * records its own end. Default 10 s.
   */
  descendantsTimeoutMs?: number;
  /**
   * Let the host's event loop turn (resolve after a macrotask, e.g. a 0 ms timer). Awaited after a turn's first 64
   * chunks, 256 later, then after every 1 024 (`YIELD_EVERY`): a stream that makes its chunks without ever
   * waiting (a mock or cached model, a fast transform) would otherwise hold the host until the turn ends — in a
   * Durable Object, the `start` answer and every tail with it, so the first chunk would leave together with the last.
   * A shorter instant turn does end in one go (one storage commit, not two: its whole answer was ready at once). A
   * model paced by the network yields by itself; this adds at most one macrotask (and, in a Durable Object, one
   * storage commit) per 1 024 entries, and one more early on. `startTail` awaits it once too (or the run's end, if that
   * comes first) before it answers for a run it began: an instant turn has ended by then, and its whole run goes in
   * the answer. Default: none.
   */
  yieldToEventLoop?: () => Promise<void>;
};

/** A run's conversation as the child holds it at one point: what `getConversation` gives a drill-in. */
export type ChildConversationSnapshot = {
  /** The input as a user message, then the assistant message built from the log (none while it is empty). */
  messages: UIMessage[];
  /** The log sequence the messages hold (0 for an empty log): a tail from here misses and doubles nothing. */
  lastSequence: number;
  /** The run's inspection, with that `lastSequence`; `null` for a run this child does not know. */
  run: AgentToolRunInspection | null;
};

/** Default `descendantsTimeoutMs`: 10 s. */
export const DEFAULT_DESCENDANTS_TIMEOUT_MS = 10_000;
