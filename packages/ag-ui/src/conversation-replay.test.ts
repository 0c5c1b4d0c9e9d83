import { EventType, type RunStartedEvent } from "@ag-ui/core";
import type { AgentToolEventFrame, AgentToolRunInfo } from "@agent-tools/core-runs/protocol";
import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { conversationReplay } from "./conversation-replay.js";
import { AgUiProjection } from "./projection.js";
import { checkAgUiStream, childRun } from "./test-support.test-utils.js";

const user = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const answer = (id: string, text: string, call?: string): UIMessage => ({
  id,
  role: "assistant",
  parts: [
    ...(call
      ? [
          {
            type: "tool-research",
            toolCallId: call,
            state: "output-available",
            input: { topic: "cats" },
            output: "cats sleep",
          } as never,
        ]
      : []),
    { type: "text", text },
  ],
});
const run = (runId: string, parentToolCallId?: string, rootId?: string): AgentToolRunInfo => ({
  runId,
  agentType: "Worker",
  displayOrder: 0,
  status: "completed",
  revision: 2,
  startedAt: 1,
  ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
  ...(rootId !== undefined ? { tree: { rootId, ancestors: [] } } : {}),
});

describe("conversationReplay", () => {
  const messages = [user("u1", "research cats"), answer("a1", "Cats sleep.", "call-1"), user("u2", "thanks")];
  const frames = new Map<string, AgentToolEventFrame[]>([
    ["run-1", childRun("run-1", { parentToolCallId: "call-1", text: "cats sleep" })],
    ["bg", childRun("bg", { text: "from code" })],
    ["live", childRun("live", { parentToolCallId: "call-9", text: "still going" }).slice(0, 3)],
  ]);
  const runs = [
    run("run-1", "call-1", "turn:t1"),
    run("bg"),
    { ...run("live", "call-9", "turn:t2"), status: "running" },
  ];

  it("tells each turn in order: what was said, its runs after its tool call, its answer; the turn in flight last", async () => {
    const sources = conversationReplay({
      messages,
      from: 0,
      runs: runs as AgentToolRunInfo[],
      frames,
      activeTurn: { turnId: "t2", rootId: "turn:t2" },
    });
    const projection = new AgUiProjection({ threadId: "thread", followsAnswer: true });
    const events = [...sources.flatMap((source) => projection.push(source)), ...projection.close()];
    await checkAgUiStream(events);
    const started = events.filter((event) => event.type === EventType.RUN_STARTED) as RunStartedEvent[];
    // The run dispatched from code first, on its own; then the answered turn; then the turn in flight.
    expect(started.map((event) => event.runId)).toEqual(["agent-tools:bg", "a1", "t2"]);
    const order = events.flatMap((event) => {
      const { type, messageId, toolCallId, subagentRunId, role } = event as Record<string, string | undefined>;
      if (type === EventType.TEXT_MESSAGE_START && role === "user") return [`user ${messageId}`];
      if (type === EventType.TOOL_CALL_START && subagentRunId === undefined) return [`call ${toolCallId}`];
      if (type === EventType.SUBAGENT_STARTED) return [`run ${subagentRunId}`];
      if (type === EventType.TOOL_CALL_RESULT && subagentRunId === undefined) return [`result ${toolCallId}`];
      return [];
    });
    expect(order).toEqual(["run bg", "user u1", "call call-1", "run run-1", "result call-1", "user u2", "run live"]);
  });

  it("leaves out the turns a client holds (their runs' frames come, outside any turn, for it to drop)", () => {
    const sources = conversationReplay({
      messages,
      from: 2,
      runs: runs as AgentToolRunInfo[],
      frames,
      activeTurn: null,
    });
    const kinds = sources.map((source) =>
      source.type === "agent-chat-event"
        ? source.event.kind
        : `${source.event.kind} ${"runId" in source.event ? source.event.runId : ""}`,
    );
    expect(kinds.filter((kind) => kind.startsWith("turn-"))).toEqual([]);
    expect(kinds).toContain("message");
    expect(kinds).toContain("started run-1");
  });
});
