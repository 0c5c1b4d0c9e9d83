// The parent's AG-UI stream, complete (issue 34): every level of the tree, approvals as interrupts, the conversation
// itself, and event ids of constant size. Each stream is checked event by event with @ag-ui/core's schemas and as a
// whole with @ag-ui/client's verifyEvents.
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent, Interrupt } from "@ag-ui/core";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it, vi } from "vitest";
import { ofType, SseRecording, verified } from "./ag-ui-sse.js";
import { approvalsIn, askUntilApproval, chatSend, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

const startHost = hostWorkerPerTest("agent-tools-ag-ui-complete-");

type Message = { role: string; parts: Array<{ type: string; text?: string }> };
type Subagent = BaseEvent & {
  subagentRunId: string;
  name: string;
  parentSubagentRunId?: string;
  parentToolCallId?: string;
};
type Finished = BaseEvent & { subagentRunId: string; outcome?: { type: string; interruptIds?: string[] } };
type RunFinished = BaseEvent & {
  runId: string;
  outcome?: { type: string; interrupts?: Array<{ id: string; subagentRunId?: string; toolCallId?: string }> };
};

/** Send `text` on the chat socket of parent `name`; resolves once its answer is stored. */
async function chatAndWait(host: MiniflareHost, name: string, text: string): Promise<void> {
  const chat = await RecordingSocket.open(wsUrl(host, `/agents/parent/${name}/chat`));
  chat.send(chatSend("r1", text));
  const answered = async () => {
    const last = (await host.fetchJson<Message[]>(`/agents/parent/${name}/messages`)).at(-1);
    return last?.role === "assistant" && last.parts.some((part) => part.type === "text");
  };
  await expect.poll(answered, { timeout: 30_000 }).toBe(true);
  chat.close();
}

describe("the AG-UI stream, complete", () => {
  it("projects every level of the tree: grandchildren under their parent sub-agent", async () => {
    const host = await startHost({ PARENT_TOOL: "delegate" });
    await chatAndWait(host, "tree", "one two three");
    const replay = await SseRecording.read(host, "/agents/parent/tree/ag-ui?follow=false");
    const events = await verified(replay);
    const started = ofType<Subagent>(events, "SUBAGENT_STARTED");
    const middle = started.find((event) => event.name === "Middle");
    expect(middle).toBeDefined();
    const leaves = started.filter((event) => event.name === "Echo");
    expect(leaves).toHaveLength(3);
    for (const leaf of leaves) {
      expect(leaf.parentSubagentRunId).toBe(middle?.subagentRunId);
      // Tied to the Middle's own tool call, which came first in the stream.
      const call = events.findIndex(
        (event) =>
          event.type === "TOOL_CALL_START" && (event as { toolCallId?: string }).toolCallId === leaf.parentToolCallId,
      );
      expect(call).toBeGreaterThanOrEqual(0);
      expect(call).toBeLessThan(events.indexOf(leaf));
    }
    // Each grandchild's answer, stamped with its own run.
    const texts = ofType<BaseEvent & { subagentRunId?: string; delta: string }>(events, "TEXT_MESSAGE_CONTENT");
    for (const leaf of leaves) {
      expect(texts.some((text) => text.subagentRunId === leaf.subagentRunId)).toBe(true);
    }
  });

  it("shows an approval asked three levels down as an interrupt: the asker and its ancestors suspended, the run interrupted", async () => {
    const host = await startHost({ PARENT_TOOL: "relay" });
    const base = "/agents/parent/approvals";
    const { events, chat, asked } = await askUntilApproval(host, base, "hello");

    const stream = await verified(await SseRecording.read(host, `${base}/ag-ui?follow=false`));
    const started = ofType<Subagent>(stream, "SUBAGENT_STARTED");
    expect(started.map((event) => event.name)).toEqual(["Relay", "Relay", "Writer"]);
    const [top, middle, writer] = started as [Subagent, Subagent, Subagent];
    expect(middle.parentSubagentRunId).toBe(top.subagentRunId);
    expect(writer.parentSubagentRunId).toBe(middle.subagentRunId);
    const last = stream.at(-1) as RunFinished;
    expect(last.type).toBe("RUN_FINISHED");
    expect(last.outcome?.type).toBe("interrupt");
    const [interrupt] = last.outcome?.interrupts ?? [];
    expect(interrupt).toMatchObject({ subagentRunId: writer.subagentRunId, reason: "tool_approval" });
    expect(interrupt?.toolCallId).toBe(`${writer.subagentRunId}/${asked?.toolCallId}`);
    const finished = ofType<Finished>(stream, "SUBAGENT_FINISHED");
    expect(finished.find((event) => event.subagentRunId === writer.subagentRunId)?.outcome).toEqual({
      type: "suspended",
      interruptIds: [interrupt?.id],
    });
    for (const ancestor of [top, middle]) {
      expect(finished.find((event) => event.subagentRunId === ancestor.subagentRunId)?.outcome?.type).toBe("suspended");
    }
    events.close();
    chat.close();
  });

  it("replays the conversation itself: the user's message, the parent's tool call before the sub-agent it started, the answer", async () => {
    const host = await startHost();
    const live = await SseRecording.open(host, "/agents/parent/talk/ag-ui");
    await chatAndWait(host, "talk", "hello there");
    await live.waitFor((events) => events.some((event) => event.type === "RUN_FINISHED"));
    const replay = await SseRecording.read(host, "/agents/parent/talk/ag-ui?follow=false");
    for (const events of [await verified(live), await verified(replay)]) {
      const user = ofType<BaseEvent & { messageId: string; role: string }>(events, "TEXT_MESSAGE_START").find(
        (event) => event.role === "user",
      );
      expect(user).toBeDefined();
      const contents = ofType<BaseEvent & { messageId: string; delta: string; subagentRunId?: string }>(
        events,
        "TEXT_MESSAGE_CONTENT",
      );
      expect(
        contents
          .filter((event) => event.messageId === user?.messageId)
          .map((event) => event.delta)
          .join(""),
      ).toBe("hello there");
      const [subagent] = ofType<Subagent>(events, "SUBAGENT_STARTED");
      const call = events.findIndex(
        (event) =>
          event.type === "TOOL_CALL_START" &&
          (event as { toolCallId?: string }).toolCallId === subagent?.parentToolCallId,
      );
      expect(call).toBeGreaterThan(events.indexOf(user as BaseEvent));
      expect(call).toBeLessThan(events.indexOf(subagent as BaseEvent));
      const answer = contents.filter(
        (event) => event.subagentRunId === undefined && event.messageId !== user?.messageId,
      );
      expect(answer.map((event) => event.delta).join("")).toContain("The echo said: #1 hello there");
    }
    live.waitForEnd(0).catch(() => undefined);
  });

  it("sends ids of constant size: a replay's bytes grow with what it carries, and a forged cursor costs no more than a full replay", async () => {
    const host = await startHost();
    const base = "/agents/parent/many";
    const startRuns = async (from: number, count: number) => {
      for (let index = from; index < from + count; index += 1) {
        await host.fetch(`${base}/test/start?runId=run-${index}&text=word${index}`, { method: "POST" });
      }
      const done = async () =>
        (await host.fetchJson<Array<{ status: string }>>(`${base}/runs`)).filter((run) => run.status === "completed")
          .length;
      await expect.poll(done, { timeout: 60_000 }).toBe(from + count);
    };
    await startRuns(0, 20);
    const twenty = await SseRecording.read(host, `${base}/ag-ui?follow=false`);
    await startRuns(20, 20);
    const forty = await SseRecording.read(host, `${base}/ag-ui?follow=false`);
    await verified(forty);
    expect(ofType(forty.events, "SUBAGENT_STARTED")).toHaveLength(40);
    // Ids: a position, the same size whatever the parent holds.
    const longest = Math.max(...[...twenty.ids, ...forty.ids].map((id) => id.length));
    expect(longest).toBeLessThanOrEqual(64);
    // Twice the runs, about twice the bytes (not four times).
    expect(forty.bytes / twenty.bytes).toBeLessThan(2.2);
    // A cursor naming 300 runs that never were, and one that is not a cursor at all: no more than a full replay.
    const forgedState = {
      threadId: "many",
      segment: null,
      endedTurns: [],
      lanes: Array.from({ length: 300 }, (_, index) => ({
        runId: `forged-${index}`,
        name: "Echo",
        status: "live",
        revision: 1,
        sequence: 0,
        texts: [],
        reasoning: [],
        tools: [],
        steps: 0,
      })),
    };
    const forged = `agui1.${Buffer.from(JSON.stringify(forgedState)).toString("base64url")}`;
    for (const cursor of [forged, "agui2.not-a-stream.7", "garbage"]) {
      const resumed = await SseRecording.read(host, `${base}/ag-ui?follow=false`, { lastEventId: cursor });
      expect(resumed.bytes).toBeLessThanOrEqual(forty.bytes + 1_024);
      await verified(resumed);
    }
  });

  it("answers an approval through HttpAgent after a restart: an interrupt, then a run whose resume reaches the same durable approval, once", async () => {
    const host = await startHost({ PARENT_TOOL: "relay" });
    const base = "/agents/parent/resume";
    const { events, chat } = await askUntilApproval(host, base, "hello");
    events.close();
    chat.close();
    await host.killAndRestart();
    // The parent is back (it re-attached to its run: the request is shown again).
    const after = await RecordingSocket.open(wsUrl(host, base));
    await after.waitFor((messages) => approvalsIn(messages).length > 0, 30_000);
    after.close();

    // A front end on @ag-ui/client: the conversation so far, which ends on the approval.
    const agent = new HttpAgent({ url: new URL(`${base}/ag-ui?follow=false`, host.url).toString() });
    const seen: BaseEvent[] = [];
    const record = { onEvent: ({ event }: { event: BaseEvent }) => void seen.push(event) };
    await agent.runAgent({}, record);
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [interrupt] = agent.pendingInterrupts as [Interrupt];
    expect(interrupt).toMatchObject({ reason: "tool_approval", message: "write needs approval" });
    expect(interrupt.subagentRunId?.split("/")).toHaveLength(3);
    const answer = (payload: unknown) => [{ interruptId: interrupt.id, status: "resolved" as const, payload }];
    const counts = () => host.fetchJson<Record<string, number>>("/probe/counts");

    // A bad answer is refused as the approve route refuses it, and changes nothing.
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(agent.runAgent({ resume: answer({ approved: "yes" }) })).rejects.toThrow(/400.*approved must be/);
    errors.mockRestore();
    expect((await counts())["writer-write"]).toBeUndefined();

    // Approved: the run the client starts is what follows, to the turn's end.
    seen.length = 0;
    await agent.runAgent({ runId: "resume-1", resume: answer({ approved: true }) }, record);
    expect(seen[0]).toMatchObject({ type: "RUN_STARTED", runId: "resume-1" });
    expect(seen.at(-1)).toEqual(expect.objectContaining({ type: "RUN_FINISHED", runId: "resume-1" }));
    expect((seen.at(-1) as { outcome?: unknown }).outcome).toBeUndefined();
    expect(agent.pendingInterrupts).toEqual([]);
    const texts = (agent.messages as Array<{ role: string; content?: unknown; subagentRunId?: string }>).filter(
      (message) => message.role === "assistant" && message.subagentRunId === undefined,
    );
    expect(texts.map((message) => message.content).join(" ")).toContain("wrote hello");
    expect((await counts())["writer-write"]).toBe(1);

    // Once: the same answer again reaches an approval already answered, and starts nothing.
    seen.length = 0;
    agent.pendingInterrupts = [interrupt];
    await agent.runAgent({ runId: "resume-2", resume: answer({ approved: true }) }, record);
    expect(seen.map((event) => event.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect((await counts())["writer-write"]).toBe(1);
    const runs = await host.fetchJson<Array<{ status: string }>>(`${base}/runs`);
    expect(runs.map((run) => run.status)).toEqual(["completed"]);
  });

  it("ends the AG-UI run cancelled when the turn is stopped while an approval waits: the tree aborted, nothing pending", async () => {
    const host = await startHost({ PARENT_TOOL: "relay" });
    const base = "/agents/parent/stopping";
    const live = await SseRecording.open(host, `${base}/ag-ui`);
    const { events, chat } = await askUntilApproval(host, base, "hello");
    const lastEnd = (recorded: BaseEvent[]) => recorded.filter((event) => event.type === "RUN_FINISHED").at(-1);
    await live.waitFor((recorded) => (lastEnd(recorded) as RunFinished | undefined)?.outcome?.type === "interrupt");
    const turnId = (events.messages as Array<{ type: string; event?: { kind: string; turnId?: string } }>).find(
      (frame) => frame.type === "agent-chat-event" && frame.event?.kind === "turn-started",
    )?.event?.turnId;
    expect(await host.fetchJson(`${base}/chat/stop/${turnId}`, { method: "POST" })).toEqual({ stopped: true });
    // The turn's run ends cancelled; every run of its tree ends aborted (as the cascade reaches it: in that run, or
    // in one after it), and nothing is left waiting.
    const aborted = (recorded: BaseEvent[]) =>
      ofType<BaseEvent & { code?: string }>(recorded, "SUBAGENT_ERROR").filter((event) => event.code === "aborted");
    await live.waitFor((recorded) => aborted(recorded).length === 3);
    const stream = await verified(live);
    const ends = ofType<RunFinished>(stream, "RUN_FINISHED");
    expect(ends.find((end) => end.runId === `${turnId}:1`)?.outcome).toEqual({ type: "cancelled" });
    expect(ends.at(-1)?.outcome?.type).not.toBe("interrupt");
    expect(new Set(aborted(stream).map((event) => (event as { subagentRunId?: string }).subagentRunId)).size).toBe(3);
    live.close();
    events.close();
    chat.close();
  });

  it("refuses a stream past the parent's cap of open AG-UI streams, clearly, and serves one again once a stream closed", async () => {
    // The harness's `enable_request_signal` flag: a client that leaves aborts its request, and its place is freed.
    const host = await startHost({ PARENT_AG_UI_MAX_STREAMS: "2" });
    const path = "/agents/parent/capped/ag-ui";
    const open = [await SseRecording.open(host, path), await SseRecording.open(host, path)];
    const refused = await host.fetch(path);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: "Too many AG-UI streams are open on this agent (2): close one, or try again later",
      code: "LIMIT_EXCEEDED",
    });
    open[0]?.close();
    await expect.poll(async () => (await host.fetch(`${path}?follow=false`)).status, { timeout: 30_000 }).toBe(200);
    open[1]?.close();
  });
});
