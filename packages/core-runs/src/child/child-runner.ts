import type { UIMessage, UIMessageChunk } from "ai";
import {
  answerRunApproval,
  earliestApprovalDeadline,
  endPausedRun,
  expireRunApprovals,
  pauseRun,
  type RunApprovalsHost,
} from "../approvals/index.js";
import type { RunBudget } from "../budget/run-budget.js";
import { getDefaultRunEventHub } from "../events/run-event-hub.js";
import type { ChildStartOptions } from "../ports/child-transport.js";
import { type Clock, systemClock } from "../ports/clock.js";
import type { RunEventSink } from "../ports/run-event-sink.js";
import type { RunStore } from "../ports/run-store.js";
import type {
  AgentToolApprovalAnswer,
  AgentToolBudgetExhaustion,
  AgentToolMilestone,
  AgentToolProgressSnapshot,
  AgentToolRunInspection,
  AgentToolTailItem,
  AgentToolUsage,
} from "../protocol/index.js";
import type { RunRecord } from "../registry/run-record.js";
import { cancelDescendants } from "./cancel-descendants.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import { runConversation, runInspection } from "./child-inspection.js";
import {
  type AgentToolChildRunnerOptions,
  type ChildConversationSnapshot,
  DEFAULT_DESCENDANTS_TIMEOUT_MS,
} from "./child-runner-options.js";
import { type ChildTailOptions, openChildTail } from "./child-tail.js";
import { type ChildTurnStart, runChildTurn } from "./child-turn.js";
import { LiveRun, type LiveRunStart } from "./live-run.js";
import { RunSlots } from "./run-slots.js";
import { StartTail } from "./start-tail.js";
import { checkRecoveryOptions, claimRecovery, readRunJournal, recoveryOptions } from "./turn-recovery.js";

export type { AgentToolChildRunnerOptions, ChildConversationSnapshot } from "./child-runner-options.js";
export { DEFAULT_DESCENDANTS_TIMEOUT_MS } from "./child-runner-options.js";

const FALLBACK_CANCEL_REASON = "Cancelled";
const NOT_WAITED = Promise.resolve();

/**
 * Runs a child's side of agent-tool runs: the run ledger — idempotent start, inspect with its `null` contract, tail
 * with no entry lost or doubled across the stored/live edge, cancel, approvals — with each run's turn executed by the
 * turn engine (`runTurn`) on the run's durable log as its journal: a turn cut by a crash, or one whose approvals were
 * answered, goes on from that log by the same path. A host (a Durable Object, a test) owns one runner per child
 * instance and exposes its methods to the parent's `ChildTransport`.
 */
export class AgentToolChildRunner {
  readonly agentType: string;
  readonly #definition: AgentToolChildDefinition;
  readonly #store: RunStore;
  readonly #clock: Clock;
  readonly #sink: RunEventSink;
  readonly #options: AgentToolChildRunnerOptions;
  /** Each run's state while it has any (its turn, its start or wake in flight, its start tail): none once it ended. */
  readonly #runs = new RunSlots();

  constructor(options: AgentToolChildRunnerOptions) {
    this.#options = options;
    this.#definition = options.definition;
    this.agentType = options.definition.agentType;
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    this.#sink = options.sink ?? getDefaultRunEventHub();
    checkRecoveryOptions(options);
  }

  /** Start a run, idempotently: a known runId returns its inspection and starts no second turn. */
  start(runId: string, input: unknown, options: ChildStartOptions = {}): Promise<AgentToolRunInspection> {
    const inFlight = this.#runs.get(runId, "starting");
    if (inFlight !== undefined) return inFlight;
    const started = this.#start(runId, input, options).finally(() => this.#runs.delete(runId, "starting"));
    this.#runs.set(runId, "starting", started);
    return started;
  }

