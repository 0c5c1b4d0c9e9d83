import type { UIMessageChunk } from "ai";
import {
  type AgentToolApproval,
  type AgentToolUsage,
  mergeApproval,
  readApprovalChunk,
  readOwnUsage,
  readToolStartedChunk,
  readUsageChunk,
} from "../protocol/index.js";
import { readOutputChunk } from "./journal-facts.js";

/** One entry of a turn's journal: a chunk and its place (a run's log sequence; a chat turn's chunk index + 1). */
export type JournalEntry = { readonly sequence: number; readonly body: UIMessageChunk };

/** An approval asked for a tool call (the AI SDK's `tool-approval-request`), and its answer once given. */
export type JournaledApproval = {
  approvalId: string;
  answer: { approved: boolean; reason?: string } | null;
};

/** What the journal says of one tool call. */
export type JournaledCall = {
  toolCallId: string;
  toolName: string;
  /** The call's input: complete once `decided`, else what had streamed of it (parsed leniently), if anything. */
  input: unknown;
  /** Its input is complete (`tool-input-available`): the model decided the call. */
  decided: boolean;
  /** Executed by the model's provider, not by us: never run, asked or closed here. */
  providerExecuted: boolean;
  approval: JournaledApproval | null;
  /** Its execution started (`data-agent-tool-started`). */
  started: boolean;
  /** It has its result: an output (not a preliminary one), an error, or a denial. */
  settled: boolean;
  /** The step it belongs to (0 for the turn's first `start-step`). */
  step: number;
};

/** A text or reasoning part of the step under way: its chunks, and whether it ended. */
type OpenPart = { sequences: number[]; ended: boolean };

/** What a turn's journal holds, folded: the state recovery decides from. */
export type JournalFold = {
  /** Steps the model finished (`finish-step`), in order: whether each decided tool calls (the model then goes on). */
  finishedSteps: boolean[];
  /** The step under way at the end of the journal (a `start-step` not finished), if any. */
  openStep: {
    index: number;
    /** Sequences of the step's model output: `start-step`, text, reasoning, tool inputs, sources, files. */
    output: number[];
    /** Its text and reasoning parts, by kind and id. */
    parts: Map<string, OpenPart>;
  } | null;
  /** Every tool call, in the order the model made them. */
  calls: Map<string, JournaledCall>;
  /** The assistant text of the last step that had text (a run's default summary). */
  text: string;
  /** The first in-band error, if any. */
  error: string | undefined;
  /** The turn was aborted (an `abort` chunk). */
  aborted: boolean;
  /** The turn's stream ended (`finish`) after its last step: nothing of it was cut. */
  ended: boolean;
  /** The approvals the journal's `data-agent-approval` chunks hold (own and re-published), by the protocol's rule. */
  approvals: Map<string, AgentToolApproval>;
  /** The turn's own usage as the journal last recorded it. */
  usage: AgentToolUsage | undefined;
  /** The output the turn recorded last (`setOutput`), if any. */
  output: { value: unknown } | undefined;
  /** The text of the step under way (the next `start-step` starts it again). */
  stepText: string;
  /** The input text streamed so far, by toolCallId. */
  inputText: Map<string, string>;
};

/** An empty fold: a turn with nothing journaled yet. */
export function emptyFold(): JournalFold {
  return {
    finishedSteps: [],
    openStep: null,
    calls: new Map(),
    text: "",
    error: undefined,
    aborted: false,
    ended: false,
    approvals: new Map(),
    usage: undefined,
    output: undefined,
    stepText: "",
    inputText: new Map(),
  };
}

/** Fold a turn's journal (its entries in order, void ones left out). Pure: the same entries give the same fold. */
export function foldJournal(entries: Iterable<JournalEntry>): JournalFold {
  const fold = emptyFold();
  for (const entry of entries) foldEntry(fold, entry);
  return fold;
}

