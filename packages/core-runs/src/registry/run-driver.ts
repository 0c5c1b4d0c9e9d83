import { errorMessage } from "../errors.js";
import type { ChildRef } from "../ports/child-transport.js";
import { delay } from "../ports/clock.js";
import {
  type AgentToolApproval,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  type AgentToolRunInspection,
  type AgentToolTailItem,
  type AgentToolUsage,
  isLiveStatus,
  nextProgressSnapshot,
  readApprovalChunk,
  readProgressChunk,
  readUsageChunk,
} from "../protocol/index.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import { PositionWriter } from "./position-writer.js";
import type { AgentToolRunOutcome } from "./registry-options.js";
import type { RegistryRuntime } from "./registry-runtime.js";
import { entryFrame, ephemeralFrame } from "./run-frames.js";
import { childOutcome, isCollectable, needsStart, notTailableOutcome, startAcknowledgedPatch } from "./run-machine.js";
import { type RunRecord, toRunInfo } from "./run-record.js";
import type { RunTransitions } from "./run-transitions.js";
import { StartAcknowledgement } from "./start-acknowledgement.js";
import { nextTailRetry, type TailRetryPolicy, type TailRetryState } from "./tail-retry-policy.js";

/** Called for every log batch or progress item a driver forwards to clients. */
export type ActivityListener = (item: AgentToolTailItem) => void;

/** How a stopped follow decides what to record (e.g. after trying to cancel the child). */
export type StopDecision = AgentToolRunOutcome | (() => AgentToolRunOutcome | Promise<AgentToolRunOutcome>);

/** What a driver holds of its run beyond what the parent has stored of it (for replay and `getAgentToolRun`). */
export type LiveRunView = {
  readonly entries: readonly AgentToolLogEntry[];
  readonly progress: AgentToolProgressSnapshot | undefined;
  readonly usage: AgentToolUsage | undefined;
  /** The child answered `start` and the acknowledgement is not written yet (it rides on the next write of the row). */
  readonly startAnswered: boolean;
};

export type RunDriverOptions = {
  runtime: RegistryRuntime;
  transitions: RunTransitions;
  slots: ConcurrencySlots;
  retry: TailRetryPolicy;
  followWriteIntervalMs: number;
};

/** The follow loop stopped without recording anything itself (stopped, cleared, or the row changed). */
const LEFT = Symbol("left");

type TailEnd = { kind: "terminal"; inspection: AgentToolRunInspection } | { kind: "ended"; isAlive: boolean };

const STOPPED_OUTCOME: AgentToolRunOutcome = {
  status: "interrupted",
  reason: "no-progress",
  childStillRunning: true,
  error: "Stopped waiting for the child",
};

/**
 * Drives one run in this process: sends the idempotent `start` (for a run whose child never acknowledged it), writes
 * the acknowledgement with the first write of the run's row after the child answered (the first position write, the
 * terminal, a tail that ended early, or a cancel that must reach the child), follows the child's tail — forwarding
 * entries and progress to clients,
 * persisting the position it reached, tailing again after a clock-driven pause when the tail ends early (within the
 * retry policy's budget) — and records the run's terminal through the machine. One driver per run per registry.
 * @internal
 */
export class RunDriver {
  readonly runId: string;
  readonly ref: ChildRef;
  /** Settles with the run's row at the end (`null` when it was cleared). */
  readonly done: Promise<RunRecord | null>;
  readonly #record: RunRecord;
  readonly #options: RunDriverOptions;
  readonly #writer: PositionWriter;
  readonly #stopTail = new AbortController();
  readonly #activity = new Set<ActivityListener>();
  readonly #isReattach: boolean;
  /** The row was just inserted here: the parent has stored none of its log, so there is no position to catch up on. */
  readonly #isCreated: boolean;
  #ack: StartAcknowledgement;
  #isStartAnswered: boolean;
  #cancelRequested: string | null = null;
  #ending: "none" | "stopping" | "cleared" = "none";
  #lastSequence: number;
  #progress: AgentToolProgressSnapshot | undefined;
  #usage: AgentToolUsage | undefined;
  /** The `onProgress` calls, in the order of the reports. */
  #hooks: Promise<void> = Promise.resolve();
  #resolve: (record: RunRecord | null) => void = () => {};
  #reject: (error: unknown) => void = () => {};
  #isSettled = false;

