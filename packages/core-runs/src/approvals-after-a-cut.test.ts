// Issue 32's approval defects, in Node on the manual clock, with the child's host cut (a new runner over the same
// storage, as a Durable Object after a kill) at the moments the issue names:
// - right after the model decided a call that needs approval (its request in the log, the run not yet paused): the
//   tool must not run unasked — the request stands, the run waits for it;
// - right after an answer, while the turn it continues streams its next step: the answer and the tool's result stay
//   (they are facts), the tool ran once, and the run completes;
// - a replay of a run whose approval was answered never shows it pending, frame by frame.
import {
  convertToModelMessages,
  isStepCount,
  type LanguageModel,
  streamText,
  type ToolSet,
  tool,
  toUIMessageStream,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentToolChildDefinition } from "./child-definition.js";
import { AgentToolChildRunner } from "./child-runner.js";
import { inMemoryRegistry } from "./in-memory-registry.test-utils.js";
import { type AgentToolEventFrame, readApprovalChunk } from "./protocol/index.js";
import { InMemoryRunStore } from "./testing/in-memory-run-store.js";
import { flushMicrotasks, ManualClock } from "./testing/manual-clock.js";
import { type ScriptedModelPart, scriptedUsage } from "./testing/scripted-model.js";

type Part = ScriptedModelPart;

/** One model call's stream: its parts, then — with `hang` — no end (the host is cut while it streams). */
function modelStream(parts: Part[], hang = false): ReadableStream<Part> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (!hang) controller.close();
    },
  });
}

const SAVE_CALL: Part = { type: "tool-call", toolCallId: "save-1", toolName: "saveFile", input: '{"path":"notes.md"}' };
const finish = (reason: "stop" | "tool-calls"): Part => ({
  type: "finish",
  finishReason: { unified: reason, raw: undefined },
  usage: scriptedUsage,
});
const text = (delta: string): Part[] => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta },
  { type: "text-end", id: "t" },
];

/** A Writer whose `saveFile` needs approval; its n-th model call streams `steps[n]` (shared by every host). */
function writer(saves: string[], steps: Array<() => ReadableStream<Part>>): AgentToolChildDefinition {
  let calls = 0;
  const model = new MockLanguageModelV4({
    doStream: async () => {
      const step = steps[calls];
      calls += 1;
      if (!step) throw new Error(`no model call ${calls}`);
      return { stream: step() };
    },
  });
  const tools = (): ToolSet => ({
    saveFile: tool({
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }, { toolCallId }) => {
        saves.push(toolCallId);
        return { saved: path };
      },
    }),
  });
  return {
    agentType: "Writer",
    getTools: tools,
    async turn(context) {
      const used = (context as { tools?: ToolSet }).tools ?? tools();
      return toUIMessageStream({
        stream: streamText({
          model: model as LanguageModel,
          messages: await convertToModelMessages(context.messages, { tools: used }),
          tools: used,
          stopWhen: isStepCount(4),
          abortSignal: context.abortSignal,
        }).stream,
        tools: used,
      });
    },
  };
}

/** Let the host work: microtasks, one turn of the event loop (the AI SDK's streams end on it), a clock tick. */
async function drive(clock: ManualClock, until: () => Promise<boolean>): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  for (let round = 0; round < 300 && !(await until()); round += 1) {
    await flushMicrotasks(20);
    await new Promise<void>((resolve) => immediate?.(resolve));
    await clock.advanceBy(1);
  }
}

const logHas = (store: InMemoryRunStore, type: string) => async () =>
  (await store.readLog("w")).some((entry) => entry.body.type === type);

