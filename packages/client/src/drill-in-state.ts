import {
  type AgentToolDrillInFrame,
  type AgentToolLogEntry,
  type AgentToolProgressSnapshot,
  type AgentToolRunInspection,
  isVoidedByReset,
  readProgressChunk,
  readStepResetChunk,
  voidedRanges,
} from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import type { UIMessageAssembly } from "./apply-ui-message-chunk.js";
import { applyContinuingChunk, continueUIMessageAssembly } from "./continue-ui-message.js";

/**
 * What a drill-in shows of one child run, built from its drill-in frames. Immutable: a change makes a new object.
 */
export type AgentToolDrillInState = {
  readonly runId: string;
  /** True once the child sent its messages (until then `messages` is empty). */
  readonly isLoaded: boolean;
  /** True once the child sent the run's terminal inspection: nothing more will come. */
  readonly isComplete: boolean;
  /**
   * The child's conversation, live: its input as a user message, then its assistant message — the one it sent,
   * continued with every log entry since, in sequence order, each once.
   */
  readonly messages: readonly UIMessage[];
  /** The child's inspection of the run: as it was at load, then its terminal one. `null` if the child has none. */
  readonly run: AgentToolRunInspection | null;
  /** The newest progress report (by server time): ephemeral progress or a milestone. */
  readonly progress: AgentToolProgressSnapshot | null;
  /** The highest log sequence applied with no gap before it. */
  readonly lastSequence: number;
  /** @internal The messages before the assistant message. */
  readonly prefix: readonly UIMessage[];
  /** @internal The assistant message as the child sent it (`null` when it sent none yet). */
  readonly baseAssistant: UIMessage | null;
  /** @internal */
  readonly assembly: UIMessageAssembly;
  /** @internal Entries past a gap, sorted by sequence, applied once the gap closes. */
  readonly pending: readonly AgentToolLogEntry[];
  /**
   * @internal The assembly at the last step boundary (`finish-step`) applied since the messages, or the messages'
   * own: a step reset never voids entries before it.
   */
  readonly checkpoint: UIMessageAssembly;
  /** @internal The entries applied since `checkpoint`, newest first (a step reset may take some back). */
  readonly applied: AppliedEntries | null;
};

/** Entries applied since a checkpoint, newest first: appending shares everything before. */
type AppliedEntries = { readonly entry: AgentToolLogEntry; readonly previous: AppliedEntries | null };

/** The drill-in state of `runId` before anything arrived. */
export function createAgentToolDrillInState(runId: string): AgentToolDrillInState {
  return {
    runId,
    isLoaded: false,
    isComplete: false,
    messages: [],
    run: null,
    progress: null,
    lastSequence: 0,
    prefix: [],
    baseAssistant: null,
    assembly: continueUIMessageAssembly("", []),
    pending: [],
    checkpoint: continueUIMessageAssembly("", []),
    applied: null,
  };
}

const outputMessageId = (runId: string) => `agent-tool-${runId}-output`;

function newerProgress(
  current: AgentToolProgressSnapshot | null,
  next: AgentToolProgressSnapshot | null | undefined,
): AgentToolProgressSnapshot | null {
  if (!next) return current;
  return current === null || next.at >= current.at ? next : current;
}

function withMessages(state: AgentToolDrillInState): AgentToolDrillInState {
  const { baseAssistant, assembly, prefix } = state;
  let assistant: UIMessage | null = baseAssistant;
  if (baseAssistant !== null && assembly.parts !== baseAssistant.parts) {
    assistant = { ...baseAssistant, parts: assembly.parts };
  } else if (baseAssistant === null && assembly.parts.length > 0) {
    assistant = { id: outputMessageId(state.runId), role: "assistant", parts: assembly.parts };
  }
  return { ...state, messages: assistant ? [...prefix, assistant] : prefix };
}

