import type {
  AgentToolApprovalAnswer,
  AgentToolBudgetExhaustion,
  AgentToolRunInspection,
  AgentToolTailItem,
  AgentToolTraceContext,
  AgentToolTree,
} from "../protocol/index.js";

/** Which child a call is for. The transport is bound to one parent, so runIds never meet another parent's. */
export type ChildRef = { agentType: string; runId: string };

/** What a `start` carries besides the input. */
export type ChildStartOptions = {
  /** The run's place in its tree of runs (root, ancestors, budget): the child keeps it with the run. */
  tree?: AgentToolTree;
  /** The W3C trace context the run's work continues: the child keeps it with the run (`context.trace`). */
  trace?: AgentToolTraceContext;
};

export type TailOptions = {
  /** Deliver log entries with a sequence greater than this (0 for all). */
  afterSequence: number;
  /** Stops the tail (never the run). */
  signal?: AbortSignal;
  /**
   * Called once when the child has answered the tail (before its first item). The registry writes the start
   * acknowledgement then, so the write never holds up the tail request (a Durable Object's output gate). A
   * transport that cannot tell may leave it uncalled: the registry then writes it at the first item.
   */
  onOpen?: () => void;
};

/** What a `startTail`'s tail takes: it starts from the run's first entry, and its answer is the start's. */
export type StartTailOptions = Omit<TailOptions, "afterSequence" | "onOpen">;

/**
 * How a parent reaches its children, addressed by `(agentType, runId)` within the parent that owns the transport.
 * In-process for tests (`InProcessChildTransport`), Durable Object RPC in the demo.
 *
 * Guarantees an implementation must give (checked by `childTransportContract`):
 * - `start` is idempotent: a second `start` of a runId returns the run's inspection and starts no second turn.
 *   The options (the run's tree and trace context) reach the child with the first `start`.
 *   It resolves once the child has recorded the run (acknowledged); it does not wait for the turn to end.
 * - `inspect` returns `null` when the child has no record of the run ("not yet", not failure).
 * - `startTail`, where offered, is `start` then `tail` from 0, as one call.
 * - `tail` yields the stored entries after `afterSequence`, then live ones, in sequence order with no gap and no
 *   double across the stored/live edge, interleaved with ephemeral progress; then one `terminal` item, and
 *   closes. Cancelling the stream or aborting `signal` stops the tail, never the run.
 * - `cancel` is idempotent and ends a live run as `aborted`; on a finished run it changes nothing.
 * - `destroy` deletes the child's storage for the run (cancelling it first if live). Idempotent.
 * - Failures to reach the child reject (and are finalized as `error` by the registry).
 */
export interface ChildTransport {
  start(ref: ChildRef, input: unknown, options?: ChildStartOptions): Promise<AgentToolRunInspection>;
  inspect(ref: ChildRef): Promise<AgentToolRunInspection | null>;
  tail(ref: ChildRef, options: TailOptions): ReadableStream<AgentToolTailItem>;
  /**
   * Optional: `start`, then `tail` from the run's first entry, in one call (one round trip to the child). Resolves
   * with the tail once the child has recorded the run (as `start` resolves: the run is acknowledged); rejects when the
   * run could not be started. The tail is `tail`'s. A registry uses it for every run it starts when it is there.
   */
  startTail?(
    ref: ChildRef,
    input: unknown,
    options: ChildStartOptions,
    tail: StartTailOptions,
  ): Promise<ReadableStream<AgentToolTailItem>>;
  cancel(ref: ChildRef, reason?: string): Promise<void>;
  destroy(ref: ChildRef): Promise<void>;
  /**
   * Optional: the budget of the run's tree ran out above it (`reason`): the child gives the run one wrap-up model
   * step, then no other (idempotent; a no-op on a run that is not live).
   */
  wrapUp?(ref: ChildRef, reason: AgentToolBudgetExhaustion): Promise<void>;
  /**
   * Optional: answer an approval asked in the run's tree (the child's own, or one the child forwards down). Resolves
   * whether it reached the asker.
   */
  answerApproval?(ref: ChildRef, approvalId: string, answer: AgentToolApprovalAnswer): Promise<boolean>;
}