describe("an approval across a cut of its child's host", () => {
  it("a call that needs approval, cut before the run paused, is asked — never run unasked", async () => {
    const saves: string[] = [];
    const definition = writer(saves, [
      () => modelStream([{ type: "stream-start", warnings: [] }, SAVE_CALL], true),
      () => modelStream([{ type: "stream-start", warnings: [] }, ...text("Saved notes.md."), finish("stop")]),
    ]);
    const store = new InMemoryRunStore();
    const clock = new ManualClock(1_000);
    await new AgentToolChildRunner({ definition, store, clock }).start("w", "save my notes");
    await drive(clock, logHas(store, "tool-approval-request"));
    expect(await logHas(store, "tool-approval-request")()).toBe(true);

    // The host is cut while the model still streams that step; a new one wakes the run.
    const runner = new AgentToolChildRunner({ definition, store, clock });
    await runner.inspect("w");
    await drive(clock, async () => saves.length > 0);
    expect(saves).toEqual([]);
    const waiting = await runner.inspect("w");
    expect(waiting).toMatchObject({
      status: "running",
      awaitingApproval: [{ toolName: "saveFile", status: "pending" }],
    });

    const approvalId = waiting?.awaitingApproval?.[0]?.approvalId ?? "";
    expect(await runner.answerApproval("w", approvalId, { approved: true })).toBe(true);
    await drive(clock, async () => (await store.getRun("w"))?.status === "completed");
    expect(await runner.inspect("w")).toMatchObject({ status: "completed", summary: "Saved notes.md." });
    expect(saves).toEqual(["save-1"]);
  });

  it("an answer given just before a cut stays: the tool ran once, its result is kept, the run completes", async () => {
    const saves: string[] = [];
    const definition = writer(saves, [
      () => modelStream([{ type: "stream-start", warnings: [] }, SAVE_CALL, finish("tool-calls")]),
      // The step after the save is cut while its text streams…
      () =>
        modelStream(
          [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Sav" },
          ],
          true,
        ),
      // …and done again by the host that wakes the run.
      () => modelStream([{ type: "stream-start", warnings: [] }, ...text("Saved notes.md."), finish("stop")]),
    ]);
    const store = new InMemoryRunStore();
    const clock = new ManualClock(1_000);
    const first = new AgentToolChildRunner({ definition, store, clock });
    await first.start("w", "save my notes");
    await drive(clock, async () => ((await first.inspect("w"))?.awaitingApproval?.length ?? 0) > 0);
    const approvalId = (await first.inspect("w"))?.awaitingApproval?.[0]?.approvalId ?? "";
    expect(await first.answerApproval("w", approvalId, { approved: true })).toBe(true);
    await drive(clock, async () => (await store.readLog("w")).some((entry) => entry.body.type === "text-delta"));
    expect(saves).toEqual(["save-1"]);

    const runner = new AgentToolChildRunner({ definition, store, clock });
    await runner.inspect("w");
    await drive(clock, async () => (await store.getRun("w"))?.status !== "running");
    expect(await runner.inspect("w")).toMatchObject({ status: "completed", summary: "Saved notes.md." });
    expect(saves).toEqual(["save-1"]);
    const [, answer] = await runner.getMessages("w");
    expect(answer?.parts.find((part) => part.type === "tool-saveFile")).toMatchObject({
      state: "output-available",
      output: { saved: "notes.md" },
      approval: { approved: true },
    });
  });

  it("a replay of a run whose approval was answered sends it answered from its first chunk: never shown pending", async () => {
    const saves: string[] = [];
    const clock = new ManualClock(1_000);
    const definition = writer(saves, [
      () => modelStream([{ type: "stream-start", warnings: [] }, SAVE_CALL, finish("tool-calls")]),
      () => modelStream([{ type: "stream-start", warnings: [] }, ...text("Saved notes.md."), finish("stop")]),
    ]);
    const { registry } = inMemoryRegistry([definition], clock);
    const result = registry.runAgentTool("Writer", { input: "save my notes", runId: "w" });
    let asked: string | undefined;
    await drive(clock, async () => {
      const frames: AgentToolEventFrame[] = [];
      await registry.replayAgentToolRuns((frame) => frames.push(frame));
      asked = frames
        .map((frame) => (frame.event.kind === "chunk" ? readApprovalChunk(frame.event.body) : null))
        .find(Boolean)?.approvalId;
      return asked !== undefined;
    });
    expect(await registry.answerApproval("w", asked ?? "", { approved: true })).toBe(true);
    await drive(clock, async () => (await registry.getAgentToolRun("w"))?.status === "completed");
    await result;

    const replayed: AgentToolEventFrame[] = [];
    await registry.replayAgentToolRuns((frame) => replayed.push(frame));
    const states = replayed.flatMap((frame) => {
      const approval = frame.event.kind === "chunk" ? readApprovalChunk(frame.event.body) : null;
      return approval ? [approval.status] : [];
    });
    // A client draws each frame as it comes: every approval frame of the replay says what the approval is now.
    expect(states.length).toBeGreaterThan(0);
    expect(states).toEqual(states.map(() => "approved"));
  });
});
