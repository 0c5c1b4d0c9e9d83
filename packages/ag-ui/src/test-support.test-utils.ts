import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  AGENT_TOOL_EVENT_TYPE,
  type AgentChatEventFrame,
  type AgentChatTurnStatus,
  type AgentToolEventFrame,
  type AgentToolUsage,
} from "@agent-tools/core-runs/protocol";
import { echoChild, InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";
import type { UIMessage, UIMessageChunk } from "ai";
import { from, lastValueFrom, toArray } from "rxjs";
import {
  AG_UI_DESCENDANT_TYPE,
  AG_UI_TURN_CHUNK_TYPE,
  type AgUiDescendantFrame,
  type AgUiSource,
  type AgUiTurnChunk,
} from "./sources.js";

export const turnStarted = (turnId: string): AgentChatEventFrame => ({
  type: AGENT_CHAT_EVENT_TYPE,
  event: { kind: "turn-started", turnId, origin: "client", resumed: false },
});

export const turnEnded = (
  turnId: string,
  status: AgentChatTurnStatus,
  text?: string,
  usage?: AgentToolUsage,
): AgentChatEventFrame => ({
  type: AGENT_CHAT_EVENT_TYPE,
  event: {
    kind: "turn-ended",
    turnId,
    status,
    ...(text !== undefined
      ? { message: { id: `answer-${turnId}`, role: "assistant", parts: [{ type: "text", text }] } }
      : {}),
    ...(usage !== undefined ? { usage } : {}),
  },
});

export const userMessage = (id: string, text: string): AgentChatEventFrame => ({
  type: AGENT_CHAT_EVENT_TYPE,
  event: { kind: "message", message: { id, role: "user", parts: [{ type: "text", text }] } satisfies UIMessage },
});

/** The chunks of turn `turnId`'s answer, numbered from `from`. */
export const answerChunks = (turnId: string, chunks: UIMessageChunk[], from = 0): AgUiTurnChunk[] =>
  chunks.map((chunk, index) => ({ type: AG_UI_TURN_CHUNK_TYPE, turnId, index: from + index, chunk }));

export const started = (runId: string, revision = 1, parentToolCallId?: string): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  revision,
  ...(parentToolCallId !== undefined ? { parentToolCallId } : {}),
  event: { kind: "started", runId, agentType: "Worker", displayOrder: 0 },
});

export const lifecycle = (event: AgentToolEventFrame["event"], revision: number): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  revision,
  event,
});

export const chunk = (runId: string, sequence: number, body: unknown): AgentToolEventFrame => ({
  type: AGENT_TOOL_EVENT_TYPE,
  sequence,
  event: { kind: "chunk", runId, body: body as never },
});

/** A frame of a run below the top level: `path` from the top-level run down to the run that dispatched it. */
export const below = (path: string[], frame: AgentToolEventFrame): AgUiDescendantFrame => ({
  type: AG_UI_DESCENDANT_TYPE,
  path,
  frame,
});

/** The frames of one child run that writes `text`, each numbered (a started frame, its chunks, its end). */
export function childRun(
  runId: string,
  options: { parentToolCallId?: string; text: string; agentType?: string; calls?: string[] },
): AgentToolEventFrame[] {
  const calls = options.calls ?? [];
  const bodies: unknown[] = [
    { type: "start" },
    { type: "start-step" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: options.text },
    { type: "text-end", id: "t" },
    ...calls.map((toolCallId) => ({ type: "tool-input-available", toolCallId, toolName: "work", input: {} })),
    ...calls.map((toolCallId) => ({ type: "tool-output-available", toolCallId, output: "done" })),
    { type: "finish-step" },
    { type: "finish" },
  ];
  return [
    {
      ...started(runId, 1, options.parentToolCallId),
      event: { kind: "started", runId, agentType: options.agentType ?? "Worker", displayOrder: 0 },
    },
    ...bodies.map((body, index) => chunk(runId, index + 1, body)),
    lifecycle({ kind: "finished", runId, summary: options.text }, 2),
  ];
}

/**
 * One turn of a parent, recorded as its event socket and a tab following the turn carry it: the user's message,
 * `turn-started`, the answer's tool call, the frames of an awaited run of a child that writes text and calls a tool,
 * the tool's result and the answer's text, `turn-ended`. `replay` is the registry's replay afterwards.
 */
export async function recordTurn(): Promise<{ sources: AgUiSource[]; replay: AgentToolEventFrame[] }> {
  const clock = new ManualClock(1_767_225_600_000);
  const researcher = echoChild("Researcher", {
    chunks: () => [
      { type: "start" },
      { type: "start-step" },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: "Cats sleep" },
      { type: "text-delta", id: "text-1", delta: " a lot." },
      { type: "text-end", id: "text-1" },
      { type: "tool-input-available", toolCallId: "lookup-1", toolName: "lookup", input: { q: "cats" } },
      { type: "tool-output-available", toolCallId: "lookup-1", output: { hours: 14 } },
      { type: "finish-step" },
      { type: "finish" },
    ],
  });
  const sources: AgUiSource[] = [
    userMessage("user-1", "tell me about cats"),
    turnStarted("turn-1"),
    ...answerChunks("turn-1", [
      { type: "start", messageId: "answer-1" },
      { type: "tool-input-available", toolCallId: "call-1", toolName: "research", input: { topic: "cats" } },
    ]),
  ];
  const registry = new AgentToolRegistry({
    store: new InMemoryRunStore(),
    transport: new InProcessChildTransport({ children: [researcher], clock }),
    clock,
    broadcast: (frame) => sources.push(frame),
  });
  await registry.runAgentTool(researcher, {
    input: "cats",
    runId: "agent-tool:call-1",
    parentToolCallId: "call-1",
    display: { name: "Researcher" },
  });
  sources.push(
    ...answerChunks(
      "turn-1",
      [
        { type: "tool-output-available", toolCallId: "call-1", output: "Cats sleep a lot." },
        { type: "text-start", id: "a" },
        { type: "text-delta", id: "a", delta: "According to my researcher: cats sleep a lot." },
        { type: "text-end", id: "a" },
        { type: "finish" },
      ],
      2,
    ),
    turnEnded("turn-1", "completed", "According to my researcher: cats sleep a lot."),
  );
  const replay: AgentToolEventFrame[] = [];
  await registry.replayAgentToolRuns((frame) => replay.push(frame));
  return { sources, replay };
}

/** Every event valid by `@ag-ui/core`'s schemas, and the whole stream accepted by `@ag-ui/client`'s `verifyEvents`. */
export async function checkAgUiStream(events: BaseEvent[]): Promise<void> {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) throw new Error(`invalid ${event.type}: ${parsed.error.message}\n${JSON.stringify(event)}`);
  }
  const verified = await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
  if (verified.length !== events.length) throw new Error(`verifyEvents passed ${verified.length} of ${events.length}`);
}
