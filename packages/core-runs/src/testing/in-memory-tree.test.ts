import { convertToModelMessages, isStepCount, streamText, tool, toUIMessageStream } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTool } from "../agent-tool.js";
import type { AgentToolApproval } from "../protocol/index.js";
import { conversationModel } from "./conversation-model.js";
import { deferred } from "./deferred.js";
import { inMemoryTree, type TreeAgent } from "./in-memory-tree.js";
import { ManualClock } from "./manual-clock.js";

const HOUR = 60 * 60 * 1_000;

/** A leaf that asks to `save` (a tool that needs approval), then says how it went. */
const writer: TreeAgent = {
  agentType: "Writer",
  define: () => ({
    getTools: () => ({
      save: tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => "saved" }),
    }),
    turn: async ({ tools, abortSignal, messages }) =>
      toUIMessageStream({
        stream: streamText({
          model: conversationModel(({ lastToolResults }) =>
            lastToolResults
              ? `save: ${lastToolResults.get("save") ?? "not run"}`
              : { calls: [{ toolName: "save", input: {} }] },
          ),
          messages: await convertToModelMessages(messages, { tools }),
          tools,
          stopWhen: isStepCount(3),
          abortSignal,
        }).stream,
        tools,
      }),
  }),
};

/** A middle that dispatches the Writer once, then reports what it said. */
function middle(options: { children: boolean }): TreeAgent {
  return {
    agentType: "Middle",
    ...(options.children ? { children: ["Writer"] } : {}),
    define: ({ registry }) => ({
      getTools: () => ({ write: agentTool(registry, "Writer", { description: "write", inputSchema: z.string() }) }),
      turn: ({ tools, abortSignal }) =>
        toUIMessageStream({
          stream: streamText({
            model: conversationModel(({ lastToolResults }) =>
              lastToolResults ? String(lastToolResults.get("write")) : { calls: [{ toolName: "write", input: "go" }] },
            ),
            prompt: "go",
            tools,
            stopWhen: isStepCount(3),
            abortSignal,
          }).stream,
          tools,
        }),
    }),
  };
}

describe("inMemoryTree", () => {
  it("an agent that dispatches without declaring its children ends its run with an error that says so", async () => {
    const { registry, settle } = inMemoryTree([middle({ children: false }), writer], new ManualClock(0));
    const result = await settle(registry.runAgentTool("Middle", { input: "go", runId: "m" }));
    expect(result).toMatchObject({ ok: false, status: "error" });
    expect(result.ok ? "" : result.error).toContain("Middle reads its registry but declares no `children`");
  });

  it("finds a grandchild's runner, whose expired approval reaches the top and the run goes on", async () => {
    const clock = new ManualClock(0);
    const approvals: AgentToolApproval[] = [];
    const asked = deferred();
    const { registry, settle, runnerFor } = inMemoryTree([middle({ children: true }), writer], clock, {
      hooks: {
        onApproval: (_run, approval) => {
          approvals.push(approval);
          asked.resolve();
        },
      },
    });
    const result = registry.runAgentTool("Middle", { input: "go", runId: "m" });
    await settle(asked.promise);
    expect(approvals.map((approval) => approval.status)).toEqual(["pending"]);

    const writerRunner = runnerFor({ agentType: "Writer", runId: "agent-tool:call-1" });
    expect(writerRunner).toBeDefined();
    await clock.advanceBy(HOUR);
    expect(await writerRunner?.expireApprovals(HOUR)).toBe(1);
    expect(await settle(result)).toMatchObject({ ok: true, summary: "save: not run" });
    expect(approvals.map((approval) => approval.status)).toEqual(["pending", "expired"]);
  });

  it("settle says so when the tree waits for something that never comes", async () => {
    const { registry, settle } = inMemoryTree([middle({ children: true }), writer], new ManualClock(0));
    await expect(settle(registry.runAgentTool("Middle", { input: "go", runId: "m" }), 100)).rejects.toThrow(
      "the tree did not settle in 100 rounds",
    );
  });
});
