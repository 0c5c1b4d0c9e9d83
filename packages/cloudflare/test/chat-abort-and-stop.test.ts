// Who may stop the conversation's turn in flight. The AI SDK's chat aborts a resume it no longer needs by itself (a
// newer `resumeStream()`, a chat disposed, `useChat({ resume: true })` mounting twice under React StrictMode on a page
// reloaded mid-turn), so an abort of a resume only stops that tab following the turn; the abort of the `send` that
// started it is the sender's Stop; any tab stops it with `POST …/chat/stop/<turnId>`, which never stops a later turn.
import type { AgentChatEventFrame } from "@agent-tools/core-runs/protocol";
import type { MiniflareHost } from "@agent-tools/workerd-harness/miniflare-host";
import { RecordingSocket } from "@agent-tools/workerd-harness/ws-client";
import { describe, expect, it } from "vitest";
import { chatSend, hostWorkerPerTest, wsUrl } from "./host-worker-harness.js";

type ChatFrame = { type: string; requestId?: string };

// The Echo child says two words of its answer, then holds until its run is cancelled (a Stop) or the test releases it
// (`POST /test/echo-release`): the turn is in flight whenever the test acts, however slow the machine.
const startHost = hostWorkerPerTest("agent-tools-cloudflare-stop-");
const start = () => startHost({ ECHO_HOLD_AFTER: "2" });

const TEXT = "one two three four five six seven eight nine ten eleven twelve";
const send = (requestId: string) => chatSend(requestId, TEXT);
const chatEvents = (messages: unknown[]) =>
  (messages as AgentChatEventFrame[]).filter((frame) => frame.type === "agent-chat-event").map((frame) => frame.event);
const startedTurn = (messages: unknown[]) =>
  chatEvents(messages).find((event) => event.kind === "turn-started")?.turnId;
const endedStatus = (messages: unknown[]) => chatEvents(messages).find((event) => event.kind === "turn-ended")?.status;
const hasChunk = (requestId: string) => (messages: unknown[]) =>
  (messages as ChatFrame[]).some((frame) => frame.type === "chunk" && frame.requestId === requestId);

/** A turn in flight: the events socket, the sender's chat socket, and the turn's id. */
async function startTurn(running: MiniflareHost, base: string) {
  const events = await RecordingSocket.open(wsUrl(running, base));
  const sender = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
  sender.send(send("send-1"));
  await events.waitFor((messages) => startedTurn(messages) !== undefined);
  await sender.waitFor(hasChunk("send-1"));
  return { events, sender, turnId: startedTurn(events.messages) as string };
}

async function turnEnd(events: RecordingSocket): Promise<string | undefined> {
  await events.waitFor((messages) => endedStatus(messages) !== undefined);
  return endedStatus(events.messages);
}

describe("stopping the conversation's turn", () => {
  it("an abort of a resume stops only that follower: the turn goes on and completes", async () => {
    const running = await start();
    const base = "/agents/parent/resume-abort";
    const { events, sender } = await startTurn(running, base);
    // A second tab follows the turn, then stops following it.
    const follower = await RecordingSocket.open(wsUrl(running, `${base}/chat`));
    follower.send({ type: "resume", requestId: "resume-1", id: "chat", headers: {}, body: {} });
    await follower.waitFor(hasChunk("resume-1"));
    follower.send({ type: "abort", requestId: "resume-1" });
    // The follower's frames are handled in order: once a frame sent after the abort is answered, the abort was handled.
    follower.sendRaw("not json");
    await follower.waitFor((messages) => (messages as ChatFrame[]).some((frame) => frame.type === "error"));
    // Only now may the turn go on: the abort came while it was in flight.
    await running.fetchJson("/test/echo-release", { method: "POST" });

    expect(await turnEnd(events)).toBe("completed");
    for (const socket of [events, sender, follower]) socket.close();
  });

  it("the abort of the send that started the turn stops it (the sender's Stop)", async () => {
    const running = await start();
    const { events, sender } = await startTurn(running, "/agents/parent/send-abort");
    sender.send({ type: "abort", requestId: "send-1" });

    expect(await turnEnd(events)).toBe("aborted");
    for (const socket of [events, sender]) socket.close();
  });

  it("POST …/chat/stop/<turnId> stops it for everybody; another turn id stops nothing", async () => {
    const running = await start();
    const base = "/agents/parent/stop-route";
    const { events, sender, turnId } = await startTurn(running, base);
    const stop = (id: string) =>
      running.fetchJson<{ stopped: boolean }>(`${base}/chat/stop/${encodeURIComponent(id)}`, { method: "POST" });

    expect(await stop("some-other-turn")).toEqual({ stopped: false });
    expect(await stop(turnId)).toEqual({ stopped: true });
    expect(await turnEnd(events)).toBe("aborted");
    // The turn is over: stopping it again stops nothing.
    expect(await stop(turnId)).toEqual({ stopped: false });
    for (const socket of [events, sender]) socket.close();
  });
});
