// The demo's approval prompt over AG-UI (issue 34): "write this down: buy milk" followed on the Assistant's AG-UI
// stream. workerd is killed while the Writer's save waits for approval; after the restart the client comes back with
// its last event id (the position went with the process: the stream starts over), and a front end on @ag-ui/client's
// HttpAgent answers the approval with a resume. Every event recorded validates by @ag-ui/core's schemas, each
// connection as a whole by @ag-ui/client's own parsing and verification, and applied in order they hold the
// conversation once: the user's message, the tree down to the Writer, the save, the answer.
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { SseRecording } from "@agent-tools/workerd-harness/sse-client";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { chatSendRequest, demoHostPerFile, demoWsUrl } from "./harness/demo.js";

type Event = BaseEvent & {
  outcome?: { type?: string };
  name?: string;
  parentSubagentRunId?: string;
  usage?: Array<{ model?: string; totalTokens?: number }>;
};
type Message = { id: string; role: string; content?: unknown; subagentRunId?: string };

const interrupted = (events: Event[]) =>
  events.some((event) => event.type === "RUN_FINISHED" && event.outcome?.type === "interrupt");

describe("the demo's approval prompt on AG-UI", () => {
  const demoHost = demoHostPerFile({ DEMO_PACE_MS: "0" });

  it("recorded across a kill, with the approval answered after the restart through HttpAgent, validates event by event", async () => {
    const host = demoHost();
    const base = "/agents/assistant/ag-ui-demo";
    const first = await SseRecording.open<Event>(host, `${base}/ag-ui`);
    const chat = await RecordingSocket.open(demoWsUrl(host, `${base}/chat`));
    chat.send(chatSendRequest("write this down: buy milk", "ag-ui-demo"));
    // The Writer asks: the AG-UI run ends on the approval, the Writer and the Editor suspended.
    await first.waitFor(interrupted);
    chat.close();
    await host.killAndRestart();

    // The client comes back with its last event id; once the Assistant has re-attached, the approval is shown again.
    const second = await SseRecording.open<Event>(host, `${base}/ag-ui`, { lastEventId: first.lastEventId ?? "" });
    await second.waitFor(interrupted);

    // A front end on @ag-ui/client: the conversation so far ends on the interrupt; it approves with a resume.
    const agent = new HttpAgent({ url: new URL(`${base}/ag-ui?follow=false`, host.url).toString() });
    await agent.runAgent();
    const [interrupt] = agent.pendingInterrupts as [Interrupt];
    expect(interrupt).toMatchObject({
      reason: "tool_approval",
      metadata: { toolName: "saveFile", input: { path: "notes.md", content: "buy milk" } },
    });
    await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] });
    expect(agent.pendingInterrupts).toEqual([]);

    // The followed stream goes on to the turn's end.
    const finished = (events: Event[]) => {
      const ends = events.filter((event) => event.type === "RUN_FINISHED");
      return ends.length > 1 && ends.at(-1)?.outcome === undefined;
    };
    await second.waitFor(finished, 60_000);
    second.close();

    const recorded = [first, second];
    for (const event of recorded.flatMap((recording) => recording.events)) {
      expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
    }
    // Each connection through @ag-ui/client's own parsing and verification, in order, into one client's messages.
    const client = new HttpAgent({ url: "https://recorded.invalid/ag-ui" });
    for (const recording of recorded) {
      const text = recording.delivered.join("");
      client.fetch = async () => new Response(text, { headers: { "content-type": "text/event-stream" } });
      // A reconnect, not a run of its own: the interrupt the first connection ended on is restated by the second.
      client.pendingInterrupts = [];
      await client.runAgent();
    }
    const messages = client.messages as Message[];
    const parentOwn = messages.filter((message) => message.subagentRunId === undefined);
    expect(parentOwn.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "write this down: buy milk",
    ]);
    const said = parentOwn.filter((message) => message.role === "assistant").map((message) => message.content);
    expect(said.join("\n")).toContain("Saved notes.md (8 bytes)");
    // The turn's usage on its runs' ends, by model: the calls made before the approval, then those after it.
    for (const end of second.events.filter((event) => event.type === "RUN_FINISHED").slice(-2)) {
      expect(end.usage?.length).toBeGreaterThan(0);
      for (const entry of end.usage ?? []) {
        expect(entry).toMatchObject({ model: expect.any(String), totalTokens: expect.any(Number) });
        expect(entry.totalTokens).toBeGreaterThan(0);
      }
    }
    // The tree, every level: the Editor, and the Writer under it.
    const names = second.events.filter((event) => event.type === "SUBAGENT_STARTED").map((event) => event.name);
    expect(new Set(names)).toEqual(new Set(["Editor", "Writer"]));
    const writer = second.events.find((event) => event.type === "SUBAGENT_STARTED" && event.name === "Writer");
    expect(writer?.parentSubagentRunId).toBeDefined();
  });
});