  constructor(record: RunRecord, options: RunDriverOptions, created = false) {
    this.runId = record.runId;
    this.#isCreated = created;
    this.ref = { agentType: record.agentType, runId: record.runId };
    this.#record = record;
    this.#options = options;
    this.#lastSequence = record.lastSequence;
    this.#progress = record.progress;
    const startsChild = needsStart(record);
    this.#isReattach = !startsChild;
    this.#isStartAnswered = !startsChild;
    this.#ack = startsChild
      ? StartAcknowledgement.waiting(() => this.#acknowledge())
      : StartAcknowledgement.notNeeded();
    this.#writer = new PositionWriter({
      store: options.runtime.store,
      clock: options.runtime.clock,
      runId: record.runId,
      intervalMs: options.followWriteIntervalMs,
      // The acknowledgement rides on the first write of the position (or on the terminal, whichever comes first).
      beforePosition: () => (this.#isStartAnswered ? this.#ack.settle() : Promise.resolve(true)),
    });
    this.done = new Promise<RunRecord | null>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody may be waiting (a detached run): a store failure must not surface as an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Start driving; `signal` aborted before the child is started ends the run without starting it. */
  start(signal?: AbortSignal): void {
    this.#settleWith(this.#run(signal));
  }

  /** What this driver holds beyond what the parent has stored. */
  get view(): LiveRunView {
    return {
      entries: this.#writer.unwritten,
      progress: this.#progress,
      usage: this.#usage,
      startAnswered: this.#isStartAnswered && !this.#ack.isSettled,
    };
  }

  /** Listen to what this driver forwards; returns the function that stops listening. */
  onActivity(listener: ActivityListener): () => void {
    this.#activity.add(listener);
    return () => {
      this.#activity.delete(listener);
    };
  }

  /**
   * Cancel the run's child. Before the child acknowledged `start`, the cancel waits for the acknowledgement (the
   * child may not know the run yet), which is then written at once. A child that cannot be reached ends the run here
   * (`aborted`, cause `child-unreachable`), so no slot is held forever.
   */
  async cancel(reason: string): Promise<void> {
    if (!this.#ack.isSettled) {
      this.#cancelRequested = reason;
      if (this.#isStartAnswered) await this.#ack.settle().catch(() => undefined);
      return;
    }
    await this.#cancelChild(reason);
  }

  /**
   * Stop following: tailing stops at once (so nothing the child does next is recorded), then `decide` gives the
   * outcome to record instead of the child's (it may first try to cancel the child). Settles at once even if the
   * transport ignores the stop. A `decide` that throws records `interrupted` / `no-progress`.
   */
  stop(decide: StopDecision): Promise<RunRecord | null> {
    if (this.#ending !== "none") return this.done;
    this.#ending = "stopping";
    this.#stopTail.abort();
    this.#settleWith(
      (async () => {
        let outcome: AgentToolRunOutcome;
        try {
          outcome = typeof decide === "function" ? await decide() : decide;
        } catch {
          outcome = STOPPED_OUTCOME;
        }
        return this.#finish(outcome);
      })(),
    );
    return this.done;
  }

  /** The run is being cleared: stop tailing and writing; nothing is recorded. */
  async clear(): Promise<void> {
    if (this.#ending === "none") this.#ending = "cleared";
    this.#stopTail.abort();
    this.#settleWith(Promise.resolve(null));
    await this.#writer.close();
  }

  /** Settle `done` with the first result that comes (the loop's, a stop's or a clear's); a `LEFT` loop says nothing. */
  #settleWith(result: Promise<RunRecord | null | typeof LEFT>): void {
    result.then(
      (record) => {
        if (record === LEFT || this.#isSettled) return;
        this.#isSettled = true;
        this.#resolve(record);
      },
      (error: unknown) => {
        if (this.#isSettled) return;
        this.#isSettled = true;
        this.#reject(error);
      },
    );
  }

  async #run(signal: AbortSignal | undefined): Promise<RunRecord | null | typeof LEFT> {
    const { runtime, slots } = this.#options;
    const { runId, agentType } = this.ref;
    if (isLiveStatus(this.#record.status)) await slots.hold(runId);
    if (!this.#isCreated) {
      await this.#catchUpPosition();
      // A run this process did not create: followed again (its start, if never acknowledged, sent again).
      runtime.emit({
        type: "agent_tool:run:reattach",
        runId,
        agentType,
        afterSequence: this.#lastSequence,
        startedAt: this.#record.startedAt,
        ...(this.#record.trace !== undefined ? { trace: this.#record.trace } : {}),
        at: runtime.clock.now(),
      });
    }
    if (!this.#isReattach) {
      if (signal?.aborted) {
        return this.#finish({
          status: "aborted",
          error: "Aborted by the caller before the child started",
          cause: "cancelled-before-start",
        });
      }
      let opened: ReadableStream<AgentToolTailItem> | null = null;
      try {
        const { tree, trace } = this.#record;
        const options = { ...(tree !== undefined ? { tree } : {}), ...(trace !== undefined ? { trace } : {}) };
        const { transport } = runtime;
        // One round trip where the transport offers it: the start and the tail in one call.
        if (transport.startTail) {
          opened = await transport.startTail(this.ref, this.#record.input, options, { signal: this.#stopTail.signal });
        } else await transport.start(this.ref, this.#record.input, options);
      } catch (error) {
        return this.#finish({
          status: "error",
          error: `Could not start the child: ${errorMessage(error)}`,
          cause: "start-failed",
        });
      }
      this.#isStartAnswered = true;
      // The child acknowledged the start: told now (the row records it with its next write), once per run (a start
      // sent again after a restart was told before it).
      if (this.#isCreated) this.#started();
      const leave = () => {
        void opened?.cancel().catch(() => undefined);
        return this.#leave();
      };
      if (this.#ending !== "none") return leave();
      // A cancel that came while `start` was on its way: acknowledge now, which cancels the child.
      if (this.#cancelRequested !== null && !(await this.#ack.settle())) return leave();
      if (opened) return this.#follow(opened);
    }
    return this.#follow();
  }

  /**
   * Start from the last entry the parent has stored of the log, which may be past the row's `lastSequence`: the first
   * position write stores the log alone (the row's position waits for the next one). Clients are not sent again what
   * the parent stored.
   */
  async #catchUpPosition(): Promise<void> {
    const stored = await this.#options.runtime.store.readLog(this.runId, { afterSequence: this.#lastSequence });
    const last = stored.at(-1);
    if (last !== undefined) this.#lastSequence = last.sequence;
  }

  /** Tail until the child's terminal; tail again (after a pause, within the policy's budget) when it ends early. */
  async #follow(opened?: ReadableStream<AgentToolTailItem>): Promise<RunRecord | null | typeof LEFT> {
    const { runtime, retry: policy } = this.#options;
    const retry: TailRetryState = { failedAttempts: 0, quietSince: runtime.clock.now() };
    let first = opened;
    for (;;) {
      const end = await this.#tailOnce(first);
      first = undefined;
      if (end === LEFT) return this.#leave();
      if (end.kind === "terminal") return this.#finish(childOutcome(end.inspection));
      if (end.isAlive) {
        retry.failedAttempts = 0;
        retry.quietSince = runtime.clock.now();
      }
      const inspection = await runtime.transport.inspect(this.ref).catch(() => null);
      if (this.#ending !== "none") return this.#leave();
      if (inspection && isCollectable(inspection, this.#lastSequence)) return this.#finish(childOutcome(inspection));
      // The child did something on that tail: follow it again at once.
      if (end.isAlive) continue;
      retry.failedAttempts += 1;
      const decision = nextTailRetry(policy, retry, runtime.clock.now());
      if (decision.kind === "give-up") return this.#finish(notTailableOutcome());
      try {
        await delay(runtime.clock, decision.delayMs, { abortSignal: this.#stopTail.signal });
      } catch {
        return this.#leave();
      }
    }
  }

  /**
   * One tail from the last sequence forwarded (or the one `startTail` opened, which the child has answered): its
   * terminal, or how it ended without one.
   */
  async #tailOnce(opened?: ReadableStream<AgentToolTailItem>): Promise<TailEnd | typeof LEFT> {
    let isAlive = false;
    let reader: ReadableStreamDefaultReader<AgentToolTailItem> | undefined;
    try {
      const stream =
        opened ??
        this.#options.runtime.transport.tail(this.ref, {
          afterSequence: this.#lastSequence,
          signal: this.#stopTail.signal,
        });
      reader = stream.getReader();
      for (;;) {
        const { done, value: item } = await reader.read();
        if (done) break;
        // An acknowledgement the row refused (the run changed meanwhile: cancelled, cleared): stop following.
        if (this.#ack.state === "refused" || this.#ending !== "none") return LEFT;
        if (item.type === "terminal") return { kind: "terminal", inspection: item.inspection };
        // The item's entries and progress are added as one: the write they need is decided after them.
        if (this.#writer.adding(() => this.#forward(item))) isAlive = true;
      }
    } catch {
      // A broken tail: ask the child, then tail again from what was forwarded.
    } finally {
      // Let go of the tail without waiting for its cancellation to reach the child (a `for await` would wait for it
      // before the run's terminal is recorded): nothing on this side depends on it.
      void reader?.cancel().catch(() => undefined);
    }
    if (!(await this.#ack.settle()) || this.#ending !== "none") return LEFT;
    return { kind: "ended", isAlive };
  }

  /** Forward one tail item to clients and listeners; true when it shows the child doing something new. */
  #forward(item: AgentToolTailItem): boolean {
    const { runtime } = this.#options;
    if (item.type === "entries") {
      this.#notify(item);
      let isNew = false;
      for (const entry of item.entries) {
        if (entry.sequence <= this.#lastSequence) continue;
        isNew = true;
        this.#lastSequence = entry.sequence;
        this.#writer.add(entry);
        runtime.send(entryFrame(this.#record, entry));
        const report = readProgressChunk(entry.body, entry.at);
        if (report) this.#onProgress(report, "milestone", entry.sequence, true);
        const usage = readUsageChunk(entry.body);
        if (usage) this.#onUsage(usage);
        const approval = readApprovalChunk(entry.body);
        if (approval) this.#onApproval(approval);
      }
      return isNew;
    }
    if (item.type !== "progress") return false;
    runtime.send(ephemeralFrame(this.#record, item.body));
    const snapshot = readProgressChunk(item.body, item.at);
    if (!snapshot) return false;
    // The snapshot a tail starts from (`catchUp`) is news only if it is newer than what this driver saw; and
    // `onProgress` is not fired again for it after a restart (the parent's own hooks are best effort, live only).
    const isNews = item.catchUp !== true || snapshot.at > (this.#progress?.at ?? Number.NEGATIVE_INFINITY);
    if (!isNews) return false;
    this.#notify(item);
    this.#onProgress(snapshot, "progress", undefined, item.catchUp !== true || !this.#isReattach);
    return true;
  }

  #notify(item: AgentToolTailItem): void {
    for (const listener of this.#activity) {
      try {
        listener(item);
      } catch {
        // a follower's bug must not break forwarding
      }
    }
  }

  /**
   * A report the child made: it moves the run's progress on by the rule clients apply (so a replay gives what they
   * hold: a milestone keeps the bar's fields, a report older than the progress held changes nothing), and is told to
   * listeners and, with `fireHook`, to `onProgress`.
   */
  #onProgress(
    report: AgentToolProgressSnapshot,
    kind: "progress" | "milestone",
    sequence: number | undefined,
    fireHook: boolean,
  ): void {
    const { runtime } = this.#options;
    const next = nextProgressSnapshot(this.#progress, report, kind);
    if (next) {
      this.#progress = next;
      this.#writer.progress(next);
    }
    const snapshot = next ?? nextProgressSnapshot(undefined, report, kind) ?? report;
    runtime.emit({
      type: "agent_tool:run:progress",
      runId: this.runId,
      agentType: this.ref.agentType,
      at: snapshot.at,
      ...(snapshot.fraction !== undefined ? { fraction: snapshot.fraction } : {}),
      ...(snapshot.phase !== undefined ? { phase: snapshot.phase } : {}),
      ...(snapshot.milestone !== undefined ? { milestone: snapshot.milestone } : {}),
      ...(sequence !== undefined ? { sequence } : {}),
    });
    const onProgress = runtime.hooks.onProgress;
    if (!onProgress || !fireHook) return;
    const run = toRunInfo({ ...this.#record, progress: snapshot });
    // A milestone's hook fires once its entry is stored with the position (written now, not at the end of the write
    // interval): a parent restarted after the hook re-attaches after it, so the hook is not fired again. Hooks start in
    // the order of the reports (none waits for another to finish).
    const isStored = sequence === undefined ? true : this.#writer.durable(sequence);
    this.#hooks = this.#hooks.then(async () => {
      if (await isStored) void runtime.callHook("onProgress", this.#record, () => onProgress(run, snapshot));
    });
  }

  /** The child reported its subtree's usage: kept with the run's view, and told to `onUsage` (live only). */
  #onUsage(usage: AgentToolUsage): void {
    this.#usage = usage;
    const { runtime } = this.#options;
    const onUsage = runtime.hooks.onUsage;
    if (!onUsage) return;
    const run = toRunInfo({ ...this.#record, usage });
    void runtime.callHook("onUsage", this.#record, () => onUsage(run, usage));
  }

  /** An approval was asked or answered in the run's tree: told to `onApproval` (live only). */
  #onApproval(approval: AgentToolApproval): void {
    const { runtime } = this.#options;
    const onApproval = runtime.hooks.onApproval;
    if (!onApproval) return;
    const run = toRunInfo(this.#record);
    void runtime.callHook("onApproval", this.#record, () => onApproval(run, approval));
  }

  /** Write the start acknowledgement (once); then deliver a cancel that was waiting for it. */
  async #acknowledge(): Promise<boolean> {
    const { runtime } = this.#options;
    const acknowledged = await runtime.store.updateRun(
      this.runId,
      startAcknowledgedPatch(this.#record, runtime.clock.now()),
      { expectedRevision: this.#record.revision },
    );
    if (!acknowledged) return false;
    if (this.#cancelRequested !== null) await this.#cancelChild(this.#cancelRequested);
    return true;
  }

  /** Tell observers the child acknowledged the start. */
  #started(): void {
    const { runtime } = this.#options;
    runtime.emit({
      type: "agent_tool:run:start",
      runId: this.runId,
      agentType: this.ref.agentType,
      at: runtime.clock.now(),
    });
  }

  async #cancelChild(reason: string): Promise<void> {
    try {
      await this.#options.runtime.transport.cancel(this.ref, reason);
    } catch (error) {
      await this.stop({
        status: "aborted",
        error: `${reason} (child unreachable: ${errorMessage(error)})`,
        cause: "child-unreachable",
      });
    }
  }

  /**
   * Store the log entries of what was followed, then record the outcome: the terminal write carries the position, and
   * the start acknowledgement when the child answered and it is not written yet (one write of the row, not two).
   */
  async #finish(outcome: AgentToolRunOutcome): Promise<RunRecord | null> {
    await this.#writer.flushLog();
    const ridesOnTerminal = this.#isStartAnswered && this.#ack.state === "waiting";
    const record = await this.#options.transitions.finalize(this.runId, outcome, {
      lastSequence: this.#lastSequence,
      progress: this.#progress,
      ...(ridesOnTerminal ? { startAcknowledged: { revision: this.#record.revision } } : {}),
    });
    if (ridesOnTerminal && record?.startAcknowledged) this.#ack.written();
    return record;
  }

  /** The loop ends without recording: a stop records its own outcome; a refused acknowledgement reads the row. */
  #leave(): RunRecord | null | typeof LEFT | Promise<RunRecord | null> {
    if (this.#ending !== "none") return LEFT;
    return this.#options.runtime.store.getRun(this.runId);
  }
}
