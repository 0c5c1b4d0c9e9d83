import {
  type AgentToolProgressSnapshot,
  AgentToolsError,
  type AgentToolTurnContext,
  type AgentToolTurnStream,
  type Clock,
  systemClock,
  type TimerHandle,
} from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";
import { milestoneChunk, milestoneListing } from "./milestones.js";
import { type ProgressChunk, progressChunk, progressSnapshot } from "./progress-snapshot.js";
import { type ProgressUpdate, type ReportProgressOptions, validateProgressUpdate } from "./progress-update.js";

/** Default `progressThrottleMs`: at most one ephemeral progress frame per 200 ms per run. */
export const DEFAULT_PROGRESS_THROTTLE_MS = 200;

/**
 * Where a reporter sends progress: the turn context of a child run (`AgentToolTurnContext`), so the run is the
 * turn's and no run id is passed. With `abortSignal` (the full turn context has it), a cancelled run disposes
 * the reporter at once.
 */
export type ProgressTarget = Pick<AgentToolTurnContext, "appendChunk" | "publishEphemeral" | "clock"> &
  Partial<Pick<AgentToolTurnContext, "abortSignal">>;

/** Options of `createProgressReporter`. */
export type ProgressReporterOptions = {
  /** Where `at` and the throttle window come from. Default: the target's clock (`systemClock` without one). */
  clock?: Clock;
  /** The coalescing window for ephemeral progress, in ms (finite, ≥ 0; 0 sends every value). Default 200. */
  progressThrottleMs?: number;
  /**
   * Receives the one warning of a reporter created outside a run. Default: `console.warn`, except when
   * `process.env.NODE_ENV` is `"production"`.
   */
  warn?: (message: string) => void;
};

/** Report progress of the current run; see `createProgressReporter`. */
export type ReportProgress = <TData = unknown>(
  update: ProgressUpdate<TData>,
  options?: ReportProgressOptions,
) => Promise<void>;

/**
 * A run's `reportProgress`, callable directly, with the controls of its throttle window.
 */
export type ProgressReporter = ReportProgress & {
  /** The reporter itself, for `const { reportProgress } = createProgressReporter(context)`. */
  readonly reportProgress: ReportProgress;
  /** Send a held ephemeral value now (if any) and clear its timer; the reporter stays usable. */
  flush(): void;
  /** Drop a held value, clear every timer, and make later reports no-ops. Idempotent. */
  dispose(): void;
  /**
   * Pass the turn's stream through the reporter: when the stream ends, a held value is sent while the run is still
   * live (so the last value of a burst reaches clients even when the turn ends inside a window), then the reporter
   * is disposed; cancelling the stream disposes it too. Chunks pass through unchanged and in order.
   */
  wrapTurnStream(stream: AgentToolTurnStream): ReadableStream<UIMessageChunk>;
};

type Outgoing = { body: ProgressChunk; snapshot: AgentToolProgressSnapshot };

const OUTSIDE_RUN_WARNING =
  "reportProgress was called outside an agent-tool run: progress is ignored. Create the reporter from a child " +
  "turn's context (createProgressReporter(context)) to report progress to the run.";

/**
 * Create `reportProgress` for one child run (SPEC §7). Create one reporter per turn: coalescing is per reporter,
 * and a turn is one run.
 *
 * Guarantees:
 * - **Outside a run** (`target` is `null`): every report is a no-op that resolves, and the reporter warns once
 *   (on its first report), so the same child code runs standalone.
 * - **Ephemeral progress** (no `milestone`) is coalesced over `progressThrottleMs`: a value goes out at once when
 *   no frame was sent in the last window; later values in the window are held, the latest replacing the earlier
 *   ones, and the held value is sent when the window ends (a trailing flush: the last value of a burst is always
 *   delivered). At most one frame per window, plus done frames and the flush before a milestone.
 * - `fraction >= 1` (done) is sent at once and drops an older held value.
 * - Each ephemeral value is a transient `data-agent-progress` chunk with `data` (when given) and `at`, published
 *   with the snapshot kept on the child's run row, which has `data` only with `{ persist: true }`.
 * - **Milestones** are never coalesced: each is a `data-agent-milestone` chunk appended to the run's durable log
 *   with the next sequence (the same space as the turn's chunks) and listed in `inspect().milestones`. A held
 *   ephemeral value is sent first, so frames keep the order of the reports.
 * - `at` is the clock's `now()` when the value was reported (server time).
 * - **Invalid input** rejects with an `AgentToolsError` (`INVALID_ARGUMENT`) and changes nothing: a held value
 *   and its timer stay as they were.
 * - **After the run ended** (the target refuses a chunk), after the run's `abortSignal` aborted, or after
 *   `dispose()`: reports are no-ops, and no timer is left pending. Time is read and timers are set only through
 *   the clock.
 * - The returned promise resolves once the value is sent or held; it never waits for the throttle window.
 *
 * @example
 * turn(context) {
 *   const reportProgress = createProgressReporter(context, { clock: context.clock });
 *   const stream = new ReadableStream<UIMessageChunk>({
 *     async start(controller) {
 *       controller.enqueue({ type: "start" });
 *       await reportProgress({ milestone: "schema-checked", phase: "schema" });
 *       for (let batch = 1; batch <= 5; batch += 1) {
 *         await importBatch(batch);
 *         await reportProgress({ fraction: batch / 5, message: `Batch ${batch} of 5`, phase: "rows" });
 *       }
 *       controller.enqueue({ type: "finish" });
 *       controller.close();
 *     },
 *   });
 *   return reportProgress.wrapTurnStream(stream);
 * }
 */