/** Add one entry to `fold` (in place: the engine keeps one fold per turn and adds what it journals). */
export function foldEntry(fold: JournalFold, entry: JournalEntry): void {
  const { body, sequence } = entry;
  const approval = readApprovalChunk(body);
  if (approval)
    fold.approvals.set(approval.approvalId, mergeApproval(fold.approvals.get(approval.approvalId), approval));
  const usage = readOwnUsage(body) ?? readUsageChunk(body);
  if (usage) fold.usage = usage;
  const output = readOutputChunk(body);
  if (output) fold.output = output;
  const startedId = readToolStartedChunk(body);
  if (startedId !== null) {
    const call = fold.calls.get(startedId);
    if (call) call.started = true;
  }
  const open = fold.openStep;
  switch (body.type) {
    case "start":
      fold.ended = false;
      return;
    case "finish":
      fold.ended = fold.openStep === null;
      return;
    case "start-step":
      fold.openStep = { index: fold.finishedSteps.length, output: [sequence], parts: new Map() };
      fold.stepText = "";
      fold.ended = false;
      return;
    case "finish-step": {
      const index = fold.finishedSteps.length;
      const decidedCalls = [...fold.calls.values()].some(
        (call) => call.step === index && call.decided && !call.providerExecuted,
      );
      fold.finishedSteps.push(decidedCalls);
      fold.openStep = null;
      return;
    }
    case "text-start":
    case "reasoning-start":
      open?.parts.set(partKey(body.type, body.id), { sequences: [sequence], ended: false });
      open?.output.push(sequence);
      return;
    case "text-delta":
    case "reasoning-delta": {
      open?.parts.get(partKey(body.type, body.id))?.sequences.push(sequence);
      open?.output.push(sequence);
      if (body.type === "text-delta") {
        fold.stepText += body.delta;
        fold.text = fold.stepText;
      }
      return;
    }
    case "text-end":
    case "reasoning-end": {
      const part = open?.parts.get(partKey(body.type, body.id));
      if (part) {
        part.sequences.push(sequence);
        part.ended = true;
      }
      open?.output.push(sequence);
      return;
    }
    case "tool-input-start":
      callOf(fold, body.toolCallId, body.toolName, body.providerExecuted === true);
      open?.output.push(sequence);
      return;
    case "tool-input-delta": {
      const call = fold.calls.get(body.toolCallId);
      const text = (fold.inputText.get(body.toolCallId) ?? "") + body.inputTextDelta;
      fold.inputText.set(body.toolCallId, text);
      if (call && !call.decided) call.input = parseLenient(text);
      open?.output.push(sequence);
      return;
    }
    case "tool-input-available": {
      const call = callOf(fold, body.toolCallId, body.toolName, body.providerExecuted === true);
      call.decided = true;
      call.input = body.input;
      open?.output.push(sequence);
      return;
    }
    case "tool-input-error":
      callOf(fold, body.toolCallId, body.toolName, body.providerExecuted === true).settled = true;
      return;
    case "tool-approval-request": {
      const call = fold.calls.get(body.toolCallId);
      if (call) call.approval = { approvalId: body.approvalId, answer: null };
      return;
    }
    case "tool-approval-response": {
      for (const call of fold.calls.values()) {
        if (call.approval?.approvalId !== body.approvalId || call.approval.answer !== null) continue;
        call.approval.answer = {
          approved: body.approved,
          ...(body.reason !== undefined ? { reason: body.reason } : {}),
        };
      }
      return;
    }
    case "tool-output-available":
      if (body.preliminary === true) return;
      settle(fold, body.toolCallId);
      return;
    case "tool-output-error":
    case "tool-output-denied":
      settle(fold, body.toolCallId);
      return;
    case "source-url":
    case "source-document":
    case "file":
      open?.output.push(sequence);
      return;
    case "error":
      fold.error ??= body.errorText || "The turn's stream reported an error";
      return;
    case "abort":
      fold.aborted = true;
      return;
    default:
      return;
  }
}

function partKey(type: string, id: string): string {
  return `${type.startsWith("text") ? "text" : "reasoning"}:${id}`;
}

function callOf(fold: JournalFold, toolCallId: string, toolName: string, providerExecuted: boolean): JournaledCall {
  const known = fold.calls.get(toolCallId);
  if (known) return known;
  const call: JournaledCall = {
    toolCallId,
    toolName,
    input: undefined,
    decided: false,
    providerExecuted,
    approval: null,
    started: false,
    settled: false,
    step: fold.openStep?.index ?? fold.finishedSteps.length,
  };
  fold.calls.set(toolCallId, call);
  return call;
}

function settle(fold: JournalFold, toolCallId: string): void {
  const call = fold.calls.get(toolCallId);
  if (call) call.settled = true;
}

/** A tool input that streamed only in part, as far as it parses: `{}` when nothing of it does. */
function parseLenient(text: string): unknown {
  for (const candidate of [text, `${text}"}`, `${text}}`, `${text}"]}`, `${text}]}`]) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next closing
    }
  }
  return {};
}
