// What "recovered" means for the scripted tree after a stop (see tree-kill.test.ts), as assertions.
import {
  type AgentToolLogEntry,
  type AgentToolUsage,
  omitVoidedEntries,
  readOwnUsage,
  readToolStartedChunk,
} from "@agent-tools/core-runs";
import type { UIMessageChunk } from "ai";
import { expect } from "vitest";
import { normalize, type ScenarioOutcome } from "./tree-scenario.test-utils.js";

/**
 * The tree after a stop and its recovery equals the uninterrupted run, ids aside:
 * - the conversation (the user message once, an answer that made every call once and says the same);
 * - every run (status, summary, message) and the top-level runs as the root's copies show them;
 * - each approval asked once and answered once, in every log that holds it (the asker's, and one level up each);
 * - each plain tool executed once per call — twice only when the stop fell inside its execution (the start of its
 *   execution journaled, its result not), and then with the same `toolCallId`: its effect, idempotent by that id,
 *   happened once;
 * - each child run started once (a cut run goes on; it never gets a second fresh turn);
 * - no completed step's model call made again (at most the cut step's, once per turn or run);
 * - usage counted once: each turn or run went on from exactly the usage its journal held at the stop.
 */
export function expectRecovered(
  outcome: ScenarioOutcome,
  reference: ScenarioOutcome,
  stopAfter: number,
): { redoneSteps: number; toolsRunAgain: number } {
  const at = `after write ${stopAfter}`;
  const messages = (outcome_: ScenarioOutcome) => outcome_.conversation.map((message) => normalize(message));
  expect(messages(outcome), `the conversation, ${at}`).toEqual(messages(reference));
  expect([...outcome.runs.keys()].sort(), `the runs, ${at}`).toEqual([...reference.runs.keys()].sort());
  for (const [place, run] of outcome.runs) {
    const expected = reference.runs.get(place);
    expect(
      { ...run, answers: [...run.answers.values()], approvals: statuses(run.approvals), usage: undefined, steps: 0 },
      `${place}, ${at}`,
    ).toEqual({
      ...expected,
      answers: [...(expected?.answers.values() ?? [])],
      approvals: statuses(expected?.approvals ?? []),
      usage: undefined,
      steps: 0,
    });
  }
  for (const [runId, run] of outcome.topLevel) {
    expect(statuses(run.approvals), `approvals on ${runId} at the top, ${at}`).toEqual(
      statuses(reference.topLevel.get(runId)?.approvals ?? []),
    );
    expect(run.status, `${runId} at the top, ${at}`).toBe(reference.topLevel.get(runId)?.status);
  }
  const toolsRunAgain = expectToolsOnce(outcome, reference, at);
  // Each child run started once: a cut run is resumed, never started anew.
  expect([...outcome.counts.freshTurns.values()], `fresh turns, ${at}`).toEqual(
    [...outcome.counts.freshTurns.keys()].map(() => 1),
  );
  const redoneSteps = expectNoCompletedStepAgain(outcome, at);
  expectUsageOnce(outcome, at);
  return { redoneSteps, toolsRunAgain };
}

/** The approval states a log holds, by approval (ids aside): e.g. `[["pending", "approved"]]`. */
function statuses(approvals: ReadonlyArray<{ approvalId: string; status: string }>): string[][] {
  const byId = new Map<string, string[]>();
  for (const { approvalId, status } of approvals) byId.set(approvalId, [...(byId.get(approvalId) ?? []), status]);
  return [...byId.values()];
}