export function createProgressReporter(
  target: ProgressTarget | null,
  options: ProgressReporterOptions = {},
): ProgressReporter {
  const throttleMs = options.progressThrottleMs ?? DEFAULT_PROGRESS_THROTTLE_MS;
  if (!Number.isFinite(throttleMs) || throttleMs < 0) {
    throw new AgentToolsError(
      "INVALID_ARGUMENT",
      `createProgressReporter: progressThrottleMs must be a finite number ≥ 0, got ${throttleMs}`,
    );
  }
  const clock = options.clock ?? target?.clock ?? systemClock;
  const warn = options.warn ?? defaultWarn;
  let hasWarned = false;
  let isClosed = false;
  /** When the last ephemeral frame went out; the throttle window runs from there. */
  let lastSentAt: number | null = null;
  let held: Outgoing | null = null;
  let timer: TimerHandle | null = null;

  const clearTimer = () => {
    if (timer === null) return;
    clock.clearTimeout(timer);
    timer = null;
  };
  const signal = target?.abortSignal;
  const onAbort = () => dispose();
  const dispose = () => {
    isClosed = true;
    held = null;
    clearTimer();
    signal?.removeEventListener("abort", onAbort);
  };
  if (signal?.aborted) dispose();
  else signal?.addEventListener("abort", onAbort, { once: true });

  const send = (outgoing: Outgoing) => {
    if (isClosed || target === null) return;
    lastSentAt = clock.now();
    // false: the run has ended, so nothing will ever be delivered again.
    if (!target.publishEphemeral(outgoing.body, outgoing.snapshot)) dispose();
  };
  const flush = () => {
    const value = held;
    held = null;
    clearTimer();
    if (value !== null) send(value);
  };
  const onWindowEnd = () => {
    timer = null;
    flush();
  };

  const reportProgress = async <TData = unknown>(
    update: ProgressUpdate<TData>,
    reportOptions?: ReportProgressOptions,
  ): Promise<void> => {
    validateProgressUpdate(update, reportOptions);
    if (target === null) {
      if (!hasWarned) {
        hasWarned = true;
        warn(OUTSIDE_RUN_WARNING);
      }
      return;
    }
    if (isClosed) return;
    const at = clock.now();
    const { milestone } = update;
    if (milestone !== undefined) {
      // Never coalesced; what was held is older, so it goes first.
      flush();
      if (isClosed) return;
      const milestoneUpdate = { ...update, milestone };
      if (target.appendChunk(milestoneChunk(milestoneUpdate, at), milestoneListing(milestoneUpdate)) === null) {
        dispose();
      }
      return;
    }
    const outgoing: Outgoing = {
      body: progressChunk(update, at),
      snapshot: progressSnapshot(update, at, { persist: reportOptions?.persist === true }),
    };
    if (update.fraction !== undefined && update.fraction >= 1) {
      // Done: at once, and a held value is older, so it is dropped.
      held = null;
      clearTimer();
      send(outgoing);
      return;
    }
    if (lastSentAt === null || at - lastSentAt >= throttleMs) {
      send(outgoing);
      return;
    }
    held = outgoing;
    timer ??= clock.setTimeout(onWindowEnd, lastSentAt + throttleMs - at);
  };

  const wrapTurnStream = (stream: AgentToolTurnStream): ReadableStream<UIMessageChunk> => {
    const source = chunkSource(stream);
    return new ReadableStream<UIMessageChunk>(
      {
        async pull(controller) {
          let result: IteratorResult<UIMessageChunk>;
          try {
            result = await source.read();
          } catch (error) {
            dispose();
            throw error;
          }
          if (result.done) {
            flush();
            dispose();
            controller.close();
          } else {
            controller.enqueue(result.value);
          }
        },
        async cancel(reason) {
          dispose();
          await source.cancel(reason);
        },
      },
      // No read-ahead: the end of the source is seen only when the runner asks for the next chunk.
      { highWaterMark: 0 },
    );
  };

  return Object.assign(reportProgress as ReportProgress, {
    reportProgress: reportProgress as ReportProgress,
    flush,
    dispose,
    wrapTurnStream,
  });
}

type ChunkSource = {
  read(): Promise<IteratorResult<UIMessageChunk>>;
  cancel(reason: unknown): Promise<void>;
};

function chunkSource(stream: AgentToolTurnStream): ChunkSource {
  if (stream instanceof ReadableStream) {
    const reader = stream.getReader();
    return {
      read: async () => {
        const result = await reader.read();
        return result.done ? { done: true, value: undefined } : { done: false, value: result.value };
      },
      cancel: (reason) => reader.cancel(reason),
    };
  }
  const iterator = stream[Symbol.asyncIterator]();
  return {
    read: () => iterator.next(),
    cancel: async (reason) => {
      await iterator.return?.(reason);
    },
  };
}

function defaultWarn(message: string): void {
  const host = globalThis as { process?: { env?: Record<string, string | undefined> } };
  if (host.process?.env?.["NODE_ENV"] === "production") return;
  // biome-ignore lint/suspicious/noConsole: SPEC §7 asks for one development warning outside a run.
  console.warn(message);
}
