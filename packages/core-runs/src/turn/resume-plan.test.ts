// The step journal's fold and the resume plan, as data: what a turn goes on from after a cut (or an approval's
// answer), for every shape the journal can be left in. Nothing here voids a fact.
import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { type AgentToolApproval, approvalChunk, toolStartedChunk, usageChunk } from "../protocol/index.js";
import { foldJournal, type JournalEntry } from "./journal-fold.js";
import { planResume, undecidedCalls } from "./resume-plan.js";

/** The chunks as journal entries, numbered from 1. */
const journal = (...chunks: UIMessageChunk[]): JournalEntry[] =>
  chunks.map((body, index) => ({ sequence: index + 1, body }));

const plan = (entries: JournalEntry[], needingApproval: string[] = []) =>
  planResume(foldJournal(entries), new Set(needingApproval));

const ids = (calls: ReadonlyArray<{ toolCallId: string }>) => calls.map((call) => call.toolCallId);

const text = (id: string, delta: string, ended = true): UIMessageChunk[] => [
  { type: "text-start", id },
  { type: "text-delta", id, delta },
  ...(ended ? [{ type: "text-end", id } as UIMessageChunk] : []),
];
const decided = (toolCallId: string, input: unknown = { q: toolCallId }): UIMessageChunk[] => [
  { type: "tool-input-start", toolCallId, toolName: "lookup" },
  { type: "tool-input-delta", toolCallId, inputTextDelta: JSON.stringify(input) },
  { type: "tool-input-available", toolCallId, toolName: "lookup", input },
];
const result = (toolCallId: string): UIMessageChunk => ({ type: "tool-output-available", toolCallId, output: "ok" });
/** A turn's first step under way. */
const OPEN: UIMessageChunk[] = [{ type: "start" }, { type: "start-step" }];
const STEP_ONE: UIMessageChunk[] = [
  { type: "start" },
  { type: "start-step" },
  ...text("a", "Hi."),
  { type: "finish-step" },
];

