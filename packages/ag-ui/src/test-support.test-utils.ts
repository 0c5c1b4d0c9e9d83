import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { AgentToolRegistry } from "@agent-tools/core-runs";
import {
  AGENT_CHAT_EVENT_TYPE,
  type AgentChatEventFrame,
  type AgentChatTurnStatus,
  type AgentToolEventFrame,
} from "@agent-tools/core-runs/protocol";
import { echoChild, InMemoryRunStore, InProcessChildTransport, ManualClock } from "@agent-tools/core-runs/testing";
import { from, lastValueFrom, toArray } from "rxjs";
import type { AgUiSource } from "./projection.js";

export const turnStarted = (turnId: string): AgentChatEventFrame => ({
  type: AGENT_CHAT_EVENT_TYPE,
  event: { kind: "turn-started", turnId, origin: "client", resumed: false },
});

export const turnEnded = (turnId: string, status: AgentChatTurnStatus, text?: string): AgentChatEventFrame => ({
  type: AGENT_CHAT_EVENT_TYPE,
  event: {
    kind: "turn-ended",
    turnId,
    status,
    ...(text !== undefined
      ? { message: { id: `answer-${turnId}`, role: "assistant", parts: [{ type: "text", text }] } }
      : {}),
  },
});

/**
 * One turn of a parent, recorded as its event socket carries it: `turn-started`, the frames of an awaited run of a
 * child that writes text and calls a tool, `turn-ended` with the answer. `replay` is the registry's replay afterwards.
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
  const sources: AgUiSource[] = [turnStarted("turn-1")];
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
  sources.push(turnEnded("turn-1", "completed", "According to my researcher: cats sleep a lot."));
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