  async #start(runId: string, input: unknown, options: ChildStartOptions): Promise<AgentToolRunInspection> {
    // A run live here answers from memory; any other start tries the insert first (a new run, the common case, costs
    // its one write and no read), and a runId the store knows already is woken instead (its row read, its turn
    // resumed if it was cut off).
    const live = this.#isLive(runId) ? await this.#wake(runId) : null;
    if (live) return runInspection(live);
    const now = this.#clock.now();
    const record: RunRecord = {
      ...{ runId, agentType: this.agentType, status: "running", revision: 1, startedAt: now, updatedAt: now },
      ...{ displayOrder: 0, input, lastSequence: 0 },
      ...(options.tree !== undefined ? { tree: options.tree } : {}),
      ...(options.trace !== undefined ? { trace: options.trace } : {}),
    };
    this.#runs.set(runId, "isRecording", true);
    let isInserted: boolean;
    try {
      isInserted = await this.#store.insertRun(record);
    } finally {
      this.#runs.delete(runId, "isRecording");
    }
    if (!isInserted) {
      const existing = await this.#wake(runId);
      if (existing) return runInspection(existing);
    }
    this.#begin(record, { lastSequence: 0, milestones: [] }, { resumed: false, entries: [] });
    return runInspection(record);
  }

  /**
   * Start a run and tail it, in one call (a parent's one round trip to its child): `start`, then `tail` from the
   * run's first entry. The run's turn knows from its start that someone waits for its stream (it lets the host's
   * event loop turn, see `yieldToEventLoop`), so its first chunk leaves before the turn ends. A run it begins is
   * answered once it has ended or once the event loop has turned after the start, whichever comes first: an instant
   * turn's whole run is at hand either way, and one that ended without the loop turning does not wait for the loop
   * (a fan-out's instant children answer one by one, not all after everyone's start). A known runId starts no second
   * turn: its tail replays the log and follows it, answered at once.
   */
  async startTail(
    runId: string,
    input: unknown,
    options: ChildStartOptions = {},
    tail: Omit<ChildTailOptions, "afterSequence" | "onOpen"> = {},
  ): Promise<ReadableStream<AgentToolTailItem>> {
    this.#runs.set(runId, "isTailExpected", true);
    try {
      await this.start(runId, input, options);
    } catch (error) {
      this.#runs.get(runId, "startTail")?.close();
      this.#runs.delete(runId, "startTail");
      throw error;
    } finally {
      this.#runs.delete(runId, "isTailExpected");
    }
    // A run this call began was listened to from its start: its tail reads neither its row nor its stored log.
    const started = this.#runs.get(runId, "startTail");
    this.#runs.delete(runId, "startTail");
    // And it answers once the run has ended or the host's event loop has turned: a turn that makes its chunks without
    // waiting has ended by then, so the answer carries its whole run at once, not its first entries with the rest in
    // later messages (a Durable Object holds what leaves until its writes commit, at that turn: none of it could leave
    // sooner).
    if (started !== undefined && this.#options.yieldToEventLoop) {
      try {
        await started.endedOr(this.#options.yieldToEventLoop());
      } catch (error) {
        started.close();
        throw error;
      }
    }
    const opened = started?.open(tail.signal);
    if (opened) return opened;
    started?.close();
    return this.tail(runId, tail);
  }

  /** The run's snapshot, or `null` when this child has no record of it ("not yet", not failure). */
  async inspect(runId: string): Promise<AgentToolRunInspection | null> {
    const record = await this.#wake(runId);
    return record ? runInspection(record, this.#runs.get(runId, "live")) : null;
  }

  /** The run's log entries after `afterSequence`, then live ones, then one `terminal` item (see `openChildTail`). */
  tail(runId: string, options: ChildTailOptions = {}): ReadableStream<AgentToolTailItem> {
    const source = {
      store: this.#store,
      wake: (id: string) => this.#wake(id),
      live: (id: string) => this.#runs.get(id, "live"),
      inspection: (record: RunRecord) => runInspection(record),
    };
    return openChildTail(source, runId, options);
  }

  /**
   * Answer an approval the run waits for (its own, or — through `definition.onApprovalAnswer` — one of a run below it).
   * When the last of its own is answered, the run goes on from its log: the approved tools run (a denied one gets the
   * denial as its result) and the model goes on — no step done again. Resolves whether the approval was found.
   */
  async answerApproval(
    runId: string,
    approvalId: string,
    answer: AgentToolApprovalAnswer,
    status: "approved" | "denied" | "expired" = answer.approved ? "approved" : "denied",
  ): Promise<boolean> {
    await this.#wake(runId);
    return answerRunApproval(this.#approvals(), runId, approvalId, answer, status);
  }

  /** Deny every approval a paused run waited for longer than `timeoutMs` (reason: it expired). */
  expireApprovals(timeoutMs: number): Promise<number> {
    return expireRunApprovals(this.#approvals(), this.#runs.live(), timeoutMs);
  }

  /** When the earliest approval a paused run here waits for expires under `timeoutMs` (`null`: none waits). */
  approvalDeadline(timeoutMs: number): number | null {
    return earliestApprovalDeadline(this.#runs.live(), timeoutMs);
  }

  /** True when run `runId` is live here with a turn executing (not paused waiting for approvals). */
  isExecuting(runId: string): boolean {
    const live = this.#runs.get(runId, "live");
    return live !== undefined && live.paused === undefined;
  }

  /**
   * Cancel a live run (→ `aborted`, with `reason`); idempotent. Depth first: what the run dispatched itself
   * (`definition.onCancel`) is cancelled as its turn is aborted, and the run records its own end once those ended
   * (or `descendantsTimeoutMs` passed). Resolves once the run's end is recorded.
   */
  async cancel(runId: string, reason?: string): Promise<void> {
    await this.#wake(runId);
    const live = this.#runs.get(runId, "live");
    if (!live) return;
    const why = reason ?? FALLBACK_CANCEL_REASON;
    const timeoutMs = this.#options.descendantsTimeoutMs ?? DEFAULT_DESCENDANTS_TIMEOUT_MS;
    live.descendantsEnded ??= cancelDescendants(
      { definition: this.#definition, clock: this.#clock, timeoutMs },
      runId,
      why,
    );
    if (!live.paused) {
      live.controller.abort(why);
      await live.done;
      return;
    }
    // No turn runs: the run ends here, after what it dispatched.
    await live.descendantsEnded;
    const ending = { ...this.#approvals(), ended: (id: string) => this.#runs.delete(id, "live") };
    await endPausedRun(
      { ...ending, terminal: (final) => ({ type: "terminal", inspection: runInspection(final) }) },
      live,
      why,
    );
  }

  /** Delete the run's storage (cancelling it first if live). Idempotent. */
  async destroy(runId: string): Promise<void> {
    await this.cancel(runId, "Destroyed");
    await this.#store.deleteRuns([runId]);
  }

  /** The run's conversation, for drill-in (see `getConversation`). */
  async getMessages(runId: string): Promise<UIMessage[]> {
    return (await this.getConversation(runId)).messages;
  }

  /**
   * The run's conversation and the log sequence it holds, from one read of the log (void entries left out): a
   * drill-in sends `messages`, then tails from `lastSequence`. Wakes a cut-off run first, as `inspect` does.
   */
  async getConversation(runId: string): Promise<ChildConversationSnapshot> {
    const record = await this.#wake(runId);
    if (!record) return { messages: [], lastSequence: 0, run: null };
    const live = this.#runs.get(runId, "live");
    return runConversation({ store: this.#store, definition: this.#definition, record, live });
  }

  /** Append a durable chunk (e.g. a milestone) to a live run's log; its sequence, or `null` when not live here. */
  appendChunk(runId: string, body: UIMessageChunk, milestone?: Omit<AgentToolMilestone, "sequence" | "at">) {
    return this.#runs.get(runId, "live")?.append(body, milestone) ?? null;
  }

  /**
   * Publish an approval's state (a `data-agent-approval` chunk) in a live run's log, idempotently: a state its log
   * holds already is not written again. Returns whether it was written.
   */
  publishApproval(runId: string, chunk: UIMessageChunk): boolean {
    return this.#runs.get(runId, "live")?.publishApproval(chunk) ?? false;
  }

  /** Send an ephemeral chunk (e.g. progress) to a run's live tails; false when the run is not live here. */
  publishEphemeral(runId: string, body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot): boolean {
    const live = this.#runs.get(runId, "live");
    live?.publishEphemeral(body, snapshot);
    return live !== undefined;
  }

  /** The budget of a live run (what it and its subtree spent, what is left), or `null` when it is not live here. */
  budgetOf(runId: string): RunBudget | null {
    return this.#runs.get(runId, "live")?.budget ?? null;
  }

  /** A run that run `runId` dispatched reported its subtree's total. */
  recordChildUsage(runId: string, childRunId: string, usage: AgentToolUsage): void {
    this.#runs.get(runId, "live")?.budget.recordChild(childRunId, usage);
  }

  /** Run `runId` dispatched one more run. */
  recordDispatch(runId: string): void {
    this.#runs.get(runId, "live")?.budget.recordDispatch();
  }

  /** An ancestor's budget ran out: run `runId` gets its wrap-up step, then no other model call. */
  wrapUp(runId: string, reason: AgentToolBudgetExhaustion): void {
    this.#runs.get(runId, "live")?.budget.exhaust(reason);
  }

  /** True while this runner is executing (or holding paused) the run's turn. */
  isLive(runId: string): boolean {
    return this.#isLive(runId);
  }

  /** The runs live in this runner now. */
  liveRunIds(): string[] {
    return Array.from(this.#runs.live(), (live) => live.runId);
  }

  /**
   * Load a run's record, making a run left `running` with no turn here live again from its log (single-flight per
   * run): a turn cut off goes on (its attempt counted: after `maxRecoveryAttempts` the run ends `error`), a run
   * waiting for approvals is paused again. Resolves once its cut, if any, is voided.
   */
  #wake(runId: string): Promise<RunRecord | null> {
    const inFlight = this.#runs.get(runId, "waking");
    if (inFlight !== undefined) return inFlight;
    const waking = this.#wakeOnce(runId).finally(() => this.#runs.delete(runId, "waking"));
    this.#runs.set(runId, "waking", waking);
    return waking;
  }

  async #wakeOnce(runId: string): Promise<RunRecord | null> {
    const record = await this.#store.getRun(runId);
    // A run being recorded right now (between insert and the start of its turn) is not cut off.
    if (record?.status !== "running" || this.#isLive(runId) || this.#runs.get(runId, "isRecording") === true)
      return record;
    const { entries, start } = await readRunJournal(this.#store, record);
    let current: RunRecord | null = record;
    const claim = async () => {
      current = await claimRecovery(this.#recoveryOptions(), record);
      return current !== null;
    };
    await new Promise<void>((ready) => this.#begin(record, start, { resumed: true, entries, ready }, claim));
    return current ?? (await this.#store.getRun(runId));
  }

  /** Make the run live here and execute its turn in the background. */
  #begin(record: RunRecord, start: LiveRunStart, turn: ChildTurnStart, claim?: () => Promise<boolean>): void {
    const live = new LiveRun({ record, start, store: this.#store, clock: this.#clock, definition: this.#definition });
    const isTailExpected = this.#runs.get(record.runId, "isTailExpected") === true;
    // A new run's tail listens before its turn appends anything (a resumed run's tail reads what it stored before).
    if (isTailExpected && !turn.resumed) this.#runs.set(record.runId, "startTail", new StartTail(live.log));
    else live.isTailExpected = isTailExpected;
    this.#runs.set(record.runId, "live", live);
    // A resumed run: what the runs it dispatched before spent is read back from their rows.
    if (turn.resumed) this.#options.waitUntil?.(live.restoreDispatchedUsage(this.#definition));
    this.#execute(record, live, turn, claim);
  }

  /** Execute a turn of `record`'s run as `live`, in the run's scope. */
  #execute(record: RunRecord, live: LiveRun, turn: ChildTurnStart, claim?: () => Promise<boolean>): void {
    const { runId } = record;
    // Only while someone waits for the run's stream: a turn nobody follows runs to its end in one go.
    const { yieldToEventLoop } = this.#options;
    const host = {
      definition: this.#definition,
      store: this.#store,
      clock: this.#clock,
      agentType: this.agentType,
      emit: (event: Parameters<RunEventSink["emit"]>[0]) => this.#emit(event),
      appendChunk: (body: UIMessageChunk, milestone?: Omit<AgentToolMilestone, "sequence" | "at">) =>
        this.appendChunk(runId, body, milestone),
      publishEphemeral: (body: UIMessageChunk, snapshot?: AgentToolProgressSnapshot) =>
        this.publishEphemeral(runId, body, snapshot),
      inspection: (final: RunRecord) => runInspection(final),
      ended: () => {
        if (this.#runs.get(runId, "live") === live) this.#runs.delete(runId, "live");
      },
      pause: (paused: RunRecord, waiting: Parameters<typeof pauseRun>[2], fold: Parameters<typeof pauseRun>[3]) =>
        pauseRun(this.#approvals(), paused, waiting, fold),
      ...(yieldToEventLoop
        ? {
            yieldToEventLoop: () => {
              if (!live.isWaitedFor) return NOT_WAITED;
              live.log.yielding();
              return yieldToEventLoop().then(() => live.log.yielded());
            },
          }
        : {}),
      ...(claim ? { claim } : {}),
    };
    const scope = this.#options.runScope ?? ((_runId, run) => run());
    const done = scope(runId, () => runChildTurn(host, record, live, turn), record.tree ?? null, record.trace ?? null);
    live.done = done;
    this.#options.waitUntil?.(done);
  }

  #isLive(runId: string): boolean {
    return this.#runs.get(runId, "live") !== undefined;
  }

  /**
   * What the approvals need from this runner, made when they are used (a runner that only ever ran instant turns —
   * most children — never holds it).
   */
  #approvals(): RunApprovalsHost {
    return {
      store: this.#store,
      clock: this.#clock,
      agentType: this.agentType,
      definition: this.#definition,
      emit: (event) => this.#emit(event),
      live: (runId) => this.#runs.get(runId, "live"),
      continueTurn: async (runId, live) => {
        const record = await this.#store.getRun(runId);
        if (!record || this.#runs.get(runId, "live") !== live) return;
        live.paused = undefined;
        live.controller = new AbortController();
        this.#execute(record, live, { resumed: true });
      },
    };
  }

  /** The recovery's options (checked when the runner was made), made when a cut-off run is woken. */
  #recoveryOptions() {
    return recoveryOptions({
      ...this.#options,
      clock: this.#clock,
      agentType: this.agentType,
      emit: (event) => this.#emit(event),
    });
  }

  #emit(event: Parameters<RunEventSink["emit"]>[0]): void {
    try {
      this.#sink.emit(event);
    } catch {
      // observability never breaks a run
    }
  }
}