/** Returns how many calls ran twice (a stop inside their execution). */
function expectToolsOnce(outcome: ScenarioOutcome, reference: ScenarioOutcome, at: string): number {
  const effects = (of: ScenarioOutcome) => [...of.counts.effects.values()].sort();
  expect(effects(outcome), `what the tools did, ${at}`).toEqual(effects(reference));
  const journals = [...(outcome.atStop?.logs.values() ?? [])].flat();
  for (const [key, executions] of outcome.counts.executions) {
    const toolCallId = key.slice(key.indexOf(":") + 1);
    // Inside its execution at the stop: started journaled, no result.
    const started = journals.some((entry) => readToolStartedChunk(entry.body) === toolCallId);
    const settled = journals.some((entry) => isResultOf(entry.body, toolCallId));
    const allowed = started && !settled ? [1, 2] : [1];
    expect(allowed, `${key} ran ${executions} times, ${at}`).toContain(executions);
  }
  return [...outcome.counts.executions.values()].filter((executions) => executions === 2).length;
}

function isResultOf(body: UIMessageChunk, toolCallId: string): boolean {
  const result = body as { type: string; toolCallId?: string; preliminary?: boolean };
  return (
    result.toolCallId === toolCallId &&
    (result.type === "tool-output-error" || (result.type === "tool-output-available" && result.preliminary !== true))
  );
}

/**
 * A turn or run makes one model call per step its message holds, plus at most one for the step a stop cut (made
 * again, with the same prompt, as the first call after the stop).
 */
function expectNoCompletedStepAgain(outcome: ScenarioOutcome, at: string): number {
  const steps = new Map<string, number>();
  const answer = outcome.conversation.at(-1);
  steps.set("conversation", answer?.parts.filter((part) => part.type === "step-start").length ?? 0);
  for (const [place, run] of outcome.runs) steps.set(place.slice(place.lastIndexOf("/") + 1), run.steps);
  const nodes = new Set(outcome.counts.calls.map((call) => call.node));
  let redone = 0;
  for (const node of nodes) {
    const calls = outcome.counts.calls.filter((call) => call.node === node);
    const before = calls.filter((call) => call.world === 1);
    const after = calls.filter((call) => call.world > 1);
    const extra = calls.length - (steps.get(node) ?? 0);
    redone += extra;
    expect([0, 1], `${node}: ${calls.length} model calls for ${steps.get(node)} steps, ${at}`).toContain(extra);
    const repeated = after.filter((call) => before.some((earlier) => earlier.prompt === call.prompt));
    if (extra === 0) expect(repeated, `${node} made a completed step's call again, ${at}`).toEqual([]);
    else
      expect(
        repeated.map((call) => call.prompt),
        `${node}'s repeated call is its cut step's, ${at}`,
      ).toEqual(before.slice(-1).map((call) => call.prompt));
  }
  return redone;
}

/** Each turn or run that went on after the stop started from exactly the own usage its journal held at the stop. */
function expectUsageOnce(outcome: ScenarioOutcome, at: string): void {
  const journaled = (entries: readonly { body: UIMessageChunk }[]): AgentToolUsage | undefined => {
    let own: AgentToolUsage | undefined;
    for (const { body } of entries) own = readOwnUsage(body) ?? own;
    return own;
  };
  const tokens = (usage: AgentToolUsage | undefined) => [usage?.inputTokens ?? 0, usage?.outputTokens ?? 0];
  for (const [node, restored] of outcome.counts.restored) {
    let durable: AgentToolUsage | undefined;
    if (node === "conversation") {
      durable = journaled((outcome.atStop?.turnChunks ?? []).map((body) => ({ body })));
    } else {
      const log = [...(outcome.atStop?.logs ?? [])].find(([key]) => key.endsWith(`/${node}#${node}`))?.[1];
      durable = journaled(omitVoidedEntries((log ?? []) as AgentToolLogEntry[]));
    }
    expect(tokens(restored), `${node} went on from its journaled usage, ${at}`).toEqual(tokens(durable));
  }
}

/** Model output tokens made across both worlds beyond what the uninterrupted run made. */
export function regeneratedTokens(outcome: ScenarioOutcome, reference: ScenarioOutcome): number {
  const total = (of: ScenarioOutcome) => of.counts.calls.reduce((sum, call) => sum + call.outputTokens, 0);
  return total(outcome) - total(reference);
}