function load(state: AgentToolDrillInState, messages: readonly UIMessage[], run: AgentToolRunInspection | null) {
  const last = messages.at(-1);
  const baseAssistant = last?.role === "assistant" ? last : null;
  const prefix = baseAssistant ? messages.slice(0, -1) : messages;
  const assembly = continueUIMessageAssembly(
    baseAssistant?.id ?? outputMessageId(state.runId),
    baseAssistant?.parts ?? [],
  );
  return withMessages({
    ...createAgentToolDrillInState(state.runId),
    isLoaded: true,
    isComplete: run !== null && run.status !== "running",
    run,
    progress: run?.progress ?? null,
    lastSequence: run?.lastSequence ?? 0,
    prefix,
    baseAssistant,
    assembly,
    checkpoint: assembly,
  });
}

/** Add entries, then apply every entry that follows on from `lastSequence`, in order. */
function applyEntries(state: AgentToolDrillInState, entries: readonly AgentToolLogEntry[]): AgentToolDrillInState {
  let pending = [...state.pending];
  for (const entry of entries) {
    if (entry.sequence <= state.lastSequence || pending.some((held) => held.sequence === entry.sequence)) continue;
    pending.push(entry);
  }
  if (pending.length === state.pending.length) return state; // every entry was already held: deduped
  pending.sort((left, right) => left.sequence - right.sequence);
  let { assembly, lastSequence, progress, checkpoint, applied } = state;
  // A step reset also stands for the sequences it voids: a tail may have left them out.
  const voided = pending.flatMap((entry) => {
    const reset = readStepResetChunk(entry.body);
    return reset ? voidedRanges(reset, entry.sequence) : [];
  });
  const isVoided = (sequence: number) => voided.some(([from, until]) => sequence >= from && sequence < until);
  let taken = 0;
  for (const entry of pending) {
    let next = lastSequence + 1;
    while (next < entry.sequence && isVoided(next)) next += 1;
    if (entry.sequence !== next) break;
    const reset = readStepResetChunk(entry.body);
    if (reset && reset.fromSequence <= lastSequence) {
      // Entries of the cut step applied since the checkpoint: assemble again without them.
      const kept: AgentToolLogEntry[] = [];
      for (let node = applied; node; node = node.previous) {
        if (!isVoidedByReset(node.entry, reset, entry.sequence)) kept.push(node.entry);
      }
      applied = null;
      assembly = checkpoint;
      for (const held of kept.reverse()) {
        assembly = applyContinuingChunk(assembly, held.body);
        applied = { entry: held, previous: applied };
      }
    }
    assembly = applyContinuingChunk(assembly, entry.body);
    progress = newerProgress(progress, readProgressChunk(entry.body, entry.at));
    lastSequence = entry.sequence;
    if (entry.body.type === "finish-step") {
      checkpoint = assembly;
      applied = null;
    } else {
      applied = { entry, previous: applied };
    }
    taken += 1;
  }
  pending = pending.slice(taken);
  return withMessages({ ...state, assembly, lastSequence, progress, pending, checkpoint, applied });
}

/**
 * Apply one drill-in frame: pure (inputs are never changed), and the same state comes back when the frame changes
 * nothing. The rules:
 * - `child-messages` (re)loads the view: the child's messages and inspection replace everything held, so a view
 *   reopened after a drop starts over from what the child says now;
 * - log entries after the loaded messages are applied once each (deduped by sequence), in sequence order; entries
 *   past a gap wait for it to close;
 * - a step reset (`data-agent-step-reset`) takes back the entries it voids that were applied since the messages, and
 *   closes the gap of those a tail left out (the child's messages never hold a voided entry);
 * - progress keeps the newest report by server time; the terminal inspection replaces `run` and completes the view;
 * - frames of another run, and chunk frames before the messages, are ignored.
 */
export function applyAgentToolDrillInFrame(
  state: AgentToolDrillInState,
  frame: AgentToolDrillInFrame,
): AgentToolDrillInState {
  if (frame.runId !== state.runId) return state;
  if (frame.type === "child-messages") return load(state, frame.messages, frame.run);
  if (!state.isLoaded) return state;
  const { item } = frame;
  switch (item.type) {
    case "entries":
      return applyEntries(state, item.entries);
    case "progress": {
      const progress = newerProgress(state.progress, readProgressChunk(item.body, item.at));
      return progress === state.progress ? state : { ...state, progress };
    }
    case "terminal":
      return {
        ...state,
        isComplete: true,
        run: item.inspection,
        progress: newerProgress(state.progress, item.inspection.progress),
      };
  }
}
