// Approvals at any depth (issue 25), in-process: a tool with the AI SDK's `needsApproval` in a grandchild pauses that
// run; the request surfaces at the top (re-published one level up by the run between); an answer travels down to the
// asker, whose turn goes on with no completed step done again (the model is called once per step in all).
import { convertToModelMessages, isStepCount, streamText, tool, toUIMessageStream } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentToolPreliminaryOutput, agentTool } from "./agent-tool.js";
import type { AgentToolChildDefinition } from "./child-definition.js";
import {
  type AgentToolApproval,
  type AgentToolEventFrame,
  approvalChunk,
  positionOf,
  readApprovalChunk,
} from "./protocol/index.js";
import type { AgentToolRegistry } from "./run-registry.js";
import { inMemoryRegistry } from "./testing/in-memory-registry.js";
import { ManualClock } from "./testing/manual-clock.js";
import { scriptedModel, textStep, toolCallsStep, toolResultsSeen } from "./testing/scripted-model.js";

/** A leaf whose model asks to `write` (a tool that needs approval), then says what the write gave. */
function writer(counts: { modelCalls: number; writes: number; turns: number }): AgentToolChildDefinition {
  const tools = () => ({
    write: tool({
      description: "Write a file",
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        counts.writes += 1;
        return `wrote ${path}`;
      },
    }),
  });
  const steps = [
    toolCallsStep("write", [["w1", { path: "notes.txt" }]]),
    textStep((call) => `done: ${JSON.stringify(toolResultsSeen(call).get("w1"))}`),
  ];
  return {
    agentType: "Writer",
    getTools: tools,
    async turn(context) {
      counts.turns += 1;
      const counted = steps.map((step) => (call: Parameters<typeof step>[0]) => {
        counts.modelCalls += 1;
        return step(call);
      });
      // The n-th model call of the run streams the n-th step, across the run's turns.
      const model = scriptedModel(counted.slice(counts.modelCalls));
      return toUIMessageStream({
        stream: streamText({
          model,
          messages: await convertToModelMessages(context.messages, { tools: tools() }),
          tools: tools(),
          stopWhen: isStepCount(3),
          abortSignal: context.abortSignal,
        }).stream,
        tools: tools(),
      });
    },
  };
}

const DAY = 24 * 60 * 60 * 1_000;

const approvalsIn = (frames: AgentToolEventFrame[]): AgentToolApproval[] =>
  frames.flatMap((frame) => {
    const approval = frame.event.kind === "chunk" ? readApprovalChunk(frame.event.body) : null;
    return approval ? [approval] : [];
  });

