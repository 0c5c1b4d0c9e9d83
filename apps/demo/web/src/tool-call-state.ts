import {
  type AgentChatTurnStatus,
  type AgentToolRunState,
  STOPPED_TOOL_CALL_TEXT,
  UNFINISHED_TOOL_CALL_TEXT,
} from "@agent-tools/react";
import type { UIMessage } from "ai";
import { type CancelCause, cancelLabel, deniedToolNames, isLive } from "./format.js";

type MessagePart = UIMessage["parts"][number];
export type ToolPart = Extract<MessagePart, { toolCallId: string }>;

/** How a tool call's header reads, and its tone (for colour; the words say it all). */
export type ToolCallState = {
  label: string;
  tone: "live" | "done" | "failed" | "stopped";
  /** For a call whose runs were cancelled: who cancelled them, as far as this page knows. */
  cancelCause: CancelCause | null;
};

export type ToolCallContext = {
  /** The call's message is streaming on this page now (its turn goes on). */
  isStreaming: boolean;
  /** The child runs the call started. */
  runs: readonly AgentToolRunState[];
  /** How the call's turn ended, when this page heard (e.g. `aborted`: the reply was stopped). */
  turnStatus: AgentChatTurnStatus | undefined;
  /** True when this page stopped the call's reply. */
  stoppedHere: boolean;
  /** True for a run this page cancelled. */
  cancelledHere(runId: string): boolean;
};

type Failure = { ok: false; status?: unknown };

const isFailure = (output: unknown): output is Failure =>
  typeof output === "object" && output !== null && (output as { ok?: unknown }).ok === false;

/**
 * The state a tool call's header shows, in step with its runs and its turn: a call whose turn was stopped (or ended
 * without its result) never reads "running…", a child run's failure or cancel shows as such (not "done"), and a
 * cancel says who cancelled when this page knows. A call the server closed when its turn ended (Stop, a failure) reads
 * as one its turn left without a result: stopped, or interrupted — never "failed".
 */
export function toolCallState(part: ToolPart, context: ToolCallContext): ToolCallState {
  const aborted = context.runs.filter((run) => run.status === "aborted");
  const closedBy = part.state === "output-error" ? closedByTurn(part.errorText) : null;
  // A call with no result whose turn is over was stopped with its reply; one with a result was cancelled on its own.
  const hasResult = part.state === "output-available" || (part.state === "output-error" && closedBy === null);
  const ownRunId = outputRunId(part);
  const cancelCause = (): CancelCause => {
    // The run this page cancelled, also once it is cleared (its result still names it).
    if (aborted.some((run) => context.cancelledHere(run.runId))) return "you";
    if (ownRunId !== null && context.cancelledHere(ownRunId)) return "you";
    if (hasResult) return "elsewhere";
    if (context.stoppedHere) return "reply-stopped-by-you";
    if (context.turnStatus === "aborted" || !context.isStreaming) return "reply-stopped";
    return "elsewhere";
  };
  const cancelled = (): ToolCallState => {
    const cause = cancelCause();
    return { label: cancelLabel(cause), tone: "stopped", cancelCause: cause };
  };
  const stopped = (): ToolCallState => {
    if (aborted.length > 0) return cancelled();
    if (context.turnStatus === "interrupted") return { label: "interrupted", tone: "stopped", cancelCause: null };
    const label = context.stoppedHere ? "stopped by you" : "stopped";
    return { label, tone: "stopped", cancelCause: context.stoppedHere ? "reply-stopped-by-you" : "reply-stopped" };
  };

  switch (part.state) {
    case "input-streaming":
      return context.isStreaming ? { label: "preparing…", tone: "live", cancelCause: null } : stopped();
    case "input-available": {
      if (!context.isStreaming) return stopped();
      if (context.runs.length === 0 || context.runs.some(isLive)) {
        return { label: "running…", tone: "live", cancelCause: null };
      }
      if (aborted.length > 0) return cancelled();
      if (context.runs.some((run) => run.status === "error"))
        return { label: "failed", tone: "failed", cancelCause: null };
      return { label: "finishing…", tone: "live", cancelCause: null };
    }
    case "output-available": {
      if (!isFailure(part.output)) {
        // Done, but without a tool its runs' trees were denied: not a plain success.
        const denied = [...new Set(context.runs.flatMap(deniedToolNames))];
        return denied.length > 0
          ? { label: `done, ${denied.join(", ")} denied`, tone: "stopped", cancelCause: null }
          : { label: "done", tone: "done", cancelCause: null };
      }
      switch (part.output.status) {
        case "aborted":
          return cancelled();
        case "interrupted":
          return { label: "interrupted", tone: "stopped", cancelCause: null };
        default:
          return { label: "failed", tone: "failed", cancelCause: null };
      }
    }
    case "output-error":
      if (closedBy === "stop") return stopped();
      if (closedBy === "end") return { label: "interrupted", tone: "stopped", cancelCause: null };
      return { label: "failed", tone: "failed", cancelCause: null };
    case "output-denied":
      return { label: "denied", tone: "stopped", cancelCause: null };
    case "approval-requested":
      return { label: "awaiting approval", tone: "live", cancelCause: null };
    case "approval-responded":
      return context.isStreaming ? { label: "approved", tone: "live", cancelCause: null } : stopped();
    default:
      return { label: String((part as { state?: unknown }).state ?? ""), tone: "done", cancelCause: null };
  }
}

/** The run a tool call's result names (an agent tool's failure, a background run it started), if any. */
export function outputRunId(part: ToolPart): string | null {
  if (part.state !== "output-available") return null;
  const runId = (part.output as { runId?: unknown } | null)?.runId;
  return typeof runId === "string" ? runId : null;
}

/** How the server closed a call when its turn ended (`stop`: Stop; `end`: the answer failed or was cut), if it did. */
export function closedByTurn(errorText: string | undefined): "stop" | "end" | null {
  if (errorText === STOPPED_TOOL_CALL_TEXT) return "stop";
  return errorText === UNFINISHED_TOOL_CALL_TEXT ? "end" : null;
}
