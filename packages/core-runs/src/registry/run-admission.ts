import { type AgentToolPosition, type AgentToolRunInfo, type AgentToolTree, dispatchTree } from "../protocol/index.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import { inputByteLength } from "./input-preview.js";
import type { AgentToolRegistryOptions, StartAgentToolRunResult } from "./registry-options.js";
import type { RegistryRuntime } from "./registry-runtime.js";
import { startedFrame } from "./run-frames.js";
import { type AdmissionRequest, decideAdmission, type TerminalRunRecord } from "./run-machine.js";
import { type RunRecord, toRunInfo } from "./run-record.js";
import { failure } from "./run-result.js";
import type { RunTransitions } from "./run-transitions.js";

export type RunAdmissionOptions = {
  runtime: RegistryRuntime;
  slots: ConcurrencySlots;
  transitions: RunTransitions;
  /** Start following a run (single-flight per run); `created`: a row this admission just inserted. */
  drive: (record: RunRecord, signal?: AbortSignal, created?: boolean) => void;
  maxInputBytes: number;
  maxConcurrent: number;
  overCap: "record" | "refuse";
  /** Where dispatches come from in their tree (the registry's `position` option). */
  position?: () => AgentToolPosition | null;
  /** Told synchronously of each new run (the registry's `onDispatch` option). */
  onDispatch?: (run: AgentToolRunInfo) => void;
  /** The trace context a new run continues (the registry's `traceContext` option). */
  traceContext?: RegistryOptionsTraceContext;
};

type RegistryOptionsTraceContext = NonNullable<AgentToolRegistryOptions["traceContext"]>;

/**
 * Admits dispatches: applies the machine's `decideAdmission` (idempotency by runId, input limits, the concurrency
 * cap), records a new run, announces it (`agent_tool:run:dispatch`, the `started` frame, `onAgentToolStart` in the
 * background) and starts driving it. Two dispatches of one runId are admitted one after the other, so the second
 * sees the first's row.
 * @internal
 */
export class RunAdmission {
  readonly #options: RunAdmissionOptions;
  readonly #admitting = new Map<string, Promise<StartAgentToolRunResult>>();

  constructor(options: RunAdmissionOptions) {
    this.#options = options;
  }

  admit(
    agentType: string,
    runId: string,
    request: AdmissionRequest,
    signal?: AbortSignal,
  ): Promise<StartAgentToolRunResult> {
    const inFlight = this.#admitting.get(runId);
    const admission = (inFlight ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.#admit(agentType, runId, request, signal));
    const tracked = admission.finally(() => {
      if (this.#admitting.get(runId) === tracked) this.#admitting.delete(runId);
    });
    this.#admitting.set(runId, tracked);
    return tracked;
  }

  /** A new run's place in its tree: as given, else from where the registry dispatches, else the top of its own. */
  #treeOf(runId: string, request: AdmissionRequest): AgentToolTree {
    if (request.tree !== undefined) return request.tree;
    const position = this.#options.position?.() ?? { rootId: runId, path: [] };
    return dispatchTree(position, request.budget);
  }

  /** The new run's row with the trace context it continues: as given, else the registry's `traceContext`'s answer. */
  #withTrace(record: RunRecord, request: AdmissionRequest): RunRecord {
    if (record.trace !== undefined || !this.#options.traceContext || !record.tree) return record;
    const trace = this.#options.traceContext({
      runId: record.runId,
      agentType: record.agentType,
      ...(record.parentToolCallId !== undefined ? { parentToolCallId: record.parentToolCallId } : {}),
      detached: request.detached === true,
      tree: record.tree,
      dispatcher: null,
    });
    return trace ? { ...record, trace } : record;
  }

  async #admit(
    agentType: string,
    runId: string,
    request: AdmissionRequest,
    signal: AbortSignal | undefined,
  ): Promise<StartAgentToolRunResult> {
    const { runtime, slots, drive } = this.#options;
    const { store, clock } = runtime;
    const existing = await store.getRun(runId);
    const slotTable = existing ? null : await slots.load();
    const now = clock.now();
    const decision = decideAdmission({
      runId,
      agentType,
      existing,
      request: existing ? request : { ...request, tree: this.#treeOf(runId, request) },
      inputBytes: existing ? 0 : inputByteLength(request.input),
      maxInputBytes: this.#options.maxInputBytes,
      slotsInUse: slotTable?.size ?? 0,
      maxConcurrent: this.#options.maxConcurrent,
      overCap: this.#options.overCap,
      now,
    });
    switch (decision.kind) {
      case "reject":
        runtime.emit({ type: "agent_tool:run:rejected", runId, agentType, rejection: decision.rejection, at: now });
        return {
          ok: false,
          failure: failure(runId, agentType, "error", decision.error, decision.rejection),
          rejection: decision.rejection,
        };
      case "existing":
        if (decision.reattach) drive(decision.record, signal);
        return { ok: true, record: decision.record, created: false };
      case "create":
      case "create-refused":
        break;
    }
    const record = this.#withTrace(decision.record, request);
    // Counted before the next await: a dispatch decided after this one sees it.
    if (decision.kind === "create") {
      try {
        this.#options.onDispatch?.(toRunInfo(record));
      } catch {
        // a dispatcher's bug never breaks admission
      }
    }
    const takesSlot = decision.kind === "create";
    // Taken synchronously after the count: no await between the decision and the reservation.
    if (takesSlot) slotTable?.add(runId);
    let inserted: boolean;
    try {
      inserted = await store.insertRun(record);
    } catch (error) {
      slots.release(runId);
      throw error;
    }
    if (!inserted) {
      slots.release(runId);
      const raced = await store.getRun(runId);
      if (raced) return { ok: true, record: raced, created: false };
    }
    runtime.emit({
      type: "agent_tool:run:dispatch",
      runId,
      agentType,
      detached: request.detached === true,
      at: now,
      ...(request.parentToolCallId !== undefined ? { parentToolCallId: request.parentToolCallId } : {}),
      ...(record.trace !== undefined ? { trace: record.trace } : {}),
    });
    runtime.send(startedFrame(record));
    // Hooks are isolated in time too: a slow or hanging hook never holds up its run (nor its caller).
    const onStart = runtime.hooks.onAgentToolStart;
    if (onStart) runtime.background(runtime.callHook("onAgentToolStart", record, () => onStart(toRunInfo(record))));
    if (decision.kind === "create-refused") {
      runtime.emit({ type: "agent_tool:run:rejected", runId, agentType, rejection: "max-concurrency", at: now });
      await this.#options.transitions.announce(record as TerminalRunRecord, "starting");
      return { ok: true, record, created: true, rejection: "max-concurrency" };
    }
    drive(record, signal, true);
    return { ok: true, record, created: true };
  }
}