describe("approvals", () => {
  it("pause the asking run until answered; approved, the tool runs once and the run goes on, no step done again", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const clock = new ManualClock(1_000);
    const { registry, frames } = inMemoryRegistry([writer(counts)], clock);
    const result = registry.runAgentTool("Writer", { input: "write notes", runId: "w" });
    await expect.poll(() => approvalsIn(frames).length).toBe(1);
    const [asked] = approvalsIn(frames);
    expect(asked).toMatchObject({ toolName: "write", input: { path: "notes.txt" }, path: [], status: "pending" });
    expect(counts).toEqual({ modelCalls: 1, writes: 0, turns: 1 });
    expect((await registry.getAgentToolRun("w"))?.status).toBe("running");

    expect(await registry.answerApproval("w", asked?.approvalId ?? "", { approved: true })).toBe(true);
    expect(await result).toMatchObject({ ok: true, summary: 'done: {"type":"text","value":"wrote notes.txt"}' });
    expect(counts).toEqual({ modelCalls: 2, writes: 1, turns: 2 });
    expect(approvalsIn(frames).map((approval) => approval.status)).toEqual(["pending", "approved"]);
    // Answering again changes nothing.
    expect(await registry.answerApproval("w", asked?.approvalId ?? "", { approved: true })).toBe(false);
  });

  it("denied, the tool does not run: the model is told and goes on", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const { registry, frames } = inMemoryRegistry([writer(counts)], new ManualClock(1_000));
    const result = registry.runAgentTool("Writer", { input: "write notes", runId: "w" });
    await expect.poll(() => approvalsIn(frames).length).toBe(1);
    const approvalId = approvalsIn(frames)[0]?.approvalId ?? "";
    expect(await registry.answerApproval("w", approvalId, { approved: false, reason: "not today" })).toBe(true);
    expect(await result).toMatchObject({ ok: true, summary: expect.stringContaining("execution-denied") });
    expect(counts.writes).toBe(0);
    expect(approvalsIn(frames).at(-1)).toMatchObject({ status: "denied", reason: "not today" });
  });

  it("surface at the top from a grandchild, and the answer travels down to it", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const clock = new ManualClock(1_000);
    const levels = new Map<string, { registry: AgentToolRegistry; askers: Map<string, string> }>();
    // The middle: one step calling its Writer, then a report; it re-publishes the approvals of its runs, and passes
    // answers down to the run that asked.
    const middle: AgentToolChildDefinition = {
      agentType: "Middle",
      turn(context) {
        const tree = context.tree ?? { rootId: context.runId, ancestors: [] };
        const askers = new Map<string, string>();
        const { registry } = inMemoryRegistry([writer(counts)], clock, {
          position: () => positionOf(tree, { agentType: "Middle", runId: context.runId }),
          hooks: {
            onApproval: (run, approval) => {
              askers.set(approval.approvalId, run.runId);
              context.appendChunk(
                approvalChunk({
                  ...approval,
                  path: [{ agentType: run.agentType, runId: run.runId }, ...approval.path],
                }),
              );
            },
          },
        });
        levels.set(context.runId, { registry, askers });
        const tools = { delegate: agentTool(registry, "Writer", { description: "write", inputSchema: z.object({}) }) };
        return toUIMessageStream({
          stream: streamText({
            model: scriptedModel([toolCallsStep("delegate", [["d1", {}]]), textStep(() => "middle done")]),
            prompt: "delegate",
            tools,
            stopWhen: isStepCount(3),
            abortSignal: context.abortSignal,
          }).stream,
          tools,
        });
      },
      async onApprovalAnswer(runId, approvalId, answer) {
        const level = levels.get(runId);
        const asker = level?.askers.get(approvalId);
        return asker !== undefined && (level?.registry.answerApproval(asker, approvalId, answer) ?? false);
      },
    };
    const { registry, frames } = inMemoryRegistry([middle], clock);
    const result = registry.runAgentTool("Middle", { input: {}, runId: "m" });
    // The Middle's log writes what follows a burst's first entry at the burst's end (a 0 ms timer on the clock).
    await expect
      .poll(async () => {
        await clock.advanceBy(0);
        return approvalsIn(frames).length;
      })
      .toBe(1);
    const [asked] = approvalsIn(frames);
    // At the top, on the Middle's run: its Writer asks.
    expect(asked).toMatchObject({
      toolName: "write",
      status: "pending",
      path: [{ agentType: "Writer", runId: "agent-tool:d1" }],
    });
    expect(await registry.answerApproval("m", asked?.approvalId ?? "", { approved: true })).toBe(true);
    expect(await result).toMatchObject({ ok: true, summary: "middle done" });
    expect(counts).toEqual({ modelCalls: 2, writes: 1, turns: 2 });
    expect(approvalsIn(frames).map((approval) => approval.status)).toEqual(["pending", "approved"]);
  });

  it("a paused run cancelled ends aborted, its approval closed as denied", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const { registry, frames } = inMemoryRegistry([writer(counts)], new ManualClock(1_000));
    const result = registry.runAgentTool("Writer", { input: "write notes", runId: "w" });
    await expect.poll(() => approvalsIn(frames).length).toBe(1);
    expect(await registry.cancelAgentTool("w", "Stopped by the user")).toBe(true);
    expect(await result).toMatchObject({ ok: false, status: "aborted", error: "Stopped by the user" });
    expect(approvalsIn(frames).at(-1)).toMatchObject({ status: "denied", reason: "Stopped by the user" });
    expect(counts.writes).toBe(0);
  });

  it("survive the asking child's restart: the request is still pending, and approving resumes that same run", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const clock = new ManualClock(1_000);
    const { registry, frames, transport } = inMemoryRegistry([writer(counts)], clock);
    const result = registry.runAgentTool("Writer", { input: "write notes", runId: "w" });
    await expect.poll(() => approvalsIn(frames).length).toBe(1);
    const approvalId = approvalsIn(frames)[0]?.approvalId ?? "";
    transport.evict({ agentType: "Writer", runId: "w" });
    // A new instance knows the run waits (from its row), without running a turn.
    expect(await transport.inspect({ agentType: "Writer", runId: "w" })).toMatchObject({
      status: "running",
      awaitingApproval: [{ approvalId, status: "pending" }],
    });
    expect(counts.turns).toBe(1);
    expect(await registry.answerApproval("w", approvalId, { approved: true })).toBe(true);
    let outcome: unknown;
    void result.then((value) => {
      outcome = value;
    });
    // The parent's tail ended with the eviction: it tails again after its retry pause.
    await expect
      .poll(async () => {
        await clock.advanceBy(1_000);
        return outcome;
      })
      .toMatchObject({ ok: true, summary: 'done: {"type":"text","value":"wrote notes.txt"}' });
    expect(counts).toEqual({ modelCalls: 2, writes: 1, turns: 2 });
    expect(approvalsIn(frames).map((approval) => approval.status)).toEqual(["pending", "approved"]);
  });

  it("expire after the timeout: denied as expired, and the model is told", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const clock = new ManualClock(1_000);
    const { registry, frames, transport } = inMemoryRegistry([writer(counts)], clock);
    const result = registry.runAgentTool("Writer", { input: "write notes", runId: "w" });
    await expect.poll(() => approvalsIn(frames).length).toBe(1);
    const runner = transport.runnerFor({ agentType: "Writer", runId: "w" });
    await clock.advanceBy(DAY - 1);
    expect(await runner?.expireApprovals(DAY)).toBe(0);
    expect(runner?.approvalDeadline(DAY)).toBe(1_000 + DAY);
    await clock.advanceBy(1);
    expect(await runner?.expireApprovals(DAY)).toBe(1);
    expect(await result).toMatchObject({ ok: true, summary: expect.stringContaining("execution-denied") });
    expect(approvalsIn(frames).at(-1)).toMatchObject({ status: "expired" });
    expect(counts.writes).toBe(0);
  });

  it("reach stock useChat: the agent tool's preliminary results carry the tree's approvals", async () => {
    const counts = { modelCalls: 0, writes: 0, turns: 0 };
    const { registry } = inMemoryRegistry([writer(counts)], new ManualClock(1_000));
    const write = agentTool(registry, "Writer", {
      description: "write",
      inputSchema: z.string(),
      preliminaryResults: true,
    });
    const execute = write.execute as (
      input: unknown,
      options: unknown,
    ) => AsyncIterable<AgentToolPreliminaryOutput<never>>;
    const outputs = execute("write notes", { toolCallId: "c1", messages: [], context: {} });
    const seen: AgentToolApproval[][] = [];
    for await (const output of outputs) {
      seen.push(output.approvals);
      const pending = output.approvals.find((approval) => approval.status === "pending");
      if (pending && output.result === undefined && seen.filter((list) => list.length > 0).length === 1) {
        await registry.answerApproval("agent-tool:c1", pending.approvalId, { approved: true });
      }
    }
    expect(seen.at(-1)).toMatchObject([{ toolName: "write", status: "approved", path: [] }]);
    expect(seen.some((list) => list[0]?.status === "pending")).toBe(true);
    expect(counts.writes).toBe(1);
  });
});
