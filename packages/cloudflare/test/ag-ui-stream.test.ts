// The parent's AG-UI stream (GET …/ag-ui, issue 26), in workerd: a turn whose tool runs a child that streams, recorded
// over Server-Sent Events across a kill of workerd (the client reconnecting with the last event id, as an EventSource
// does), is one valid AG-UI stream by @ag-ui/core's schemas and @ag-ui/client's own parsing and verification: one
// RUN_STARTED and one SUBAGENT_STARTED, the child's events stamped with its run, then its end and the turn's.
import { transformHttpEventStream, verifyEvents } from "@ag-ui/client";
import { type BaseEvent, EventType } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { chatSend, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const startHost = hostWorkerPerTest("agent-tools-ag-ui-");
const BASE = "/agents/parent/ag-ui";

/** One SSE connection, read as it comes: its complete events (`data:` parsed) and the id each batch ended with. */
class SseRecording {
  /** The raw text of every complete event block, up to and including the last one that carried an id. */
  readonly delivered: string[] = [];
  readonly events: BaseEvent[] = [];
  lastEventId: string | null = null;
  readonly #pending: string[] = [];
  #waiters: Array<() => void> = [];

  private constructor(body: ReadableStream<Uint8Array>) {
    void this.#read(body);
  }

  static async open(host: MiniflareHost, lastEventId?: string): Promise<SseRecording> {
    const response = await host.fetch(`${BASE}/ag-ui`, {
      headers: lastEventId ? { "Last-Event-ID": lastEventId } : {},
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    return new SseRecording(response.body as unknown as ReadableStream<Uint8Array>);
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(bytes, { stream: true });
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop() ?? "";
        for (const block of blocks) this.#block(block);
      }
    } catch {
      // the connection died with workerd
    }
  }

  #block(block: string): void {
    this.#pending.push(`${block}\n\n`);
    const id = /^id: (.*)$/m.exec(block)?.[1];
    if (id === undefined) return;
    // A batch is delivered once its id came: the events before an id the client never got are sent again.
    for (const text of this.#pending.splice(0)) {
      this.delivered.push(text);
      this.events.push(JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "null") as BaseEvent);
    }
    this.lastEventId = id;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async waitFor(predicate: (events: BaseEvent[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = AbortSignal.timeout(timeoutMs);
    while (!predicate(this.events)) {
      if (deadline.aborted) throw new Error(`timed out; got ${this.events.map((event) => event.type).join(", ")}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        deadline.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}

/** The recorded SSE text through @ag-ui/client's own SSE parsing and event verification, and every event through the schemas. */
async function verifyRecorded(sse: string): Promise<BaseEvent[]> {
  const bytes = new TextEncoder().encode(sse);
  const parsed = await lastValueFrom(
    // Emitted asynchronously, as a response body is (the client's parser drops what a synchronous source emits).
    transformHttpEventStream(
      from(
        (async function* () {
          yield { type: "headers", status: 200, headers: new Headers({ "content-type": "text/event-stream" }) };
          yield { type: "data", data: bytes };
        })() as never,
      ),
    ).pipe(verifyEvents(false), toArray()),
  );
  for (const event of parsed) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  return parsed;
}

const count = (events: BaseEvent[], type: EventType) => events.filter((event) => event.type === type).length;
const subagentText = (events: BaseEvent[]) =>
  events.some((event) => event.type === EventType.TEXT_MESSAGE_CONTENT && "subagentRunId" in event);

describe("GET …/ag-ui", () => {
  it("streams a turn and its sub-agent as AG-UI events that verify, across a kill of workerd", async () => {
    // The child says two words, then holds until cancelled: workerd is killed while it streams, however slow the
    // machine; after the restart, without the hold, the resumed child says its whole answer.
    const host = await startHost({ ECHO_HOLD_AFTER: "2", PARENT_WAKE_MS: "300" });
    const first = await SseRecording.open(host);
    const chat = await RecordingSocket.open(wsUrl(host, `${BASE}/chat`));
    chat.send(chatSend("r1", "one two three four five six seven eight nine ten eleven twelve"));
    // The child is streaming its answer: kill workerd in the middle of it.
    await first.waitFor(subagentText);
    await host.killAndRestart({ PARENT_WAKE_MS: "300" });
    chat.close();

    const second = await SseRecording.open(host, first.lastEventId ?? undefined);
    await second.waitFor((events) => events.some((event) => event.type === EventType.RUN_FINISHED), 60_000);
    const events = await verifyRecorded([...first.delivered, ...second.delivered].join(""));

    expect(count(events, EventType.RUN_STARTED)).toBe(1);
    expect(count(events, EventType.RUN_FINISHED)).toBe(1);
    // Each sub-agent is started once and ended once, whatever the kill cut (the resumed turn may call its tool again:
    // a run of its own, with a tool call id of its own), and is tied to a tool call of the answer.
    type Subagent = BaseEvent & { subagentRunId: string; name: string; parentToolCallId: string };
    const subagents = events.filter((event) => event.type === EventType.SUBAGENT_STARTED) as Subagent[];
    const ids = subagents.map((event) => event.subagentRunId);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    const finished = events.filter((event) => event.type === EventType.SUBAGENT_FINISHED) as Subagent[];
    expect(finished.map((event) => event.subagentRunId)).toEqual(ids);
    const calls = events.filter((event) => event.type === EventType.TOOL_CALL_START) as Array<
      BaseEvent & { toolCallId: string }
    >;
    for (const subagent of subagents) {
      expect(subagent).toMatchObject({ name: "Echo", subagentRunId: `agent-tool:${subagent.parentToolCallId}` });
      expect(calls.map((call) => call.toolCallId)).toContain(subagent.parentToolCallId);
    }
    const started = subagents[0] as Subagent;
    // The child's text is stamped with its run; the turn's answer (the parent's own) is not.
    const texts = events.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT) as Array<
      BaseEvent & { subagentRunId?: string; delta: string }
    >;
    expect(texts.filter((event) => event.subagentRunId === started.subagentRunId).length).toBeGreaterThan(1);
    expect(texts.at(-1)?.subagentRunId).toBeUndefined();
    expect(texts.at(-1)?.delta).toContain("twelve");
  });

  it("answers with the parent's authorization only", async () => {
    const host = await startHost({ PARENT_KEY: "sesame" });
    expect((await host.fetch(`${BASE}/ag-ui`)).status).toBe(401);
    const response = await host.fetch(`${BASE}/ag-ui?follow=false`, { headers: { authorization: "Bearer sesame" } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
});