describe("planResume", () => {
  it("a new turn (nothing journaled): the model goes on, nothing else", () => {
    expect(plan([])).toEqual({
      voided: [],
      notRun: [],
      run: [],
      ask: [],
      closeStep: false,
      waiting: [],
      next: "model",
    });
  });

  it("a step cut before the model decided anything is done again: its model output is dropped, its facts stay", () => {
    const entries = journal(
      ...STEP_ONE,
      ...decided("c1"),
      toolStartedChunk("c1"),
      result("c1"),
      { type: "finish-step" },
      { type: "start-step" },
      usageChunk({ inputTokens: 1, outputTokens: 2, runs: 0 }),
      ...text("b", "Owls", false),
    );
    const cut = plan(entries);
    // start-step (13) and the open text (15, 16); the usage chunk between them (14) is not model output.
    expect(cut.voided).toEqual([13, 15, 16]);
    expect(cut).toMatchObject({ notRun: [], run: [], ask: [], closeStep: false, next: "model" });
  });

  it("a step that decided a call is kept: its open text dropped, its closed text kept, the call run, the step closed", () => {
    const entries = journal(
      ...STEP_ONE,
      { type: "start-step" },
      ...text("b", "Let me look."),
      ...decided("c1"),
      ...text("c", "And", false),
    );
    const cut = plan(entries);
    expect(cut.voided).toEqual([14, 15]);
    expect(ids(cut.run)).toEqual(["c1"]);
    expect(cut.run[0]).toMatchObject({ toolName: "lookup", input: { q: "c1" } });
    expect(cut).toMatchObject({ closeStep: true, next: "model", ask: [], waiting: [] });
  });

  it("a call whose input was still streaming beside a decided one is not dropped: the model is told it did not run", () => {
    const entries = journal(
      ...OPEN,
      ...decided("research"),
      { type: "tool-input-start", toolCallId: "summarize", toolName: "summarize" },
      { type: "tool-input-delta", toolCallId: "summarize", inputTextDelta: '{"text":"ca' },
    );
    const cut = plan(entries);
    expect(cut.voided).toEqual([]);
    expect(ids(cut.run)).toEqual(["research"]);
    expect(cut.notRun).toMatchObject([{ toolCallId: "summarize", toolName: "summarize", input: { text: "ca" } }]);
  });

  it("a decided call whose tool needs approval and was never asked is asked, once, and the turn waits", () => {
    const entries = journal(...OPEN, ...decided("save"));
    const cut = plan(entries, ["save"]);
    expect(ids(cut.ask)).toEqual(["save"]);
    expect(ids(cut.waiting)).toEqual(["save"]);
    expect(cut).toMatchObject({ run: [], closeStep: true, next: "wait" });
    expect(ids(undecidedCalls(foldJournal(entries)))).toEqual(["save"]);
  });

  it("an approval asked and not answered: nothing is asked again; the turn waits", () => {
    const entries = journal(
      ...OPEN,
      ...decided("save"),
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "save" },
      approvalChunk({ approvalId: "a1", toolCallId: "save", toolName: "lookup", path: [], status: "pending", at: 1 }),
      { type: "finish-step" },
      { type: "finish" },
    );
    const cut = plan(entries, ["save"]);
    expect(undecidedCalls(foldJournal(entries))).toEqual([]);
    expect(cut).toMatchObject({ ask: [], run: [], voided: [], next: "wait" });
    expect(ids(cut.waiting)).toEqual(["save"]);
  });

  it("an approval answered just before a cut stays answered: never voided, and the turn goes on (the call runs)", () => {
    const answered = journal(
      ...OPEN,
      ...decided("save"),
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "save" },
      { type: "finish-step" },
      { type: "tool-approval-response", approvalId: "a1", approved: true },
    );
    expect(plan(answered)).toMatchObject({ voided: [], run: [], ask: [], waiting: [], next: "model" });
    // Its execution started, its result came, and the next step was cut while its text streamed.
    const further = journal(
      ...answered.map((entry) => entry.body),
      toolStartedChunk("save"),
      result("save"),
      { type: "start" },
      { type: "start-step" },
      ...text("z", "Saved", false),
    );
    const cut = plan(further);
    expect(cut.voided).toEqual([12, 13, 14]);
    expect(cut).toMatchObject({ run: [], ask: [], waiting: [], next: "model" });
  });

  it("a completed step is never done again: the turn goes on after it, unless its stream had ended there", () => {
    const withCalls = journal(...STEP_ONE, { type: "start-step" }, ...decided("c1"), result("c1"), {
      type: "finish-step",
    });
    expect(plan(withCalls)).toMatchObject({ voided: [], run: [], next: "model" });
    // A turn's own steps (not the AI SDK's loop) may follow a step of text alone: the turn is over only at its end.
    expect(plan(journal(...STEP_ONE))).toMatchObject({ voided: [], run: [], next: "model" });
    expect(plan(journal(...STEP_ONE, { type: "finish" }))).toMatchObject({ voided: [], run: [], next: "end" });
    // An approval's continuation starts a new stream: its `start` means the turn goes on again.
    expect(plan(journal(...STEP_ONE, { type: "finish" }, { type: "start" })).next).toBe("model");
  });

  it("a call whose execution started and has no result runs again, also in a finished step; a client-side one waits", () => {
    const started = journal(
      { type: "start-step" },
      ...decided("server"),
      toolStartedChunk("server"),
      ...decided("client"),
      { type: "finish-step" },
    );
    const cut = plan(started);
    expect(ids(cut.run)).toEqual(["server"]);
    expect(cut).toMatchObject({ closeStep: false, next: "model" });
  });

  it("a failed or aborted turn is over", () => {
    expect(plan(journal(...STEP_ONE, { type: "error", errorText: "boom" })).next).toBe("end");
    expect(plan(journal({ type: "start-step" }, ...text("a", "x", false), { type: "abort" })).next).toBe("end");
  });
});

describe("foldJournal", () => {
  it("holds the last step's text, the latest usage, the output and the approvals by the protocol's rule", () => {
    const pending: AgentToolApproval = {
      approvalId: "a1",
      toolCallId: "c",
      toolName: "t",
      path: [],
      status: "pending",
      at: 1,
    };
    const fold = foldJournal(
      journal(
        ...STEP_ONE,
        usageChunk({ inputTokens: 1, outputTokens: 1, runs: 0 }),
        approvalChunk({ ...pending, status: "approved", at: 2 }),
        approvalChunk(pending),
        { type: "data-agent-output", data: { value: { n: 1 } }, transient: true } as UIMessageChunk,
        { type: "start-step" },
        ...text("b", "Owls."),
        { type: "finish-step" },
        usageChunk({ inputTokens: 3, outputTokens: 4, runs: 1 }),
      ),
    );
    expect(fold.text).toBe("Owls.");
    expect(fold.usage).toEqual({ inputTokens: 3, outputTokens: 4, runs: 1 });
    expect(fold.output).toEqual({ value: { n: 1 } });
    // A pending copy read after the answer changes nothing: an answered approval never goes back to pending.
    expect([...fold.approvals.values()]).toMatchObject([{ approvalId: "a1", status: "approved" }]);
    expect(fold.finishedSteps).toEqual([false, false]);
  });
});
