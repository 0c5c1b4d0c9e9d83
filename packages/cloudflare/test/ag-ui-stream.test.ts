// The parent's AG-UI stream (GET …/ag-ui), in workerd: a turn whose tool runs a child that streams, recorded over
// Server-Sent Events. A client that comes back with its last event id while the parent lives goes on exactly where it
// stopped (the two connections are one valid AG-UI stream); after a kill of workerd the position is gone, and the
// stream starts over with an empty MESSAGES_SNAPSHOT: @ag-ui/client's HttpAgent, given both, holds each message once.
import { HttpAgent } from "@ag-ui/client";
import { type BaseEvent, EventType } from "@ag-ui/core";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { ofType, SseRecording, verifyRecorded } from "./ag-ui-sse.js";
import { chatSend, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const startHost = hostWorkerPerTest("agent-tools-ag-ui-");
const BASE = "/agents/parent/ag-ui";

const subagentText = (events: BaseEvent[]) =>
  events.some((event) => event.type === EventType.TEXT_MESSAGE_CONTENT && "subagentRunId" in event);

/** Apply recorded SSE texts, one run after another, with @ag-ui/client's HttpAgent (its own parsing and reducer). */
async function applied(texts: string[]) {
  const agent = new HttpAgent({ url: "https://recorded.invalid/ag-ui" });
  for (const text of texts) {
    agent.fetch = async () => new Response(text, { headers: { "content-type": "text/event-stream" } });
    await agent.runAgent();
  }
  return agent.messages as Array<{ id: string; role: string; content?: unknown; subagentRunId?: string }>;
}

describe("GET …/ag-ui", () => {
  it("goes on exactly from its last event id while the parent lives, and starts over after a kill, each message held once", async () => {
    // The child says two words, then holds until cancelled: workerd is killed while it streams, however slow the
    // machine; after the restart, without the hold, the resumed child says its whole answer.
    const host = await startHost({ ECHO_HOLD_AFTER: "2", PARENT_WAKE_MS: "300" });
    const first = await SseRecording.open(host, `${BASE}/ag-ui`);
    const chat = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
    chat.send(chatSend("r1", "one two three four five six seven eight nine ten eleven twelve"));
    await first.waitFor(subagentText);
    // The client goes, and comes back with its last event id: nothing is sent twice, nothing is missing.
    first.close();
    const second = await SseRecording.open(host, `${BASE}/ag-ui`, { lastEventId: first.lastEventId ?? "" });
    const joined = await verifyRecorded([...first.delivered, ...second.delivered].join(""));
    expect(ofType(joined, EventType.RUN_STARTED)).toHaveLength(1);
    expect(ofType(joined, EventType.SUBAGENT_STARTED)).toHaveLength(1);

    // A kill: the position is gone with the process.
    await host.killAndRestart({ PARENT_WAKE_MS: "300" });
    chat.close();
    // The client's last id (the second connection, with nothing new, may have sent none).
    const lastEventId = second.lastEventId ?? first.lastEventId ?? "";
    const third = await SseRecording.open(host, `${BASE}/ag-ui`, { lastEventId });
    await third.waitFor((events) => events.some((event) => event.type === EventType.RUN_FINISHED), 60_000);
    const restarted = await verifyRecorded(third.delivered.join(""));
    expect(restarted.slice(0, 2)).toEqual([
      expect.objectContaining({ type: EventType.RUN_STARTED }),
      { type: EventType.MESSAGES_SNAPSHOT, messages: [] },
    ]);
    // Each sub-agent is started once and ended once in it, tied to a tool call of the answer.
    const subagents = ofType<BaseEvent & { subagentRunId: string; parentToolCallId: string }>(
      restarted,
      EventType.SUBAGENT_STARTED,
    );
    const ids = subagents.map((event) => event.subagentRunId);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    for (const subagent of subagents) {
      expect(subagent).toMatchObject({ name: "Echo", subagentRunId: `agent-tool:${subagent.parentToolCallId}` });
    }

    // What a client holds after both: the user's message once, the answer once, whole.
    const messages = await applied([[...first.delivered, ...second.delivered].join(""), third.delivered.join("")]);
    const parentOwn = messages.filter((message) => message.subagentRunId === undefined);
    expect(parentOwn.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "one two three four five six seven eight nine ten eleven twelve",
    ]);
    const answers = parentOwn.filter((message) => message.role === "assistant" && typeof message.content === "string");
    expect(answers).toHaveLength(1);
    expect(answers[0]?.content).toMatch(/^The echo said: #1 one two .* twelve$/);
    second.close();
    third.close();
  });

  it("answers with the parent's authorization only", async () => {
    const host = await startHost({ PARENT_KEY: "sesame" });
    expect((await host.fetch(`${BASE}/ag-ui`)).status).toBe(401);
    const response = await host.fetch(`${BASE}/ag-ui?follow=false`, { headers: { authorization: "Bearer sesame" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
});
